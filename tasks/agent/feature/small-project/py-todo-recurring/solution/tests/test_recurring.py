import unittest
from datetime import date

from tests.helpers import TodoEnv
from todo.recurrence import next_due, parse_rule


class Rules(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_rule("2w"), (2, "w"))
        for bad in ("0d", "w", "2x", "-1d", ""):
            with self.assertRaises(ValueError):
                parse_rule(bad)

    def test_month_end_keeps_anchor_day(self):
        anchor = date(2024, 1, 31)
        due = anchor
        seen = []
        for _ in range(3):
            due = next_due(anchor, due, "1m", date(2024, 1, 1))
            seen.append(due)
        self.assertEqual(seen, [date(2024, 2, 29), date(2024, 3, 31), date(2024, 4, 30)])


class RecurringCli(unittest.TestCase):
    def setUp(self):
        self.env = TodoEnv(today="2024-05-01")

    def tearDown(self):
        self.env.close()

    def test_done_creates_next(self):
        self.env.run("add", "Water plants", "--due", "2024-05-01", "--every", "3d")
        out = self.env.run("done", "1").stdout.splitlines()
        self.assertEqual(out, ["done: [1] Water plants (due 2024-05-01, every 3d) ✓",
                               "next: [2] Water plants (due 2024-05-04, every 3d)"])

    def test_every_needs_due(self):
        out = self.env.run("add", "x", "--every", "1d")
        self.assertEqual(out.returncode, 2)
