"""Incremental publish on a real store: unchanged inputs write nothing, a new run rewrites only what shows it,
a hidden run's pages go away, and `--full` rebuilds everything."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluators.publish.builder import MARKER
from evaluators.store.store import Store
from tests.conftest import run_cli
from tests.helpers.publish_fixture import chat

# Each test publishes the whole store's site four or five times: seconds, so make test runs them, make check not.
pytestmark = pytest.mark.slow


def _stamps(site: Path) -> dict[str, int]:
    return {p.relative_to(site).as_posix(): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}


@pytest.fixture
def results(publish_store, tmp_path) -> Path:
    root = tmp_path / "results"
    shutil.copytree(publish_store[0], root)
    return root


def _publish(results: Path, site: Path, *extra: str) -> str:
    proc = run_cli("publish", "--results", str(results), "--out", str(site), "--baseline", "beta-3b", *extra)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_new_run_rewrites_only_its_pages_and_a_hidden_one_goes_away(results, tmp_path):
    site = tmp_path / "site"
    _publish(results, site)
    first = _stamps(site)
    assert json.loads((site / MARKER).read_text())["keys"]
    out = _publish(results, site)
    assert out.startswith("published 0 pages") and "0 removed" in out
    assert {p: t for p, t in _stamps(site).items() if p != MARKER and not p.startswith("assets/")
            and p not in ("data.html", ".nojekyll") and not p.startswith("data/")} == \
        {p: t for p, t in first.items() if p != MARKER and not p.startswith("assets/")
         and p not in ("data.html", ".nojekyll") and not p.startswith("data/")}

    run_id = chat(Store(results), "gamma-1b", "arc", seed=7)
    before = _stamps(site)
    _publish(results, site)
    after = _stamps(site)
    changed = {p for p in after if before.get(p) != after[p]}
    slug = run_id  # a safe run id is its own slug
    assert {f"runs/{slug}.html", f"runs/{slug}.items.0.js", "models/gamma-1b.html", "index.html",
            "benchmarks/arc.html", "data/parquet/attempts/gamma-1b.parquet"} <= changed
    # The baseline's page links the new diff page, and its benchmark's item set has a new member: they change
    # too; no other model's or run's page, and no other benchmark's items do.
    others = {p for p in before if p.startswith(("runs/", "attempts/", "models/", "items/")) and "gamma" not in p
              and p != "models/beta-3b.html" and not p.startswith("items/arc-")}
    assert "models/beta-3b.html" in changed
    assert not others & changed, sorted(others & changed)[:5]
    assert not {p for p in changed if p.startswith("data/") and "/attempts/" in p and "gamma" not in p}

    Store(results).set_hidden(run_id, True)
    out = _publish(results, site)
    assert not (site / "runs" / f"{slug}.html").exists() and not (site / "models" / "gamma-1b.html").exists()
    assert not list(site.rglob("*gamma*")) and " removed" in out

    full = _publish(results, site, "--full")
    assert "unchanged" not in full and int(full.split()[1]) > 50


def test_a_human_grade_rewrites_its_models_pages_only(results, tmp_path):
    """Pages are keyed on the runs' fingerprints, which take in the model's grades: a new grade shows."""
    site = tmp_path / "site"
    _publish(results, site)
    store = Store(results)
    run = store.runs(evaluator="agent")[0]
    model, run_id = run.model_name, run.run_id
    before = _stamps(site)
    store.add_grade(model, "coding/two-sum", 1, 4, note="tidy")
    _publish(results, site)
    changed = {p for p, t in _stamps(site).items() if before.get(p) != t}
    task = next(p for p in changed if p.startswith(f"attempts/{run_id}/coding-two-sum"))
    assert "4/5" in (site / task).read_text() and f"runs/{run_id}.html" in changed
    other_models = {r.run_id for r in store.runs() if r.model_name != model}
    assert not [p for p in changed for r in other_models if r in p]
