"""Hidden regression tests for weekly periods at year boundaries (ISO 8601 weeks)."""

import unittest
from datetime import date, timedelta

from ledgerly.parser import parse_text
from ledgerly.periods import parse_period, period_of, split
from ledgerly.query import parse_terms
from ledgerly.reports.activity import activity_report, render_activity


def journal_text(days):
    out = []
    for i, day in enumerate(days):
        out.append(f"{day.isoformat()} Shop {i}\n    expenses:food  $1.00\n    assets:cash\n")
    return "\n".join(out)


class HiddenWeeks(unittest.TestCase):
    def test_labels_use_the_iso_year(self):
        cases = {
            date(2024, 12, 30): "2025-W01", date(2024, 12, 31): "2025-W01", date(2025, 1, 5): "2025-W01",
            date(2024, 12, 29): "2024-W52", date(2021, 1, 3): "2020-W53", date(2020, 12, 31): "2020-W53",
            date(2027, 1, 1): "2026-W53", date(2026, 12, 28): "2026-W53", date(2019, 12, 30): "2020-W01",
            date(2023, 1, 1): "2022-W52", date(2023, 1, 2): "2023-W01",
        }
        for day, label in cases.items():
            with self.subTest(day=day):
                p = period_of(day, "weekly")
                self.assertEqual(p.label, label)
                self.assertEqual(p.start.weekday(), 0)
                self.assertIn(day, p)

    def test_every_label_is_unique_over_years(self):
        periods = split(date(2015, 1, 1), date(2031, 1, 1), "weekly")
        labels = [p.label for p in periods]
        self.assertEqual(len(labels), len(set(labels)))
        self.assertEqual(labels, sorted(labels))
        for p in periods:
            self.assertEqual(parse_period(p.label, date(2024, 1, 1)), p)

    def test_activity_puts_late_december_in_its_own_week(self):
        days = [date(2024, 1, 2), date(2024, 1, 3), date(2024, 12, 30), date(2024, 12, 31), date(2025, 1, 2)]
        journal = parse_text(journal_text(days))
        query = parse_terms(["expenses"])
        query.begin, query.end = date(2024, 1, 1), date(2025, 1, 1)  # as `-p 2024` does
        report = activity_report(journal, query, "weekly", begin=query.begin, end=query.end)
        labels = [p.label for p in report.periods]
        self.assertEqual(labels[0], "2024-W01")
        self.assertEqual(labels[-1], "2025-W01")
        self.assertEqual(len(labels), 53)
        text = render_activity(report, journal.commodities)
        rows = [line.split() for line in text.splitlines()]
        food = next(r for r in rows if r[0] == "expenses:food")
        self.assertEqual(food[1], "$2.00", "first week of 2024 has only the two January purchases")
        self.assertEqual(food[-1], "$2.00", "the week of Dec 30 holds Dec 30 and 31 (Jan 2 is outside -e)")

    def test_cli_style_range(self):
        days = [date(2024, 12, 16) + timedelta(days=3 * i) for i in range(9)]
        journal = parse_text(journal_text(days))
        report = activity_report(journal, parse_terms([]), "weekly", begin=date(2024, 12, 16), end=date(2025, 1, 13))
        self.assertEqual([p.label for p in report.periods], ["2024-W51", "2024-W52", "2025-W01", "2025-W02"])


if __name__ == "__main__":
    unittest.main()
