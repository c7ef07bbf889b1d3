"""Hidden acceptance tests for budget rules (`~` lines) and the `budget` command."""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BASE = """\
~ monthly from 2024-01-01
    expenses:rent        $1,200.00
    expenses:food          $400.00
    assets:checking

~ quarterly
    expenses:travel      $900.00
    assets:checking

2024-01-05 Groceries
    expenses:food:groceries   $350.00
    assets:checking

2024-01-20 Food truck
    expenses:foodie   $10.00
    assets:checking

2024-01-31 Rent
    expenses:rent    $1,200.00
    assets:checking

2024-02-10 Dinner
    expenses:food:restaurant  $420.50
    assets:checking

2024-02-11 Train
    expenses:travel   $130.00
    assets:checking
"""


class Budget(unittest.TestCase):
    def ledgerly(self, text, *args):
        with tempfile.NamedTemporaryFile("w", suffix=".journal", delete=False) as fh:
            fh.write(text)
        try:
            return subprocess.run([sys.executable, "-m", "ledgerly", *args, "-f", fh.name], capture_output=True,
                                  text=True, cwd=ROOT, timeout=60, env={**os.environ, "LEDGERLY_TODAY": "2024-06-15"})
        finally:
            os.unlink(fh.name)

    def ok(self, text, *args):
        out = self.ledgerly(text, *args)
        self.assertEqual(out.returncode, 0, out.stderr)
        return out.stdout

    def test_default_range_and_subaccounts(self):
        self.assertEqual(self.ok(BASE, "budget", "expenses"),
                         "period   account            actual    budget  used\n"
                         "2024-01  expenses:food     $350.00   $400.00   88%\n"
                         "2024-01  expenses:rent    $1200.00  $1200.00  100%\n"
                         "2024-Q1  expenses:travel   $130.00   $900.00   14%\n"
                         "2024-02  expenses:food     $420.50   $400.00  105%\n"
                         "2024-02  expenses:rent       $0.00  $1200.00    0%\n")

    def test_period_option_and_query(self):
        self.assertEqual(self.ok(BASE, "budget", "-p", "2024-Q1", "food"),
                         "period   account         actual   budget  used\n"
                         "2024-01  expenses:food  $350.00  $400.00   88%\n"
                         "2024-02  expenses:food  $420.50  $400.00  105%\n"
                         "2024-03  expenses:food    $0.00  $400.00    0%\n")
        out = self.ok(BASE, "budget", "-b", "2024-02-01", "-e", "2024-03-01", "not:expenses")
        self.assertEqual(out, "period   account            actual     budget  used\n"
                              "2024-Q1  assets:checking  -$550.50   -$900.00   61%\n"
                              "2024-02  assets:checking  -$550.50  -$1600.00   34%\n")

    def test_rule_validity_weekly_and_sums(self):
        text = """\
~ weekly from 2024-01-08 to 2024-01-22
    expenses:coffee   $20.00
    assets:cash

~ weekly
    expenses:coffee   $5.00
    expenses:snacks   $0.00
    assets:cash

2024-01-02 Coffee
    expenses:coffee   $4.00
    assets:cash

2024-01-09 Coffee
    expenses:coffee   $12.35
    assets:cash

2024-01-20 Snack
    expenses:snacks   $3.00
    assets:cash
"""
        self.assertEqual(self.ok(text, "budget", "-b", "2024-01-01", "-e", "2024-01-29", "expenses"),
                         "period    account          actual  budget  used\n"
                         "2024-W01  expenses:coffee   $4.00   $5.00   80%\n"
                         "2024-W01  expenses:snacks   $0.00   $0.00     -\n"
                         "2024-W02  expenses:coffee  $12.35  $25.00   49%\n"
                         "2024-W02  expenses:snacks   $0.00   $0.00     -\n"
                         "2024-W03  expenses:coffee   $0.00  $25.00    0%\n"
                         "2024-W03  expenses:snacks   $3.00   $0.00     -\n"
                         "2024-W04  expenses:coffee   $0.00   $5.00    0%\n"
                         "2024-W04  expenses:snacks   $0.00   $0.00     -\n")

    def test_commodities_and_conversion(self):
        text = """\
P 2024-01-01 EUR $1.10

~ monthly
    expenses:travel   $100.00
    assets:bank

2024-03-03 Hotel
    expenses:travel:hotel   50.00 EUR
    assets:eur

2024-03-04 Taxi
    expenses:travel   $20.00
    assets:bank
"""
        self.assertEqual(self.ok(text, "budget", "travel"),
                         "period   account          actual   budget  used\n"
                         "2024-03  expenses:travel  $20.00  $100.00   20%\n")
        self.assertEqual(self.ok(text, "budget", "travel", "-X", "$"),
                         "period   account          actual   budget  used\n"
                         "2024-03  expenses:travel  $75.00  $100.00   75%\n")

    def test_rules_do_not_change_other_reports(self):
        plain = BASE.split("2024-01-05", 1)[1]
        plain = "2024-01-05" + plain
        for args in (["bal"], ["bal", "--flat", "--depth", "2"], ["reg"], ["act", "-i", "monthly"], ["check"],
                     ["accounts"]):
            self.assertEqual(self.ok(BASE, *args), self.ok(plain, *args), args)

    def test_no_rules_or_no_data(self):
        self.assertEqual(self.ok(BASE.split("2024-01-05", 1)[1].join(["2024-01-05", ""]), "budget"), "no budget periods\n")
        self.assertEqual(self.ok("~ monthly\n    expenses:x  $1.00\n    assets:y\n", "budget"), "no budget periods\n")
        self.assertEqual(self.ok(BASE, "budget", "-p", "2024-01", "nothing-matches"), "no budget periods\n")

    def test_bad_rules(self):
        cases = [
            ("2024-01-01 x\n    a  $1\n    b\n\n~ fortnightly\n    a  $1\n    b\n", ":5:"),
            ("~ monthly from 2024-13-01\n    a  $1\n    b\n", ":1:"),
            ("~ monthly from 2024-05-01 to 2024-01-01\n    a  $1\n    b\n", ":1:"),
            ("\n~ yearly\n    a  $1\n    b  $1\n", ":2:"),
            ("~ monthly junk\n    a  $1\n    b\n", ":1:"),
        ]
        for text, where in cases:
            out = self.ledgerly(text, "budget")
            self.assertEqual(out.returncode, 2, text)
            self.assertIn(where, out.stderr, text)


if __name__ == "__main__":
    unittest.main()
