import unittest
from datetime import date
from decimal import Decimal

from ledgerly.amount import Amount, parse_amount
from ledgerly.errors import ParseError
from ledgerly.parser import parse_tags, parse_text


class Amounts(unittest.TestCase):
    def test_forms(self):
        self.assertEqual(parse_amount("$1,234.50")[0], Amount(Decimal("1234.50"), "$"))
        self.assertEqual(parse_amount("-$3")[0], Amount(Decimal("-3"), "$"))
        self.assertEqual(parse_amount("12.5 EUR")[0], Amount(Decimal("12.5"), "EUR"))
        self.assertEqual(parse_amount("7")[0], Amount(Decimal("7"), ""))
        style = parse_amount("$1,234.50")[1]
        self.assertTrue(style.prefix and style.grouping and style.precision == 2)
        with self.assertRaises(ValueError):
            parse_amount("12 EUR 5")


class Journal(unittest.TestCase):
    def test_elided_amount_and_tags(self):
        j = parse_text("2024-03-01 * Shop  ; :food:\n    expenses:food  $10.00  ; who: ann\n    assets:cash\n")
        txn = j.transactions[0]
        self.assertEqual(txn.date, date(2024, 3, 1))
        self.assertEqual(txn.status, "*")
        self.assertEqual(txn.tags, {"food": ""})
        self.assertEqual(txn.postings[0].tags, {"who": "ann"})
        self.assertEqual(txn.postings[1].amount, Amount(Decimal("-10.00"), "$"))

    def test_prices(self):
        j = parse_text("2024-03-01 FX\n    assets:eur  100 EUR @@ $110\n    assets:usd  -$110\n")
        self.assertEqual(j.transactions[0].postings[0].price, Amount(Decimal("1.1"), "$"))

    def test_errors(self):
        with self.assertRaises(ParseError) as ctx:
            parse_text("2024-03-01 X\n    a  $1\n    b  $2\n", "j.ledger")
        self.assertEqual(ctx.exception.line, 1)
        with self.assertRaises(ParseError):
            parse_text("2024-03-01 X\n    a\n    b\n")
        with self.assertRaises(ParseError):
            parse_text("2024-13-01 X\n    a  $1\n    b\n")

    def test_tag_forms(self):
        self.assertEqual(parse_tags(":a:b: project: x, who: y"), {"a": "", "b": "", "project": "x", "who": "y"})
