import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = Path(__file__).parent / "sample.journal"


def ledgerly(*args, env=None):
    return subprocess.run([sys.executable, "-m", "ledgerly", *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **(env or {})}, timeout=60)


class Cli(unittest.TestCase):
    def test_balance_and_check(self):
        out = ledgerly("bal", "-f", str(SAMPLE), "--depth", "1", "income")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout, "          -$3,200.00  income\n--------------------\n          -$3,200.00\n")
        self.assertIn("6 transactions", ledgerly("check", "-f", str(SAMPLE)).stdout)

    def test_errors_exit_2(self):
        out = ledgerly("bal")
        self.assertEqual(out.returncode, 2)
        self.assertIn("no journal file", out.stderr)
        with tempfile.NamedTemporaryFile("w", suffix=".journal", delete=False) as fh:
            fh.write("2024-01-01 broken\n    a  $1\n    b  $1\n")
        try:
            out = ledgerly("bal", "-f", fh.name)
            self.assertEqual(out.returncode, 2)
            self.assertIn(":1: transaction does not balance", out.stderr)
        finally:
            os.unlink(fh.name)

    def test_import(self):
        with tempfile.TemporaryDirectory() as tmp:
            csv_path = Path(tmp) / "bank.csv"
            csv_path.write_text("date,description,amount\n2024-02-03,Coffee,-3.50\n2024-02-01,Refund,10\n")
            out = ledgerly("import", str(csv_path), "--account", "assets:checking")
            self.assertEqual(out.stdout.splitlines()[:3], ["2024-02-01 Refund", "    expenses:unknown  -$10.00",
                                                           "    assets:checking  $10.00"])
