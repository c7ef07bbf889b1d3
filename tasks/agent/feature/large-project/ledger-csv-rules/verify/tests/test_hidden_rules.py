"""Hidden acceptance tests for `ledgerly import --rules`."""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CSV = """\
date,description,amount
2024-02-01,SALARY ACME CORP,3200.00
2024-02-02,STARBUCKS #123 Berlin,-4.50
2024-02-02,PENDING Amazon,-20.00
2024-02-03,Amazon Marketplace,-35.99
2024-02-04,Amazon Refund,12.00
2024-02-05,Rewe Supermarkt,-61.20
2024-02-06,coffee corner,-3.00
2024-02-07,Transfer to savings,-500.00
2024-02-08,Transfer from savings,250.00
"""

RULES = """\
# bank rules
; another comment style

skip /^PENDING /
match /^salary (.+)$/
  account income:salary
  payee Salary from \\1
  tag income
match /starbucks|coffee/
    account   expenses:food:coffee
    payee Coffee
    tag coffee
    tag where: out
    tag project: q1 budget
match /amazon/
  if amount < 0
  account expenses:shopping
  payee Amazon
match /amazon/
  account income:refunds
  payee Amazon refund
match /transfer (to|from) (savings)?(x)?/
  if amount >= -500
  if amount != 250
  account assets:savings
  payee Savings \\1 \\3[\\2]
"""

EXPECTED = """\
2024-02-01 Salary from ACME CORP  ; :income:
    income:salary  -$3200.00
    assets:checking  $3200.00

2024-02-02 Coffee  ; :coffee: where: out, project: q1 budget
    expenses:food:coffee  $4.50
    assets:checking  -$4.50

2024-02-03 Amazon
    expenses:shopping  $35.99
    assets:checking  -$35.99

2024-02-04 Amazon refund
    income:refunds  -$12.00
    assets:checking  $12.00

2024-02-05 Rewe Supermarkt
    expenses:unknown  $61.20
    assets:checking  -$61.20

2024-02-06 Coffee  ; :coffee: where: out, project: q1 budget
    expenses:food:coffee  $3.00
    assets:checking  -$3.00

2024-02-07 Savings to [savings]
    assets:savings  $500.00
    assets:checking  -$500.00

2024-02-08 Transfer from savings
    expenses:unknown  -$250.00
    assets:checking  $250.00
"""


class Rules(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        (self.dir / "bank.csv").write_text(CSV)

    def tearDown(self):
        self.tmp.cleanup()

    def ledgerly(self, *args):
        return subprocess.run([sys.executable, "-m", "ledgerly", *args], capture_output=True, text=True, cwd=ROOT,
                              timeout=60, env={**os.environ})

    def imp(self, rules_text=None):
        args = ["import", str(self.dir / "bank.csv"), "--account", "assets:checking"]
        if rules_text is not None:
            (self.dir / "bank.rules").write_text(rules_text)
            args += ["--rules", str(self.dir / "bank.rules")]
        return self.ledgerly(*args)

    def test_rules_classify(self):
        out = self.imp(RULES)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip() + "\n", EXPECTED)

    def test_output_parses_back_with_tags(self):
        out = self.imp(RULES)
        journal = self.dir / "out.journal"
        journal.write_text(out.stdout)
        bal = self.ledgerly("bal", "-f", str(journal), "--flat", "tag:coffee")
        self.assertEqual(bal.returncode, 0, bal.stderr)
        self.assertEqual(bal.stdout.splitlines()[0].split(), ["-$7.50", "assets:checking"])
        bal = self.ledgerly("bal", "-f", str(journal), "--flat", "tag:project=q1 budget", "coffee")
        self.assertEqual(bal.stdout.splitlines()[0].split(), ["$7.50", "expenses:food:coffee"])

    def test_without_rules_unchanged(self):
        out = self.imp()
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertTrue(out.stdout.startswith("2024-02-01 SALARY ACME CORP\n    expenses:unknown  -$3200.00\n"
                                              "    assets:checking  $3200.00\n\n2024-02-02 STARBUCKS #123 Berlin\n"))
        self.assertIn("2024-02-02 PENDING Amazon\n", out.stdout)

    def test_rule_errors(self):
        cases = [
            ("match /x/\n  account a\nfrobnicate yes\n", 3),
            ("match /x/\naccount a\n", 2),
            ("  account a\n", 1),
            ("match x\n  account a\n", 1),
            ("match /(/\n  account a\n", 1),
            ("# c\nmatch /x/\n  payee y\n", 2),
            ("match /x/\n  account a\n  if amount ~ 3\n", 3),
            ("match /x/\n  account a\n  if price > 3\n", 3),
            ("skip /[/\n", 1),
            ("match /x/\n  account a\n  tag\n", 3),
        ]
        for text, line in cases:
            out = self.imp(text)
            self.assertEqual(out.returncode, 2, text)
            self.assertIn(f"bank.rules:{line}:", out.stderr, text)
            self.assertEqual(out.stdout, "", text)


if __name__ == "__main__":
    unittest.main()
