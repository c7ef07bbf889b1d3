"""The stuck monitor, interruption and failure handling with Pi in real containers (scripted model).

- every stuck condition: a repeated call, a 2-call cycle, a repeated message, idle, runaway
  generation, the tool-call cap, and the wall clock;
- SIGTERM mid-attempt (clean stop, nothing half-recorded), SIGKILL (stale containers removed by the
  next run), then the same command resumes the same run without duplicate rows;
- a server outage is an infrastructure error, not a failure, and is retried by the next run;
- a context overflow is survived by Pi's compaction.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluators.store.records import AttemptRow, RunRow
from evaluators.store.store import Store
from tests.conftest import REPO, cli_env, run_cli
from tests.helpers.agent import call, containers_of, needs_pi, needs_podman, say, write_task
from tests.mock_openai import MockOpenAI, ModelSpec, Reply, Rule

pytestmark = [pytest.mark.slow, pytest.mark.podman, needs_podman, needs_pi]

DONE = call("write", path="done.txt", content="done\n")


def _tool_results(body: dict) -> int:
    return sum(1 for m in body.get("messages", []) if m.get("role") == "tool")


def _mock(*rules: Rule, slots: int = 2) -> MockOpenAI:
    return MockOpenAI(models=[ModelSpec(id="mock-coder", n_ctx=65536, slots=slots)], rules=list(rules))


def _attempts(results: Path) -> tuple[RunRow, dict[str, AttemptRow]]:
    store = Store(results)
    run = store.runs(benchmark="banana-benchmark")[-1]
    return run, {a.item_id: a for a in store.attempts(run.run_id)}


def test_every_stuck_condition(tmp_path: Path):
    tasks = tmp_path / "tasks"
    scenarios = {
        "loop": ({}, Rule(match="SCENARIO-LOOP", reply=call("bash", command="ls"))),
        "cycle": ({}, Rule(match="SCENARIO-CYCLE", reply=lambda body: call(
            "bash", command=("ls", "pwd")[_tool_results(body) % 2]))),
        "message": ({}, Rule(match="SCENARIO-MESSAGE", reply=lambda body: Reply(
            content="Let me check once more.",
            tool_calls=[{"name": "bash", "arguments": {"command": f"echo {_tool_results(body)}"}}]))),
        "idle": ({"idle_s": 3}, Rule(match="SCENARIO-IDLE", reply=say("Thinking", stall_s=60))),
        "runaway": ({"max_chunks": 200}, Rule(match="SCENARIO-RUNAWAY", reply=say("x", repeat=-1))),
        "toolcap": ({"max_tool_calls": 5}, Rule(match="SCENARIO-TOOLCAP", reply=lambda body: call(
            "bash", command=f"echo {_tool_results(body)}"))),
        "clock": ({"timeout_s": 4}, Rule(match="SCENARIO-CLOCK", reply=lambda body: call(
            "bash", command=f"sleep 1; echo {_tool_results(body)}"))),
    }
    for name, (limits, _) in scenarios.items():
        write_task(tasks, f"smoke/{name}", prompt=f"SCENARIO-{name.upper()}: write done.txt", agent=limits)
    results = tmp_path / "results"
    # The run's limits come from a config file, which a task's [agent] section overrides (flags would override it).
    config = tmp_path / "bench.toml"
    config.write_text("[limits]\nidle_s = 20\ntimeout_s = 60\n")
    with _mock(*(rule for _, rule in scenarios.values())) as mock:
        proc = run_cli("agent", "run", "--name", "stuck-model", "--base-url", mock.base_url, "--results",
                       str(results), "--tasks-dir", str(tasks), "--config", str(config))
    assert proc.returncode == 0, proc.stderr
    assert mock.max_in_flight <= 2
    run, attempts = _attempts(results)
    # two attempts at once (the server's two slots), never more
    spans = [(a.started_at.timestamp(), a.started_at.timestamp() + a.wall_s) for a in attempts.values()]
    assert max(sum(s <= start < e for s, e in spans) for start, _ in spans) == 2, spans
    got = {task.split("/")[1]: (a.status, a.extra["stuck_reason"]) for task, a in attempts.items()}
    assert got == {
        "loop": ("stuck", "repeated_call"), "cycle": ("stuck", "cycle"), "message": ("stuck", "repeated_message"),
        "idle": ("stuck", "idle"), "runaway": ("stuck", "runaway"), "toolcap": ("stuck", "tool_calls"),
        "clock": ("timeout", "timeout"),
    }
    assert attempts["smoke/idle"].extra["monitor_detail"].endswith(" for 3 s")       # the task's limits, not the run's
    assert attempts["smoke/clock"].extra["monitor_detail"] == "wall clock passed 4 s"
    for a in attempts.values():
        assert a.score == 0.0 and a.correct is False
        assert not (results / a.extra["artifacts"] / "verify.log").exists()   # verification skipped
    assert containers_of("stuck-model") == []
    overall = {s.metric: s.value for s in Store(results).scores(run.run_id) if s.scope == "overall"}
    assert overall["score"] == 0.0 and overall["n_stuck"] == 6 and overall["n_timeout"] == 1


def _run_cmd(base_url: str, results: Path, tasks: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "evaluators", "agent", "run", "--name", "resumer", "--base-url", base_url,
            "--results", str(results), "--tasks-dir", str(tasks), "--idle-s", "60", *extra]


def _wait_for_requests(mock: MockOpenAI, n: int, proc: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while len(mock.generation_requests()) < n:
        assert proc.poll() is None, f"the runner exited early ({proc.returncode})"
        assert time.monotonic() < deadline, "the agent never called the model"
        time.sleep(0.1)


def mounts_under(path: Path) -> list[str]:
    """Mount points below `path` (the attempts' size-limited file systems)."""
    prefix = str(path.resolve()) + "/"
    return [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()
            if line.split()[1].startswith(prefix)]


def test_sigterm_sigkill_then_resume(tmp_path: Path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "smoke/first", prompt="TASK-FIRST: write done.txt")
    write_task(tasks, "smoke/second", prompt="TASK-SECOND: write done.txt")
    results = tmp_path / "results"
    # First firing of each task stalls (the attempt is in flight when the signal arrives); later ones finish.
    stall = Reply(content="", delay_s=120)
    rules = [Rule(match="TASK-FIRST", reply=[DONE, say("done")]),
             Rule(match="TASK-SECOND", reply=stall, times=2),
             Rule(match="TASK-SECOND", reply=[DONE, say("done")])]
    with _mock(*rules, slots=1) as mock:
        proc = subprocess.Popen(_run_cmd(mock.base_url, results, tasks), env=cli_env(), cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _wait_for_requests(mock, 3, proc)      # first task: 2 requests; second: stalled in its first request
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 128 + signal.SIGTERM, err
        assert containers_of("resumer") == [] and mounts_under(results) == []
        run, attempts = _attempts(results)
        assert run.status == "interrupted" and set(attempts) == {"smoke/first"}

        log = open(tmp_path / "killed.log", "w")
        killed = subprocess.Popen(_run_cmd(mock.base_url, results, tasks), env=cli_env(), cwd=REPO,
                                  stdout=log, stderr=log)
        _wait_for_requests(mock, 4, killed)
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        assert mounts_under(results)               # the in-flight attempt's workspace is still mounted
        # A crash can leave a container running (e.g. podman itself killed): plant one labelled with a
        # dead runner pid; the next run must remove it.
        subprocess.run(["podman", "run", "-d", "--runtime", "runc", "--ulimit", "nofile=1024:1024",
                        "--ulimit", "nproc=1024:1024", "--network", "none", "--label", "bananabench.agent=1",
                        "--label", "bananabench.owner=resumer", "--label", f"bananabench.pid={killed.pid}",
                        "-v", "/usr:/usr:ro", "bananabench-agent:offline", "sleep", "600"], check=True,
                       capture_output=True)
        assert containers_of("resumer")

        done = run_cli(*_run_cmd(mock.base_url, results, tasks)[3:])
    assert done.returncode == 0, done.stderr
    assert "stale container" in done.stderr
    assert containers_of("resumer") == [] and mounts_under(results) == []
    run2, attempts = _attempts(results)
    assert run2.run_id == run.run_id and run2.status == "finished"
    assert {k: a.status for k, a in attempts.items()} == {"smoke/first": "passed", "smoke/second": "passed"}
    n = Store(results).query("SELECT count(*) FROM attempts WHERE run_id = ?", [run.run_id]).rows[0][0]
    assert n == 2
    again = run_cli(*_run_cmd("http://127.0.0.1:9", results, tasks)[3:])   # no server needed? it is: discovery
    assert again.returncode == 3 and "cannot reach" in again.stderr


def test_server_outage_is_an_error_then_retried(tmp_path: Path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "smoke/outage", prompt="TASK-OUTAGE: write done.txt")
    results = tmp_path / "results"
    config = tmp_path / "bench.toml"
    config.write_text("[pi.settings.retry]\nenabled = true\nmaxRetries = 1\nbaseDelayMs = 50\n"
                      "[pi.settings.retry.provider]\nmaxRetries = 0\n")
    with _mock(Rule(match="TASK-OUTAGE", reply=Reply(status=503, error="upstream model crashed"))) as mock:
        first = run_cli(*_run_cmd(mock.base_url, results, tasks, "--config", str(config))[3:])
        assert first.returncode == 3, first.stderr
        assert "run the same command again" in first.stderr
        run, attempts = _attempts(results)
        a = attempts["smoke/outage"]
        assert a.status == "error" and a.score is None and "503" in a.extra["error"]
        assert run.status == "failed"
        scores = Store(results).scores(run.run_id)
        assert not [s for s in scores if s.metric == "score"]       # errors are excluded, not counted as 0
        assert len(mock.generation_requests()) == 2                    # Pi's own retry, as configured
        mock.rules[:] = [Rule(match="TASK-OUTAGE", reply=[DONE, say("done")])]
        second = run_cli(*_run_cmd(mock.base_url, results, tasks, "--config", str(config))[3:])
    assert second.returncode == 0, second.stderr
    run2, attempts = _attempts(results)
    assert run2.run_id == run.run_id and attempts["smoke/outage"].status == "passed"


def test_context_overflow_survived_by_compaction(tmp_path: Path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "smoke/overflow", prompt="TASK-OVERFLOW: write done.txt")
    results = tmp_path / "results"
    overflow = Reply(status=400, error="the request exceeds the available context size, try increasing it")
    summary = Rule(match="context checkpoint summary|PREFIX of a turn", on="all",
                   reply=say("## Goal\nWrite done.txt\n## Progress\nNothing yet."))
    task = Rule(match="TASK-OVERFLOW", on="all", reply=[overflow, DONE, say("done")])
    with _mock(summary, task) as mock:
        proc = run_cli(*_run_cmd(mock.base_url, results, tasks)[3:])
    assert proc.returncode == 0, proc.stderr
    run, attempts = _attempts(results)
    a = attempts["smoke/overflow"]
    assert a.status == "passed", a.extra
    compactions = Store(results).query(
        "SELECT value FROM attempt_metrics WHERE run_id = ? AND metric = 'compactions'", [run.run_id]).rows
    assert compactions == [(1.0,)]
