"""`bananabench demo` end to end: what `make demo` runs, on a fresh results folder."""

from __future__ import annotations

import pytest

from evaluators.core.store import Store
from tests.conftest import run_cli


@pytest.mark.slow
@pytest.mark.podman
@pytest.mark.browser
def test_demo_runs_every_evaluator_and_publishes_the_site(tmp_path):
    results, site = tmp_path / "results", tmp_path / "site"
    r = run_cli("demo", "--results", str(results), "--work", str(tmp_path / "work"), "--out", str(site),
                timeout=1800)
    assert r.returncode == 0, r.stderr[-3000:]
    store = Store(results)
    finished = {row["evaluator"] for row in store.runs(status="finished")}
    assert {"loglik", "chat", "modes"} <= finished
    assert {row["evaluator"] for row in store.runs()} >= {"loglik", "chat", "modes", "agent"}
    tiny = {row["evaluator"] for row in store.runs(model="tiny-llama")}
    assert tiny == {"loglik", "chat", "modes", "agent"}  # one leaderboard row, whatever served the model
    index = (site / "index.html").read_text()
    assert "tiny-llama" in index
    assert str(site) in r.stdout
