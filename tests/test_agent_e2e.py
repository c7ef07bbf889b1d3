"""Pi end to end in real podman containers against the scripted stand-in model.

One run covers a passing task, a failing task with partial credit and a manual frontend task with
desktop and mobile screenshots; then grading and backfill on its rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluators.store.store import Store
from tests.conftest import run_cli
from tests.helpers.agent import FIXTURES, call, needs_pi, needs_podman, say
from tests.mock_openai import MockOpenAI, ModelSpec, Rule

pytestmark = [pytest.mark.slow, pytest.mark.podman, needs_podman, needs_pi]

COUNTER = (FIXTURES / "frontend" / "counter" / "solution" / "index.html").read_text()
BUGGY = "def digit_sum(n: int) -> int:\n    return sum(int(d) for d in str(n))\n"


def scripted_mock() -> MockOpenAI:
    return MockOpenAI(models=[ModelSpec(id="mock-coder", n_ctx=65536, slots=2)], rules=[
        Rule(match="hello banana", reply=[call("write", path="hello.txt", content="hello banana\n"),
                                          say("Wrote hello.txt.")]),
        Rule(match="digit_sum", reply=[call("read", path="digits.py"),
                                       call("write", path="digits.py", content=BUGGY),
                                       say("Implemented digit_sum.")]),
        Rule(match="counter app", reply=[call("write", path="index.html", content=COUNTER),
                                         say("The counter is in index.html.")]),
    ])


def test_pass_fail_and_manual_frontend(tmp_path: Path):
    results = tmp_path / "results"
    with scripted_mock() as mock:
        proc = run_cli("agent", "run", "--name", "coder", "--base-url", mock.base_url, "--results", str(results),
                       "--tasks-dir", str(FIXTURES), "--timeout-s", "120", "--idle-s", "60")
    assert proc.returncode == 0, proc.stderr
    assert "context 65536 tokens" in proc.stderr and "mock-coder" in proc.stderr
    assert ", bundled)" in proc.stderr                              # make pi's bundle of Pi is what ran
    store = Store(results)
    run = store.runs(benchmark="banana-benchmark")[0]
    assert run.status == "finished" and run.evaluator == "agent"
    attempts = {a.item_id: a for a in store.attempts(run.run_id)}
    assert set(attempts) == {"smoke/hello", "coding/python/digit-sum", "frontend/counter"}

    hello = attempts["smoke/hello"]
    assert (hello.status, hello.score, hello.correct) == ("passed", 1.0, True)
    digits = attempts["coding/python/digit-sum"]
    assert digits.status == "failed" and digits.score == pytest.approx(0.8)
    counter = attempts["frontend/counter"]
    assert counter.status == "manual" and counter.score is None

    for row in attempts.values():
        extra = row.extra
        assert len(extra["task_hash"]) == 64 and extra["server_fingerprint"] == run.extra["server_fingerprint"]
        attempt_dir = results / extra["artifacts"]
        for name in ("events.jsonl", "changes.diff", "final_message.md", "verify.log", "verify.json", "attempt.json"):
            assert (attempt_dir / name).is_file(), name
        events = (attempt_dir / "events.jsonl").read_text()
        assert '"message_update"' not in events
    assert digits.extra["tool_calls_by_name"] == {"read": 1, "write": 1}
    assert "digits.py" in (results / digits.extra["artifacts"] / "changes.diff").read_text()
    verdict = json.loads((results / digits.extra["artifacts"] / "verify.json").read_text())
    assert verdict["not_passed"] == ["test_digits.DigitSum.test_negative"] and verdict["missing"] == []
    assert digits.extra["reason"].startswith("1 of 5 expected tests did not pass")
    assert hello.extra["verdict"]["reason"] == "all 1 expected test passed"
    # hidden tests never reach the kept workspace of a manual task
    shots = counter.extra["screenshots"]
    for view in ("desktop", "mobile"):
        assert (results / shots[view]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (results / counter.extra["checklist"]).is_file()
    kept = results / counter.extra["workspace"]
    assert (kept / "index.html").read_text() == COUNTER and not (kept / "README.md").exists()
    assert not (results / hello.extra["artifacts"] / "workspace").exists()

    metrics = dict(store.query("SELECT metric, value FROM attempt_metrics WHERE run_id = ? AND item_id = ?",
                               [run.run_id, "coding/python/digit-sum"]).rows)
    assert metrics["tool_calls"] == 2 and metrics["turns"] == 3 and metrics["llm_requests"] == 3
    assert metrics["tokens_output"] > 0 and metrics["context_peak"] > 0 and metrics["compactions"] == 0
    assert 0 < metrics["context_peak_share"] < 1 and metrics["verify_s"] > 0
    assert metrics["prefill_tps"] > 0 and metrics["decode_tps"] > 0 and metrics["ttft_s"] >= 0
    scores = {(s.scope, s.key, s.metric): s for s in store.scores(run.run_id)}
    assert scores[("overall", "", "score")].value == pytest.approx(0.9)   # mean of 1.0 and 0.8
    assert scores[("overall", "", "score")].n == 2
    assert scores[("category", "smoke", "score")].value == 1.0
    assert scores[("overall", "", "n_manual")].value == 1

    # a human grade for the manual task becomes overall/manual_grade
    bad = run_cli("agent", "grade", "coder", "smoke/hello", "4", "--results", str(results))
    assert bad.returncode == 2 and "only manual tasks" in bad.stderr
    graded = run_cli("agent", "grade", "coder", "frontend/counter", "4", "--results", str(results))
    assert graded.returncode == 0, graded.stderr
    scores = {(s.scope, s.key, s.metric): s for s in store.scores(run.run_id)}
    assert scores[("overall", "", "manual_grade")].value == 4.0

    # backfill recomputes the event metrics from events.jsonl
    with store.write() as con:
        con.execute("DELETE FROM attempt_metrics WHERE metric = 'tokens_output'")
    back = run_cli("agent", "backfill", "--results", str(results), "--name", "coder")
    assert back.returncode == 0, back.stderr
    again = dict(store.query("SELECT metric, value FROM attempt_metrics WHERE run_id = ? AND item_id = ?",
                             [run.run_id, "coding/python/digit-sum"]).rows)
    assert again["tokens_output"] == metrics["tokens_output"]
    summary = json.loads((results / digits.extra["artifacts"] / "attempt.json").read_text())
    assert summary["status"] == "failed"

    # the same command again: every attempt already finished with this configuration, nothing runs
    with scripted_mock() as mock:
        again = run_cli("agent", "run", "--name", "coder", "--base-url", mock.base_url, "--results", str(results),
                        "--tasks-dir", str(FIXTURES), "--timeout-s", "120", "--idle-s", "60")
        asked = mock.generation_requests()
    assert again.returncode == 0 and f"already done in run {run.run_id}" in again.stderr, again.stderr
    assert asked == [] and [r.run_id for r in store.runs(benchmark="banana-benchmark")] == [run.run_id]
