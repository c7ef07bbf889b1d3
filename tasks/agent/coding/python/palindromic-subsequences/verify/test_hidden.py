"""Hidden tests: examples, exhaustive enumeration on short strings, an independent per-letter interval
DP on longer ones, and a time limit on the largest inputs."""

import random
import signal
import time
import unittest
from functools import lru_cache
from itertools import combinations

from palindromes import count_palindromes

MOD = 1_000_000_007


def enumerate_all(s):
    found = set()
    for r in range(1, len(s) + 1):
        for idx in combinations(range(len(s)), r):
            t = "".join(s[i] for i in idx)
            if t == t[::-1]:
                found.add(t)
    return len(found)


def reference(s):
    """Count palindromes by their outermost letter: for each letter c take its first and last
    occurrence inside [i, j]; c alone, c c, and c X c for every palindrome X strictly inside."""
    n = len(s)
    letters = sorted(set(s))
    first = {c: [n] * (n + 1) for c in letters}
    lastpos = {c: [-1] * (n + 1) for c in letters}
    for c in letters:
        nxt = n
        for i in range(n - 1, -1, -1):
            if s[i] == c:
                nxt = i
            first[c][i] = nxt
        prv = -1
        for i in range(n):
            if s[i] == c:
                prv = i
            lastpos[c][i + 1] = prv
    memo = {}

    def f(i, j):  # palindromes inside s[i:j]
        if i >= j:
            return 0
        key = i * (n + 1) + j
        if key in memo:
            return memo[key]
        total = 0
        for c in letters:
            a = first[c][i]
            b = lastpos[c][j]
            if a >= j:
                continue
            if a == b:
                total += 1
            else:
                total += 2 + f(a + 1, b)
        memo[key] = total % MOD
        return memo[key]

    import sys
    sys.setrecursionlimit(10000)
    return f(0, n)


def timed(fn, arg, limit):
    def on_alarm(signum, frame):
        raise TimeoutError(f"took longer than {limit * 3}s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(int(limit * 3) + 1)
    try:
        t0 = time.perf_counter()
        return fn(arg), time.perf_counter() - t0
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


class Hidden(unittest.TestCase):
    def test_examples(self):
        for s, want in (("bccb", 6), ("aaa", 3), ("abc", 3), ("a", 1), ("", 0), ("aa", 2), ("aba", 4),
                        ("abba", 6), ("abcdcba", 22)):
            with self.subTest(s=s):
                self.assertEqual(count_palindromes(s), want)

    def test_exhaustive_short(self):
        rng = random.Random(8)
        for _ in range(400):
            s = "".join(rng.choice(rng.choice(["ab", "abc", "abcd", "az"])) for _ in range(rng.randint(1, 12)))
            with self.subTest(s=s):
                self.assertEqual(count_palindromes(s), enumerate_all(s))

    def test_medium_against_reference(self):
        rng = random.Random(9)
        for _ in range(60):
            alphabet = rng.choice(["ab", "abcd", "abcdefghij", "abcdefghijklmnopqrstuvwxyz"])
            s = "".join(rng.choice(alphabet) for _ in range(rng.randint(20, 120)))
            with self.subTest(s=s):
                self.assertEqual(count_palindromes(s), reference(s))

    def test_large_is_fast_and_exact(self):
        rng = random.Random(10)
        for alphabet, n in (("abcd", 1000), ("ab", 600), ("a", 1000)):
            s = "".join(rng.choice(alphabet) for _ in range(n))
            want = reference(s) if alphabet != "a" else n
            got, elapsed = timed(count_palindromes, s, 3.0)
            self.assertEqual(got, want, f"n={n} alphabet={alphabet}")
            self.assertLess(elapsed, 3.0, f"n={n} took {elapsed:.1f}s")


if __name__ == "__main__":
    unittest.main()
