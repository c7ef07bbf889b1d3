"""Two machines, two stores, one leaderboard: `bananabench store merge` of real runs, twice, no duplicates."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluators.store.store import Store
from tests.conftest import REPO, run_cli

pytestmark = pytest.mark.slow
SAMPLES = REPO / "tasks" / "samples"
TABLES = ("runs", "attempts", "choices", "scores", "benchmarks", "models")


def counts(store: Store) -> dict[str, int]:
    return {t: store.query(f"SELECT count(*) FROM {t}").rows[0][0] for t in TABLES}


def test_two_machines_stores_merge_twice_without_duplicates(tiny_model, tmp_path):
    pytest.importorskip("torch")
    from evaluators import api
    from evaluators.loglik.options import LoglikOptions

    laptop, gpu_box, site_store = tmp_path / "laptop", tmp_path / "gpu-box", tmp_path / "merged"

    def score(bench: str, data: str, name: str, results: Path) -> None:
        api.run_loglik(LoglikOptions(bench=bench, data=str(SAMPLES / data), name=name, results=str(results),
                                     model=tiny_model["path"], device="cpu", threads=1))

    # Machine A: model-a on Base Bench (the shared benchmark) and the base-evals sample splits.
    score("base-bench", "base-bench", "model-a", laptop)
    score("base-evals", "base-evals", "model-a", laptop)
    # Machine B: model-b on Base Bench only.
    score("base-bench", "base-bench", "model-b", gpu_box)
    a, b = Store(laptop), Store(gpu_box)
    before_a, before_b = counts(a), counts(b)

    for _ in range(2):
        for source in (laptop, gpu_box):
            proc = run_cli("store", "merge", str(source), "--results", str(site_store))
            assert proc.returncode == 0, proc.stderr
    merged = Store(site_store)
    got = counts(merged)
    for table in ("runs", "attempts", "choices", "scores"):
        assert got[table] == before_a[table] + before_b[table], table
    assert got["benchmarks"] == 2 and got["models"] == 2  # base-bench once, base-evals; model-a, model-b
    assert merged.query("SELECT count(*) FROM (SELECT run_id, item_id, attempt FROM attempts "
                        "GROUP BY ALL HAVING count(*) > 1)").rows == [(0,)]
    shared = {r.model_name: r.run_id for r in merged.current_runs() if r.benchmark == "base-bench"}
    assert set(shared) == {"model-a", "model-b"}
    # The runs' folders came along (the site's pages point into them); the sources are untouched.
    for run_id in shared.values():
        assert (site_store / "runs" / run_id / "report.json").is_file()
    assert counts(a) == before_a and counts(b) == before_b

    # The other direction, as a user would: the GPU box's store into the laptop's, twice.
    first = run_cli("store", "merge", str(gpu_box), "--results", str(laptop))
    second = run_cli("store", "merge", str(gpu_box), "--results", str(laptop))
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert "runs 1" in first.stdout and "runs 0" in second.stdout and "artifact_files 0" in second.stdout
    assert counts(Store(laptop)) == got
    report = run_cli("report", "--results", str(laptop))
    assert report.returncode == 0 and "model-a" in report.stdout and "model-b" in report.stdout
