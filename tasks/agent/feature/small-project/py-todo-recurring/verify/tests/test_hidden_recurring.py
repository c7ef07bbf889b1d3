"""Hidden acceptance tests for recurring tasks (CLI level, so any internal design passes)."""

import json
import unittest

from tests.helpers import TodoEnv


class Recurring(unittest.TestCase):
    def setUp(self):
        self.env = TodoEnv(today="2024-05-01")

    def tearDown(self):
        self.env.close()

    def run_ok(self, *args):
        out = self.env.run(*args)
        self.assertEqual(out.returncode, 0, f"{args}: {out.stderr}")
        return out.stdout.splitlines()

    def done_chain(self, task_id, steps):
        """Complete the task, move 'today' to the new due date, repeat; returns the due dates seen."""
        dues = []
        for _ in range(steps):
            lines = self.run_ok("done", str(task_id))
            self.assertEqual(len(lines), 2, lines)
            self.assertTrue(lines[1].startswith("next: ["), lines)
            task_id = int(lines[1].split("[", 1)[1].split("]", 1)[0])
            due = lines[1].split("(due ", 1)[1].split(",", 1)[0]
            dues.append(due)
            self.env.today = due
        return dues

    def test_add_list_show_display_the_rule(self):
        self.assertEqual(self.run_ok("add", "Pay rent", "--due", "2024-05-31", "--every", "1m", "--tag", "home"),
                         ["added: [1] Pay rent (due 2024-05-31, every 1m) #home"])
        self.run_ok("add", "Plain", "--due", "2024-05-02")
        self.assertEqual(self.run_ok("list"), ["[2] Plain (due 2024-05-02)",
                                               "[1] Pay rent (due 2024-05-31, every 1m) #home"])
        self.assertEqual(self.run_ok("show", "1"), ["[1] Pay rent (due 2024-05-31, every 1m) #home"])

    def test_bad_rules_are_rejected_without_saving(self):
        for rule in ("0d", "2", "w", "1h", "1.5d", "-1d", "d1", "every week"):
            out = self.env.run("add", "x", "--due", "today", f"--every={rule}")
            self.assertEqual(out.returncode, 2, f"--every {rule!r} accepted")
            self.assertTrue(out.stderr.startswith("todo: error:"), out.stderr)
        out = self.env.run("add", "x", "--every", "1d")
        self.assertEqual(out.returncode, 2, "--every without --due accepted")
        self.assertTrue(out.stderr.startswith("todo: error:"), out.stderr)
        self.assertEqual(self.run_ok("list"), ["nothing to do"])

    def test_done_creates_the_next_task(self):
        self.run_ok("add", "Standup notes", "--due", "2024-05-01", "--every", "1d", "--tag", "work",
                    "--tag", "daily", "--priority", "1")
        self.assertEqual(self.run_ok("done", "1"), [
            "done: [1]! Standup notes (due 2024-05-01, every 1d) #work #daily ✓",
            "next: [2]! Standup notes (due 2024-05-02, every 1d) #work #daily",
        ])
        self.assertEqual(self.run_ok("list"), ["[2]! Standup notes (due 2024-05-02, every 1d) #work #daily"])
        self.assertEqual(self.run_ok("done", "1"), ["already done: [1]! Standup notes (due 2024-05-01, every 1d) "
                                                    "#work #daily ✓"])
        self.assertEqual(len(self.run_ok("list", "--all")), 2)

    def test_early_and_late_completion(self):
        self.run_ok("add", "Early", "--due", "2024-05-10", "--every", "1w")
        self.run_ok("add", "Late daily", "--due", "2024-04-20", "--every", "1d")
        self.run_ok("add", "Late fortnightly", "--due", "2024-04-03", "--every", "2w")
        self.run_ok("add", "Late monthly", "--due", "2024-01-31", "--every", "1m")
        self.run_ok("add", "Early monthly", "--due", "2024-05-31", "--every", "1m")
        self.assertEqual(self.run_ok("done", "1")[1], "next: [6] Early (due 2024-05-17, every 1w)")
        self.assertEqual(self.run_ok("done", "2")[1], "next: [7] Late daily (due 2024-05-02, every 1d)")
        self.assertEqual(self.run_ok("done", "3")[1], "next: [8] Late fortnightly (due 2024-05-15, every 2w)")
        self.assertEqual(self.run_ok("done", "4")[1], "next: [9] Late monthly (due 2024-05-31, every 1m)")
        self.assertEqual(self.run_ok("done", "5")[1], "next: [10] Early monthly (due 2024-06-30, every 1m)")
        self.assertEqual(self.run_ok("list", "--overdue"), ["nothing to do"])

    def test_month_end_series_keeps_its_day(self):
        self.env.today = "2024-01-31"
        self.run_ok("add", "Invoice", "--due", "2024-01-31", "--every", "1m")
        self.assertEqual(self.done_chain(1, 5), ["2024-02-29", "2024-03-31", "2024-04-30", "2024-05-31",
                                                 "2024-06-30"])

    def test_quarterly_on_the_30th(self):
        self.env.today = "2024-11-30"
        self.run_ok("add", "Quarterly report", "--due", "2024-11-30", "--every", "3m")
        self.assertEqual(self.done_chain(1, 3), ["2025-02-28", "2025-05-30", "2025-08-30"])

    def test_leap_day_yearly(self):
        self.env.today = "2024-02-29"
        self.run_ok("add", "Leap party", "--due", "2024-02-29", "--every", "1y")
        self.assertEqual(self.done_chain(1, 4), ["2025-02-28", "2026-02-28", "2027-02-28", "2028-02-29"])

    def test_long_weekly_and_daily_steps(self):
        self.run_ok("add", "Backup", "--due", "2024-05-01", "--every", "10d")
        self.assertEqual(self.done_chain(1, 3), ["2024-05-11", "2024-05-21", "2024-05-31"])

    def test_old_task_files_still_work(self):
        self.env.file.write_text(json.dumps({
            "version": 1, "next_id": 3,
            "tasks": [
                {"id": 1, "title": "Old one", "due": "2024-05-03", "done": False, "tags": ["x"], "priority": 2},
                {"id": 2, "title": "Older", "due": None, "done": False, "tags": [], "priority": 3},
            ],
        }))
        self.assertEqual(self.run_ok("list"), ["[1] Old one (due 2024-05-03) #x", "[2]~ Older"])
        self.assertEqual(self.run_ok("done", "1"), ["done: [1] Old one (due 2024-05-03) #x ✓"])
        self.run_ok("add", "New", "--due", "today", "--every", "2d")
        self.assertEqual(self.run_ok("done", "3")[1], "next: [4] New (due 2024-05-03, every 2d)")


if __name__ == "__main__":
    unittest.main()
