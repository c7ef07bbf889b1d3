"""Reference runs: Pi replays each task's own solution in the real sandbox; the site says so on every page."""

from __future__ import annotations

import dataclasses

import pytest

from evaluators.agent.attempts import replay
from evaluators.agent.corpus import datasets
from evaluators.core.contract import RunKey
from evaluators.core.errors import BadInput
from evaluators.store.store import Store
from tests.conftest import run_cli
from tests.helpers.agent import FIXTURES, needs_pi, needs_podman

pytestmark = [pytest.mark.slow, pytest.mark.podman, pytest.mark.browser, needs_podman, needs_pi]


def test_reference_run_applies_solutions_and_is_never_shown_as_a_models_work(tmp_path):
    results = tmp_path / "results"
    proc = run_cli("agent", "reference", "--tasks-dir", str(FIXTURES), "--only", "smoke/*", "--only", "frontend/*",
                   "--results", str(results), timeout=900)
    assert proc.returncode == 0, proc.stderr
    store = Store(results)
    (run,) = store.runs()
    assert run.model_name == replay.NAME and run.extra[RunKey.REFERENCE_RUN] == replay.NOTE
    rows = {a.item_id: a for a in store.attempts(run.run_id)}
    assert rows["smoke/hello"].status == "passed"  # the hidden check passes on the replayed solution
    counter = rows["frontend/counter"]
    assert counter.status == "manual" and counter.extra["smoke_passed"] is True
    assert set(counter.extra["screenshots"]) == {"desktop", "mobile"}
    assert counter.extra["tool_calls_by_name"] == {"write": 1}
    diff = (results / counter.extra["artifacts"] / "changes.diff").read_text()
    assert "+++ b/workspace/index.html" in diff

    site = tmp_path / "site"
    assert run_cli("publish", "--results", str(results), "--out", str(site), "--include-apps").returncode == 0
    naming = [p for p in site.rglob("*.html") if replay.NAME in p.read_text()]
    assert {p.relative_to(site).parts[0] for p in naming} >= {"index.html", "gallery.html", "models", "runs",
                                                               "attempts", "benchmarks", "apps"}
    for page in naming:
        assert "reference run" in page.read_text().lower(), page
    app = next((site / "apps").rglob("*.html")).read_text() if (site / "apps").is_dir() else ""
    assert "written by a model" not in app
    assert replay.NAME in (site / "assets" / "summaries.js").read_text()  # the compare picker labels it too


def test_replay_refuses_tasks_it_cannot_replay(tmp_path):
    task = datasets.load_tasks(FIXTURES)[0]
    with pytest.raises(BadInput, match="no solution/ folder"):
        replay.solution_calls(dataclasses.replace(task, dir=tmp_path))
    (tmp_path / "solution").mkdir()
    (tmp_path / "solution" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(BadInput, match="binary file"):
        replay.solution_calls(dataclasses.replace(task, dir=tmp_path))
