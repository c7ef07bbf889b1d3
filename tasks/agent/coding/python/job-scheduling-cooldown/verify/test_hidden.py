"""Hidden tests: the returned schedule must be feasible and reach the optimum; small random cases
against exhaustive search, big ones against an independent reference, with a time limit."""

import random
import signal
import time
import unittest
from functools import partial
from itertools import combinations

from schedule import best_schedule


def feasible(jobs, chosen, cooldown):
    picked = sorted((jobs[i] for i in chosen), key=lambda j: j[0])
    for a, b in zip(picked, picked[1:]):
        if b[0] < a[1] + cooldown:
            return False
    return len(set(chosen)) == len(chosen)


def exhaustive(jobs, cooldown):
    best = 0
    for r in range(1, len(jobs) + 1):
        for combo in combinations(range(len(jobs)), r):
            if feasible(jobs, combo, cooldown):
                best = max(best, sum(jobs[i][2] for i in combo))
    return best


def reference(jobs, cooldown):
    # DP over distinct start times from right to left: f(t) = best profit using jobs starting >= t.
    starts = sorted({s for s, _, _ in jobs})
    by_start = {}
    for s, e, p in jobs:
        by_start.setdefault(s, []).append((e, p))
    import bisect
    f = [0] * (len(starts) + 1)
    for idx in range(len(starts) - 1, -1, -1):
        value = f[idx + 1]
        for e, p in by_start[starts[idx]]:
            nxt = bisect.bisect_left(starts, e + cooldown)
            value = max(value, p + f[nxt])
        f[idx] = value
    return f[0]


class Timeout(Exception):
    pass


K = 10  # an O(n log n) solution runs within ~2x of the reference DP; O(n^2) is 1000s of times slower
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
    def check(self, jobs, cooldown, want):
        total, chosen = best_schedule(list(jobs), cooldown)
        self.assertEqual(total, want, f"jobs={jobs} cooldown={cooldown}")
        self.assertTrue(all(0 <= i < len(jobs) for i in chosen), "index out of range")
        self.assertTrue(feasible(jobs, chosen, cooldown), f"infeasible schedule {chosen}")
        self.assertEqual(sum(jobs[i][2] for i in chosen), total, "chosen jobs don't add up to the total")
        self.assertEqual(chosen, sorted(chosen, key=lambda i: jobs[i][0]), "chosen not sorted by start")

    def test_examples(self):
        self.check([], 0, 0)
        self.check([(1, 3, 50), (3, 5, 20)], 0, 70)
        self.check([(1, 3, 50), (3, 5, 20)], 1, 50)
        self.check([(1, 3, 50), (4, 5, 20)], 1, 70)
        self.check([(1, 2, -5), (3, 4, 0)], 0, 0)
        self.check([(1, 10, 100), (1, 4, 60), (5, 10, 60)], 1, 120)
        self.check([(1, 10, 100), (1, 4, 60), (5, 10, 60)], 2, 100)
        self.check([(0, 5, 7)] * 3, 0, 7)

    def test_random_small_exhaustive(self):
        rng = random.Random(3)
        for _ in range(700):
            n = rng.randint(0, 9)
            jobs = []
            for _ in range(n):
                s = rng.randint(0, 20)
                jobs.append((s, s + rng.randint(1, 8), rng.randint(-5, 30)))
            cooldown = rng.choice([0, 0, 1, 2, 5])
            with self.subTest(jobs=jobs, cooldown=cooldown):
                self.check(jobs, cooldown, exhaustive(jobs, cooldown))

    def test_random_medium_reference(self):
        rng = random.Random(4)
        for _ in range(200):
            n = rng.randint(10, 80)
            jobs = []
            for _ in range(n):
                s = rng.randint(0, 200)
                jobs.append((s, s + rng.randint(1, 40), rng.randint(-20, 100)))
            cooldown = rng.randint(0, 15)
            self.check(jobs, cooldown, reference(jobs, cooldown))

    def test_large(self):
        rng = random.Random(5)
        for n, horizon, length, cooldown in ((200_000, 10 ** 9, 10 ** 5, 7), (200_000, 10 ** 6, 50, 0),
                                             (100_000, 10 ** 5, 10 ** 4, 1000)):
            jobs = []
            for _ in range(n):
                s = rng.randint(0, horizon)
                jobs.append((s, s + rng.randint(1, length), rng.randint(-1000, 10 ** 6)))
            (total, chosen), want = within_k_of_baseline(self, K, partial(reference, jobs, cooldown),
                                                         best_schedule, jobs, cooldown)
            self.assertEqual(total, want)
            self.assertTrue(feasible(jobs, chosen, cooldown))
            self.assertEqual(sum(jobs[i][2] for i in chosen), total)


if __name__ == "__main__":
    unittest.main()
