"""Hidden tests: exact answers on edge cases, random cases against brute force, big cases against a
merge-sort reference, with a time limit per big call."""

import random
import signal
import time
import unittest
from functools import partial

from range_sums import count_range_sums


def brute(nums, lo, hi):
    count = 0
    for i in range(len(nums)):
        s = 0
        for j in range(i, len(nums)):
            s += nums[j]
            if lo <= s <= hi:
                count += 1
    return count


def reference(nums, lo, hi):
    prefix = [0]
    for x in nums:
        prefix.append(prefix[-1] + x)

    def solve(a):
        if len(a) <= 1:
            return a, 0
        mid = len(a) // 2
        left, c1 = solve(a[:mid])
        right, c2 = solve(a[mid:])
        count = c1 + c2
        lo_ptr = hi_ptr = 0
        for x in left:
            while lo_ptr < len(right) and right[lo_ptr] - x < lo:
                lo_ptr += 1
            while hi_ptr < len(right) and right[hi_ptr] - x <= hi:
                hi_ptr += 1
            count += hi_ptr - lo_ptr
        merged = sorted(left + right)
        return merged, count

    return solve(prefix)[1]


class Timeout(Exception):
    pass


K = 10  # an O(n log n) solution runs within ~2x of the merge-sort reference; O(n^2) is 100s of times slower
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


class Hidden(unittest.TestCase):
    def test_examples(self):
        self.assertEqual(count_range_sums([-2, 5, -1], -2, 2), 3)
        self.assertEqual(count_range_sums([0], 0, 0), 1)
        self.assertEqual(count_range_sums([], -5, 5), 0)
        self.assertEqual(count_range_sums([0, 0, 0], 0, 0), 6)
        self.assertEqual(count_range_sums([3, -3, 3, -3], 0, 0), 4)
        self.assertEqual(count_range_sums([10 ** 9] * 3, 3 * 10 ** 9, 3 * 10 ** 9), 1)
        self.assertEqual(count_range_sums([1, 2, 3], 7, 100), 0)

    def test_random_small_against_brute_force(self):
        rng = random.Random(7)
        for _ in range(1500):
            n = rng.randint(0, 14)
            span = rng.choice([1, 3, 10, 10 ** 9])
            nums = [rng.randint(-span, span) for _ in range(n)]
            a, b = rng.randint(-3 * span, 3 * span), rng.randint(-3 * span, 3 * span)
            lo, hi = min(a, b), max(a, b)
            with self.subTest(nums=nums, lo=lo, hi=hi):
                self.assertEqual(count_range_sums(list(nums), lo, hi), brute(nums, lo, hi))

    def test_does_not_modify_input(self):
        nums = [5, -2, 7, -9, 3]
        count_range_sums(nums, -3, 4)
        self.assertEqual(nums, [5, -2, 7, -9, 3])

    def test_large_random(self):
        rng = random.Random(11)
        for n, span, width in ((100_000, 10 ** 9, 10 ** 9), (100_000, 50, 200), (60_000, 3, 0)):
            nums = [rng.randint(-span, span) for _ in range(n)]
            lo = rng.randint(-width, width) if width else 0
            hi = lo + width
            got, want = within_k_of_baseline(self, K, partial(reference, nums, lo, hi), count_range_sums, nums, lo, hi)
            self.assertEqual(got, want, f"n={n}")

    def test_large_all_positive_and_adversarial(self):
        nums = list(range(1, 80_001))
        lo, hi = 10 ** 6, 10 ** 8
        got, want = within_k_of_baseline(self, K, partial(reference, nums, lo, hi), count_range_sums, nums, lo, hi)
        self.assertEqual(got, want)


if __name__ == "__main__":
    unittest.main()
