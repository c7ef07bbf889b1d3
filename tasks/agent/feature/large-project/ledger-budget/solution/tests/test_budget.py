import unittest

from ledgerly.parser import parse_text
from ledgerly.query import parse_terms
from ledgerly.reports.budget import budget_report, render_budget

JOURNAL = """\
~ monthly
    expenses:food   $100.00
    assets:cash

2024-01-05 Shop
    expenses:food:market   $40.00
    assets:cash
"""


class BudgetReport(unittest.TestCase):
    def test_rules_are_kept_apart(self):
        journal = parse_text(JOURNAL)
        self.assertEqual(len(journal.transactions), 1)
        self.assertEqual(len(journal.periodics), 1)

    def test_report(self):
        journal = parse_text(JOURNAL)
        text = render_budget(budget_report(journal, parse_terms(["food"])), journal.commodities)
        self.assertEqual(text, "period   account        actual   budget  used\n"
                               "2024-01  expenses:food  $40.00  $100.00   40%\n")
