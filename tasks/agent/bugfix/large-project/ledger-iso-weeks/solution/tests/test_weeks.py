import unittest
from datetime import date

from ledgerly.periods import period_of


class Weeks(unittest.TestCase):
    def test_iso_week_year(self):
        self.assertEqual(period_of(date(2024, 12, 30), "weekly").label, "2025-W01")
        self.assertEqual(period_of(date(2021, 1, 3), "weekly").label, "2020-W53")
