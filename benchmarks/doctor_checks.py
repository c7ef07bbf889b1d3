"""`bananabench doctor`'s wall time: its slow checks at once, as it runs them, against the same checks one
after another (the baseline: the same code with a pool of one thread). Both warmed up (the sandbox image
imported, the tiny model built), alternating for --rounds rounds. Prints one JSON line: the medians and the
ratio, and whether every part was ok in every round.

usage: PYTHONPATH=. python benchmarks/doctor_checks.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evaluators import doctor  # noqa: E402


def one_thread(**kwargs) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(**{**kwargs, "max_workers": 1})


def timed(cache: Path, serial: bool) -> tuple[float, bool]:
    doctor.ThreadPoolExecutor = one_thread if serial else ThreadPoolExecutor
    started = time.perf_counter()
    checks = doctor.run_checks(cache)
    return time.perf_counter() - started, all(c.ok for c in checks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=REPO / ".cache")
    args = parser.parse_args()
    timed(args.cache, serial=True), timed(args.cache, serial=False)          # warm-up
    serial, together, ok = [], [], True
    for _ in range(args.rounds):
        for runs, is_serial in ((serial, True), (together, False)):
            seconds, all_ok = timed(args.cache, is_serial)
            runs.append(seconds)
            ok = ok and all_ok
    base, fast = statistics.median(serial), statistics.median(together)
    print(json.dumps({"one_after_another_s": round(base, 1), "at_once_s": round(fast, 1),
                      "ratio": round(fast / base, 3), "rounds": args.rounds, "all_ok": ok}))


if __name__ == "__main__":
    main()
