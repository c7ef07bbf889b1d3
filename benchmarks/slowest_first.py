"""What the slowest-first order (tests/helpers/slowest_first.py) does to a suite's wall time on xdist workers.

A synthetic suite shaped like this one: many short tests, and one long test collected last (the podman and
real-model files sort late). Its tests sleep, so the figure does not move with the machine's load. It runs in
collection order (no record: the baseline) and slowest first (a record of its durations), both warmed up, the
two alternating for --rounds rounds. Prints one JSON line: the median wall times and their ratio.

usage: python benchmarks/slowest_first.py [--rounds 5] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHORT, SHORT_S, LONG_S = 24, 0.25, 5.0


def write_suite(root: Path) -> dict[str, float]:
    """The suite under root/suite, and the record a past run of it would have left."""
    (root / "suite").mkdir()
    (root / "tests").mkdir()
    (root / "pytest.ini").touch()
    record = {}
    for i in range(SHORT):
        (root / "suite" / f"test_a{i:02}.py").write_text(f"import time\n\n\ndef test_short():\n    time.sleep({SHORT_S})\n")
        record[f"suite/test_a{i:02}.py::test_short"] = SHORT_S
    (root / "suite" / "test_z.py").write_text(f"import time\n\n\ndef test_long():\n    time.sleep({LONG_S})\n")
    record["suite/test_z.py::test_long"] = LONG_S
    return record


def wall(root: Path, workers: int, record: dict[str, float] | None) -> float:
    path = root / "tests" / "durations.json"
    path.unlink(missing_ok=True)
    if record is not None:
        path.write_text(json.dumps(record))
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.helpers.slowest_first", "-p", "no:cacheprovider",
                    "-c", str(root / "pytest.ini"), "--rootdir", str(root), "-q", "-n", str(workers), "suite"],
                   cwd=root, check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bb-slowest-first-") as tmp:
        root = Path(tmp)
        record = write_suite(root)
        wall(root, args.workers, None), wall(root, args.workers, record)         # warm-up
        baseline, ordered = [], []
        for _ in range(args.rounds):
            baseline.append(wall(root, args.workers, None))
            ordered.append(wall(root, args.workers, record))
    base, fast = statistics.median(baseline), statistics.median(ordered)
    print(json.dumps({"workers": args.workers, "suite": {"short_tests": SHORT, "short_s": SHORT_S, "long_s": LONG_S},
                      "collection_order_s": round(base, 2), "slowest_first_s": round(fast, 2),
                      "ratio": round(fast / base, 3), "rounds": args.rounds}))


if __name__ == "__main__":
    main()
