import unittest
from datetime import date

from todo.dates import DateError, parse_date

TODAY = date(2024, 5, 1)  # a Wednesday


class ParseDate(unittest.TestCase):
    def test_keywords_and_offsets(self):
        self.assertEqual(parse_date("today", TODAY), TODAY)
        self.assertEqual(parse_date("Tomorrow", TODAY), date(2024, 5, 2))
        self.assertEqual(parse_date("+3d", TODAY), date(2024, 5, 4))
        self.assertEqual(parse_date("+2w", TODAY), date(2024, 5, 15))

    def test_weekdays_are_in_the_future(self):
        self.assertEqual(parse_date("fri", TODAY), date(2024, 5, 3))
        self.assertEqual(parse_date("wed", TODAY), date(2024, 5, 8))
        self.assertEqual(parse_date("monday", TODAY), date(2024, 5, 6))

    def test_iso_and_errors(self):
        self.assertEqual(parse_date("2024-12-24", TODAY), date(2024, 12, 24))
        with self.assertRaises(DateError):
            parse_date("someday", TODAY)
