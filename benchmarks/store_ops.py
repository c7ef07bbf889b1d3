"""CPU per store operation: the store as it is (one in-process DuckDB instance that attaches the file for
each operation) against the baseline that opens the file with `duckdb.connect` for each operation and
closes it after (what the store did before). Both run the same operations on their own store file,
warmed up, alternating for --rounds rounds. Prints one JSON line: per-operation CPU medians and the ratio.

usage: PYTHONPATH=. python benchmarks/store_ops.py [--rounds 5] [--ops 40]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import duckdb  # noqa: E402

from evaluators.store.records import RunRow  # noqa: E402
from evaluators.store.store import Store, utcnow  # noqa: E402


class ConnectPerOperation(Store):
    """The baseline: a fresh DuckDB instance for every operation."""

    @contextlib.contextmanager
    def _open(self, read_only, timeout):
        with self._creation_guard():
            con = duckdb.connect(str(self.path), read_only=read_only)
        try:
            con.execute("SET enable_progress_bar = false")
            yield con
        finally:
            con.close()


def operations(store: Store, round_no: int, n: int) -> None:
    """What an evaluator does between items: record a batch, look up what is done, read a run back."""
    run_id = f"r{round_no}"
    store.insert_run(RunRow(run_id=run_id, evaluator="fake", benchmark="b", model_name="m", status="running",
                            started_at=utcnow()))
    for i in range(n // 3):
        store.upsert("attempts", [{"run_id": run_id, "item_id": f"{i}-{j}", "attempt": 1, "status": "ok"}
                                  for j in range(8)])
        store.done_items(run_id)
        store.run(run_id)


def cpu_per_op(store: Store, round_no: int, n: int) -> float:
    started = time.process_time()
    operations(store, round_no, n)
    return (time.process_time() - started) / (3 * (n // 3) + 1) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ops", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        stores = {"attach": Store(Path(tmp) / "attach"), "connect": ConnectPerOperation(Path(tmp) / "connect")}
        for store in stores.values():
            store.ensure_benchmark("b", "fake")
            operations(store, 0, 6)  # warm-up: schema created, code paths imported
        times: dict[str, list[float]] = {name: [] for name in stores}
        for round_no in range(1, args.rounds + 1):
            for name, store in stores.items():
                times[name].append(cpu_per_op(store, round_no, args.ops))
        same = all(stores["attach"].query(sql).rows == stores["connect"].query(sql).rows for sql in
                   ("SELECT run_id, item_id FROM attempts ORDER BY ALL", "SELECT run_id, status FROM runs ORDER BY ALL"))
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(json.dumps({"rounds": args.rounds, "ops_per_round": 3 * (args.ops // 3) + 1,
                      "cpu_ms_per_op_attach": round(medians["attach"], 2),
                      "cpu_ms_per_op_connect": round(medians["connect"], 2),
                      "connect_over_attach": round(medians["connect"] / medians["attach"], 2),
                      "same_rows": same}))


if __name__ == "__main__":
    main()
