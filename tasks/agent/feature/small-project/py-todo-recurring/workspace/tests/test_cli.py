import json
import unittest

from tests.helpers import TodoEnv


class Cli(unittest.TestCase):
    def setUp(self):
        self.env = TodoEnv()

    def tearDown(self):
        self.env.close()

    def test_add_list_done(self):
        out = self.env.run("add", "Buy milk", "--due", "tomorrow", "--tag", "shop")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), "added: [1] Buy milk (due 2024-05-02) #shop")
        self.env.run("add", "Call Bob", "--priority", "1")
        listing = self.env.run("list").stdout.splitlines()
        self.assertEqual(listing, ["[1] Buy milk (due 2024-05-02) #shop", "[2]! Call Bob"])
        self.assertEqual(self.env.run("done", "1").stdout.strip(), "done: [1] Buy milk (due 2024-05-02) #shop ✓")
        self.assertEqual(self.env.run("list").stdout.splitlines(), ["[2]! Call Bob"])
        self.assertEqual(len(self.env.run("list", "--all").stdout.splitlines()), 2)

    def test_overdue_and_errors(self):
        self.env.run("add", "Taxes", "--due", "2024-04-15")
        self.assertEqual(self.env.run("list", "--overdue").stdout.strip(), "[1] Taxes (due 2024-04-15)  OVERDUE")
        bad = self.env.run("done", "42")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("no task with id 42", bad.stderr)
        self.assertEqual(self.env.run("add", "x", "--due", "someday").returncode, 2)

    def test_file_format(self):
        self.env.run("add", "A")
        self.env.run("add", "B")
        self.env.run("remove", "1")
        data = json.loads(self.env.file.read_text())
        self.assertEqual(data["next_id"], 3)
        self.assertEqual([t["title"] for t in data["tasks"]], ["B"])
