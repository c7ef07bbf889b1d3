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


K = 10  # a linear-time NFA simulation decides each case well inside 10 calibrations; backtracking takes ages


def calibration():
    """Fixed work shaped like an NFA simulation: a set of up to 100 states stepped over 8,000 characters
    (about 0.1 s on a quiet 2020s core)."""
    states = set()
    for _ in range(8000):
        states = {s + 1 for s in states if s < 99}
        states.add(0)
    return len(states)


ROUNDS = 3  # a round lost to a burst of host load is measured again
HANG_GUARD_S = 5.0  # the least a call may run before it counts as hung


def clocked(fn, *args, limit=None):
    def on_alarm(signum, frame):
        raise Timeout(f"took longer than {limit:.1f}s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit or 0)
    try:
        t0 = time.perf_counter()
        out = fn(*args)
        return out, time.perf_counter() - t0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def within_k_of_baseline(testcase, k, baseline, fn, *args):
    """(fn(*args), baseline()) with fn timed right after the baseline on this host, so that host load slows
    both alike. Fails when fn is more than k times slower in every round, or runs past 4k times the baseline
    (at least HANG_GUARD_S: a hang)."""
    seen = []
    for _ in range(ROUNDS):
        expected, base = clocked(baseline)
        got, took = clocked(fn, *args, limit=max(HANG_GUARD_S, 4 * k * base))
        if took <= k * base:
            return got, expected
        seen.append(f"{took:.2f}s vs baseline {base:.3f}s")
    testcase.fail(f"more than {k}x slower than the baseline in {ROUNDS} rounds: " + "; ".join(seen))


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
                got, _ = within_k_of_baseline(self, K, calibration, full_match, pattern, text)
                self.assertEqual(got, want)


if __name__ == "__main__":
    unittest.main()
