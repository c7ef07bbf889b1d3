"""Hidden tests: hand-written cases, thousands of random patterns checked against Python's re, and
pathological patterns that make a backtracking matcher take exponential time."""

import random
import re
import signal
import time
import unittest

from tinyregex import full_match


class Timeout(Exception):
    pass


def within(seconds, fn, *args):
    def on_alarm(signum, frame):
        raise Timeout(f"took longer than {seconds * 4}s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds * 4)
    try:
        t0 = time.perf_counter()
        out = fn(*args)
        return out, time.perf_counter() - t0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def random_pattern(rng, depth=0):
    kind = rng.random()
    if depth > 3 or kind < 0.35:
        atom = rng.random()
        if atom < 0.6:
            return rng.choice("abc")
        if atom < 0.7:
            return "."
        if atom < 0.8:
            return rng.choice(["\\.", "\\*", "\\+", "\\(", "\\|", "\\?"])
        body = "".join(rng.sample("abcd", rng.randint(1, 3)))
        if rng.random() < 0.3:
            body = "a-c" if rng.random() < 0.5 else "b-d"
        return "[" + ("^" if rng.random() < 0.3 else "") + body + "]"
    if kind < 0.6:
        return "".join(random_pattern(rng, depth + 1) for _ in range(rng.randint(2, 4)))
    if kind < 0.75:
        return "(" + "|".join(random_pattern(rng, depth + 1) if rng.random() < 0.85 else ""
                              for _ in range(rng.randint(2, 3))) + ")"
    inner = random_pattern(rng, depth + 1)
    if len(inner) > 1 and not (inner.startswith("[") and inner.endswith("]") and inner.count("[") == 1) \
            and not (len(inner) == 2 and inner[0] == "\\"):
        inner = "(" + inner + ")"
    return inner + rng.choice("*+?")


class Hidden(unittest.TestCase):
    def check(self, pattern, text, want):
        self.assertEqual(full_match(pattern, text), want, f"full_match({pattern!r}, {text!r})")

    def test_basics(self):
        cases = [
            ("", "", True), ("", "a", False), ("a", "a", True), ("a", "", False), ("abc", "abc", True),
            ("abc", "abcd", False), ("a.c", "axc", True), ("a.c", "ac", False), ("a*", "", True),
            ("a*", "aaaa", True), ("a+", "", False), ("a+", "aaa", True), ("ab?c", "ac", True),
            ("ab?c", "abbc", False), ("(ab)*", "ababab", True), ("(ab)*", "aba", False),
            ("a|b", "b", True), ("a|b", "ab", False), ("ab|cd", "cd", True), ("a(b|c)d", "acd", True),
            ("(a|)b", "b", True), ("a|", "", True), ("|", "", True), ("(|a)+", "aa", True),
            ("[abc]+", "cab", True), ("[a-c]x", "bx", True), ("[a-c]x", "dx", False),
            ("[^ab]", "c", True), ("[^ab]", "a", False), ("[^a-y]z", "zz", True),
            ("\\.", ".", True), ("\\.", "a", False), ("a\\*", "a*", True), ("a\\*", "aa", False),
            ("\\\\", "\\", True), ("\\(x\\)", "(x)", True), ("[\\]]", "]", True), ("[.]", "a", False),
            ("[.]", ".", True), ("x[*+?]", "x+", True), ("(a*)*", "aaa", True), ("(a*)+b", "b", True),
            ("(a?)*", "", True), ("((a|b)c)*", "acbc", True), ("((a|b)c)*", "acb", False),
            ("[0-9]+(\\.[0-9]+)?", "3.14", True), ("[0-9]+(\\.[0-9]+)?", "3.", False),
            ("(a|ab)(c|bcd)(d*)", "abcd", True), ("(a+)?", "aa", True), ("(a*)?b", "b", True),
        ]
        for pattern, text, want in cases:
            with self.subTest(pattern=pattern, text=text):
                self.check(pattern, text, want)

    def test_random_against_re(self):
        rng = random.Random(2024)
        checked = 0
        while checked < 4000:
            pattern = random_pattern(rng)
            try:
                compiled = re.compile(pattern)
            except re.error:
                continue
            for _ in range(3):
                text = "".join(rng.choice("abcd.*+(|?") for _ in range(rng.randint(0, 9)))
                if rng.random() < 0.5:
                    # grow texts that actually match, so positives are tested too
                    sample = "".join(rng.choice("abc") for _ in range(rng.randint(0, 6)))
                    text = sample if compiled.fullmatch(sample) else text
                want = compiled.fullmatch(text) is not None
                with self.subTest(pattern=pattern, text=text):
                    self.check(pattern, text, want)
                checked += 1

    def test_pathological_patterns_are_fast(self):
        rng = random.Random(5)
        long_ab = "".join(rng.choice("ab") for _ in range(2000))
        cases = [
            ("(a|aa)*b", "a" * 60, False),
            ("(a*)*c", "a" * 500, False),
            ("(a|a)*", "a" * 1500 + "b", False),
            ("a*" * 30 + "b", "a" * 300, False),
            ("(a?)" * 40 + "a" * 40, "a" * 40, True),
            ("(a|b)*a(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)(a|b)", long_ab, long_ab[-11] == "a"),
            ("(.*a){12}".replace("{12}", "") * 12, "a" * 11 + "b" * 1500, False),
            ("(x+x+)+y", "x" * 1000, False),
            ("(([a-z])+.)+[A-Z]([a-z])+", "a" * 1200 + "!", False),
        ]
        for pattern, text, want in cases:
            with self.subTest(pattern=pattern[:40]):
                got, elapsed = within(1.0, full_match, pattern, text)
                self.assertEqual(got, want)
                self.assertLess(elapsed, 1.0, f"{pattern[:40]!r} took {elapsed:.2f}s")


if __name__ == "__main__":
    unittest.main()
