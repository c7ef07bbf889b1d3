"""Hidden check for the smoke task: run greet.py as a user would."""

import subprocess
import sys
import unittest


def run(*names):
    out = subprocess.run([sys.executable, "greet.py", *names], capture_output=True, text=True, timeout=20)
    return out.returncode, out.stdout


class TestGreet(unittest.TestCase):
    def check(self, names, want):
        rc, got = run(*names)
        self.assertEqual((rc, got), (0, want), f"greet.py {' '.join(names)}")

    def test_no_name(self):
        self.check((), "Hello, world!\n")

    def test_one_name(self):
        self.check(("Ada",), "Hello, Ada!\n")

    def test_two_names(self):
        self.check(("Ada", "Grace"), "Hello, Ada!\nHello, Grace!\n")

    def test_non_ascii_names(self):
        self.check(("Jean-Luc", "Zoë"), "Hello, Jean-Luc!\nHello, Zoë!\n")


if __name__ == "__main__":
    unittest.main()
