"""Held attempts: a pass whose change trips the tamper checks counts as not passed until `agent review` decides,
in the scores and on the pages, and the decision is stored and published."""

from __future__ import annotations

from pathlib import Path

from evaluators.agent import PRESENTATION
from evaluators.agent.attempts import metrics
from evaluators.runs.runs import RunSpec, start_run
from evaluators.store.records import AttemptRow
from evaluators.store.store import Store
from tests.conftest import run_cli

FLAG = "calc.py: exit hook or immediate exit: os._exit(0)"


def _store(root: Path) -> str:
    """An agent run with a pass, a held pass, a held partial credit and a failure (one task each)."""
    store = Store(root)
    spec = RunSpec(evaluator="agent", benchmark="banana-benchmark", model_name="m", backend="server", n_items=4)
    with start_run(store, spec, policy="public", benchmark_title="banana-benchmark", headline_metric="score",
                   presentation=PRESENTATION) as run:
        rows = [("t/pass", "passed", 1.0, {}),
                ("t/held", "held", 0.0, {"held": {"status": "passed", "score": 1.0}}),
                ("t/partial", "held", 0.0, {"held": {"status": "failed", "score": 0.5}}),
                ("t/fail", "failed", 0.0, {})]
        for task, status, score, extra in rows:
            if status == "held":
                extra |= {"tamper_flags": [FLAG], "n_tamper_flags": 1,
                          "changed_paths": [{"path": "0 notes.txt", "change": "added", "binary": False}],
                          "n_changed_paths": 1}
            run.record(AttemptRow(item_id=task, attempt=1, status=status, score=score,
                                  correct=status == "passed", category="t", extra=extra))
        run.flush()
        run.finish(metrics.compute_scores(store, run.run_id))
        return run.run_id


def _overall(store: Store, run_id: str) -> dict[str, float]:
    return {r.metric: r.value for r in store.scores(run_id) if r.scope == "overall"}


def test_held_counts_as_not_passed_until_a_review_decides(tmp_path: Path):
    results = tmp_path / "results"
    run_id = _store(results)
    store = Store(results)
    before = _overall(store, run_id)
    assert before["score"] == 0.25 and before["pass_rate"] == 0.25 and before["n_held"] == 2
    done = run_cli("agent", "review", run_id, "t/held", "--accept", "--note", "reads only its own data",
                   "--results", str(results))
    assert done.returncode == 0 and "now passed (score 1)" in done.stdout, done.stderr
    done = run_cli("agent", "review", run_id, "t/partial", "--reject", "--results", str(results))
    assert done.returncode == 0 and "now failed" in done.stdout, done.stderr
    after = _overall(store, run_id)
    assert after["score"] == 0.5 and after["pass_rate"] == 0.5 and after["n_held"] == 0
    reviews = store.query("SELECT item_id, decision, note FROM reviews ORDER BY item_id").rows
    assert reviews == [("t/held", "accept", "reads only its own data"), ("t/partial", "reject", None)]
    # A decision can be changed; the attempt row follows it.
    assert run_cli("agent", "review", run_id, "t/held", "--reject", "--results", str(results)).returncode == 0
    assert _overall(store, run_id)["score"] == 0.25


def test_review_bad_input_is_refused_with_exit_2(tmp_path: Path):
    results = tmp_path / "results"
    run_id = _store(results)
    cases = [(["nope", "t/held", "--accept"], "no run 'nope'"),
             ([run_id, "t/none", "--accept"], "no attempt of task 't/none'"),
             ([run_id, "t/held", "--attempt", "2", "--accept"], "no attempt 2 of t/held (attempts: 1)"),
             ([run_id, "t/pass", "--accept"], "is 'passed', not held"),
             ([run_id, "t/held", "--accept", "--reject"], "not allowed with argument"),
             ([run_id, "t/held"], "one of the arguments --accept --reject is required")]
    for args, message in cases:
        done = run_cli("agent", "review", *args, "--results", str(results))
        assert done.returncode == 2 and message in done.stderr.strip().splitlines()[-1], (args, done.stderr)
    assert Store(results).query("SELECT count(*) FROM reviews").rows == [(0,)]


def test_held_attempts_are_listed_apart_on_the_pages(tmp_path: Path):
    results = tmp_path / "results"
    run_id = _store(results)
    assert run_cli("agent", "review", run_id, "t/partial", "--reject", "--note", "forged record",
                   "--results", str(results)).returncode == 0
    site = tmp_path / "site"
    done = run_cli("publish", "--results", str(results), "--out", str(site))
    assert done.returncode == 0, done.stderr
    pages = [site / "index.html", *(site / "models").rglob("*.html"), *(site / "runs").rglob("*.html")]
    listing = [p for p in pages if 'id="held"' in p.read_text()]
    assert {p.parent.name if p.name == "index.html" and p.parent != site else p.name for p in listing}
    for page in listing:
        text = page.read_text()
        assert "t/held" in text and "t/partial" in text and FLAG in text and "forged record" in text
        assert "t/pass</code>" not in text.split('id="held"')[1].split("</ul>\n</ul>")[0]
    assert len(listing) >= 3, [str(p) for p in listing]     # leaderboard, model page, run page
    attempt = [p for p in site.rglob("*.html") if "<code>t/held</code> <small>1 attempt</small>" in p.read_text()]
    assert len(attempt) == 1
    text = attempt[0].read_text()
    assert "Changed paths (1)" in text and "0 notes.txt" in text and "it is <strong>held</strong>" in text
