import unittest
from datetime import date
from decimal import Decimal

from ledgerly.parser import parse_text
from ledgerly.prices import PriceDB


class PricePrecision(unittest.TestCase):
    def test_p_directives_keep_their_decimals(self):
        journal = parse_text("P 2024-01-01 EUR $1.0837\n\n2024-01-02 X\n    a  $1.00\n    b\n")
        self.assertEqual(PriceDB.from_journal(journal).rate("EUR", "$", date(2024, 1, 2)), Decimal("1.0837"))
