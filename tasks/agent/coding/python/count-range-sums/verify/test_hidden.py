"""Hidden tests: exact answers on edge cases, random cases against brute force, big cases against a
merge-sort reference, with a time limit per big call."""

import random
import signal
import time
import unittest

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


def timed(fn, *args, limit):
    def on_alarm(signum, frame):
        raise Timeout()
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(int(limit * 3) + 1)
    try:
        t0 = time.perf_counter()
        out = fn(*args)
        return out, time.perf_counter() - t0
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


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
            want = reference(nums, lo, hi)
            got, elapsed = timed(count_range_sums, nums, lo, hi, limit=4.0)
            self.assertEqual(got, want, f"n={n}")
            self.assertLess(elapsed, 4.0, f"n={n} took {elapsed:.1f}s")

    def test_large_all_positive_and_adversarial(self):
        nums = list(range(1, 80_001))
        lo, hi = 10 ** 6, 10 ** 8
        want = reference(nums, lo, hi)
        got, elapsed = timed(count_range_sums, nums, lo, hi, limit=4.0)
        self.assertEqual(got, want)
        self.assertLess(elapsed, 4.0)


if __name__ == "__main__":
    unittest.main()
