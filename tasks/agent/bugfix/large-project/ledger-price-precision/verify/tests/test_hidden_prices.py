"""Hidden regression tests: market prices keep their full precision; rounding happens only on display."""

import unittest
from datetime import date
from decimal import Decimal

from ledgerly.parser import parse_text
from ledgerly.prices import PriceDB
from ledgerly.query import parse_terms
from ledgerly.reports.activity import activity_report, render_activity
from ledgerly.reports.balance import balance_report, render_balance
from ledgerly.reports.register import register_report, render_register

JOURNAL = """\
P 2024-01-01 EUR $1.0837
P 2024-01-01 GBP 1.16472 EUR
P 2024-02-01 EUR $1.08125

2024-01-02 Opening
    assets:checking       $5,000.00
    equity:opening

2024-01-03 Buy euros
    assets:eur           1000.00 EUR
    assets:checking

2024-01-04 Coffee
    expenses:coffee         1.00 EUR
    assets:eur

2024-01-05 Coffee
    expenses:coffee         1.00 EUR
    assets:eur

2024-01-06 Coffee
    expenses:coffee         1.00 EUR
    assets:eur

2024-01-07 Pounds
    assets:gbp            100.00 GBP @ 1.16472 EUR
    assets:eur
"""


class HiddenPrices(unittest.TestCase):
    def setUp(self):
        self.journal = parse_text(JOURNAL, "hidden.journal")

    def test_rate_keeps_all_decimals(self):
        db = PriceDB.from_journal(self.journal)
        self.assertEqual(db.rate("EUR", "$", date(2024, 1, 15)), Decimal("1.0837"))
        self.assertEqual(db.rate("EUR", "$", date(2024, 2, 1)), Decimal("1.08125"))
        self.assertEqual(db.rate("GBP", "EUR", date(2024, 1, 7)), Decimal("1.16472"))
        self.assertEqual(db.rate("$", "EUR", date(2024, 1, 15)), Decimal(1) / Decimal("1.0837"))

    def test_balance_converted(self):
        rows, total = balance_report(self.journal, parse_terms(["assets:eur", "coffee"]), flat=True,
                                     convert_to="$", at=date(2024, 1, 31))
        text = render_balance(rows, total, self.journal.commodities)
        # 1000 - 3 - 116.472 = 880.528 EUR at 1.0837
        self.assertIn("             $954.23  assets:eur\n", text)
        # three coffees of 1 EUR: 3.2511 -> $3.25 (rounded once, at display)
        self.assertIn("               $3.25  expenses:coffee\n", text)

    def test_register_converted(self):
        lines = register_report(self.journal, parse_terms(["coffee"]), convert_to="$")
        text = render_register(lines, self.journal.commodities)
        self.assertEqual([line.split()[-2:] for line in text.splitlines()],
                         [["$1.08", "$1.08"], ["$1.08", "$2.17"], ["$1.08", "$3.25"]])

    def test_activity_converted(self):
        journal = parse_text(JOURNAL + "\n2024-02-03 Coffee\n    expenses:coffee   2.00 EUR\n    assets:eur\n")
        report = activity_report(journal, parse_terms(["coffee"]), "monthly", convert_to="$")
        text = render_activity(report, journal.commodities)
        self.assertIn(["expenses:coffee", "$3.25", "$2.16"], [line.split() for line in text.splitlines()])

    def test_chained_display_only_rounding(self):
        rows, total = balance_report(self.journal, parse_terms(["gbp"]), flat=True, convert_to="EUR",
                                     at=date(2024, 1, 31))
        text = render_balance(rows, total, self.journal.commodities)
        self.assertIn("          116.47 EUR  assets:gbp\n", text)


if __name__ == "__main__":
    unittest.main()
