import unittest
from datetime import date
from pathlib import Path

from ledgerly.parser import parse_text
from ledgerly.periods import parse_period, split
from ledgerly.query import parse_terms
from ledgerly.reports.activity import activity_report, render_activity
from ledgerly.reports.balance import balance_report, render_balance
from ledgerly.reports.register import register_report, render_register

SAMPLE = (Path(__file__).parent / "sample.journal").read_text()


class Reports(unittest.TestCase):
    def setUp(self):
        self.journal = parse_text(SAMPLE, "sample.journal")

    def test_balance_tree(self):
        rows, total = balance_report(self.journal, parse_terms(["expenses"]))
        text = render_balance(rows, total, self.journal.commodities)
        self.assertIn("             $125.20\n          250.00 EUR  expenses\n", text)
        self.assertIn("              $45.20      groceries\n", text)

    def test_balance_converted_flat(self):
        rows, total = balance_report(self.journal, parse_terms([]), flat=True, convert_to="$")
        text = render_balance(rows, total, self.journal.commodities)
        self.assertIn("             $817.50  assets:eur\n", text)
        self.assertTrue(text.endswith("--------------------\n                   0\n"))

    def test_register_running_total(self):
        lines = register_report(self.journal, parse_terms(["checking"]))
        text = render_register(lines, self.journal.commodities)
        self.assertEqual(text.splitlines()[0],
                         "2024-01-02 Opening balance        assets:checking                 $2,500.00      $2,500.00")
        self.assertEqual(len(text.splitlines()), 5)

    def test_activity(self):
        report = activity_report(self.journal, parse_terms(["expenses"]), "monthly", depth=2)
        text = render_activity(report, self.journal.commodities)
        self.assertEqual(text.splitlines()[0].split(), ["account", "2024-01", "2024-02"])
        self.assertIn("expenses:food                $45.20   $80.00\n", text)


class Periods(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_period("2024-Q4", date(2024, 1, 1)).end, date(2025, 1, 1))
        self.assertEqual(parse_period("last month", date(2024, 1, 15)).label, "2023-12")
        self.assertEqual([p.label for p in split(date(2024, 1, 30), date(2024, 3, 2), "monthly")],
                         ["2024-01", "2024-02", "2024-03"])
