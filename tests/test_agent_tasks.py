"""Task format, lint scheme, selection, hashing, limits and the monitor's decisions (no containers)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evaluators.agent.attempts.events import summarize
from evaluators.agent.attempts.monitor import StuckMonitor
from evaluators.agent.corpus import datasets, lint
from evaluators.agent.sandbox.limits import Limits, load_config, merged
from evaluators.core.errors import BadInput
from tests.conftest import run_cli
from tests.helpers.agent import FIXTURES, write_task


def test_fixture_tasks_load_and_follow_the_scheme():
    tasks = datasets.load_tasks(FIXTURES)
    assert [t.id for t in tasks] == ["coding/python/digit-sum", "frontend/counter", "smoke/hello"]
    counter = tasks[1]
    assert counter.manual and counter.screenshot.mobile_width == 390 and counter.checklist is not None
    assert tasks[0].agent == {"timeout_s": 600.0} and tasks[0].verify.timeout_s == 120
    assert lint.lint(tasks) == []


def _task(tmp_path: Path, toml: str, task_id: str = "smoke/t") -> Path:
    directory = write_task(tmp_path, task_id, prompt="do it")
    (directory / "task.toml").write_text(toml)
    return directory


V = '[verify]\nrunner = "script"\ncmd = "true"\ntests = ["t"]\n'


@pytest.mark.parametrize("toml, message", [
    ('title = "x"\ncategory = "smoke"\n' + V + 'network = true\n', None),
    ('title = "x"\ncategory = "smoke"\nnetwork = true\n' + V, "network"),
    ('title = "x"\ncategory = "coding"\n' + V, "category"),
    ('title = "x"\ncategory = "smoke"\n', "verify"),
    ('title = "x"\ncategory = "smoke"\n[verify]\ncmd = "true"\n', "verify.cmd: a verify command alone"),
    ('title = "x"\ncategory = "smoke"\n[verify]\nrunner = "jest"\ntests = ["t"]\n', "verify.runner"),
    ('title = "x"\ncategory = "smoke"\n[verify]\nrunner = "unittest"\n', "verify.tests"),
    ('title = "x"\ncategory = "smoke"\n[verify]\nrunner = "unittest"\ntests = "a"\n', "verify.tests"),
    ('title = "x"\ncategory = "smoke"\n[verify]\nrunner = "unittest"\ntests = ["a", "a"]\n', "verify.tests"),
    ('title = "x"\ncategory = "smoke"\n[verify]\nrunner = "unittest"\ntests = ["a"]\nvet = true\n', "verify.vet"),
    ('title = "x"\ncategory = "smoke"\n[verify]\nrunner = "cpp"\ntests = ["a"]\nbuild = "make"\n', "verify.binaries"),
    ('title = "x"\ncategory = "smoke"\n[verify]\nrunner = "script"\ntests = ["a"]\n', "verify.cmd"),
    ('title = "x"\ncategory = "smoke"\n[verify]\nrunner = "go"\ntests = ["a"]\nrestore = ["/etc/x"]\n',
     "verify.restore"),
    ('title = "x"\ncategory = "smoke"\n[verify]\nrunner = "go"\ntests = ["a"]\npartial = "yes"\n', "verify.partial"),
    ('title = "x"\ncategory = "smoke"\ncolour = 1\n' + V, "colour"),
    ('title = "x"\ncategory = "smoke"\ngrade = "auto-ish"\n' + V, "grade"),
    ('title = "x"\ncategory = "smoke"\n' + V + '[agent]\nidle_s = -1\n', "idle_s"),
    ('title = "x"\ncategory = "smoke"\n' + V + '[agent]\nnaps = 3\n', "naps"),
    ('title = "x"\ncategory = "smoke"\n' + V + '[screenshot]\npath = "../x.html"\n', "screenshot.path"),
    ('title = "x"\ncategory = "smoke"\n' + V + '[repo]\nurl = "u"\n', "repo.rev"),
    ('title = "x"\ncategory = "smoke"\n[verify\nrunner = "script"\n', "line 3"),
    ('title = "x"\ncategory = "smoke"\n' + V + '[provenance]\nrepository = "r"\ncommit = "c"\n', "provenance.license"),
    ('title = "x"\ncategory = "smoke"\n' + V + '[provenance]\nrepository = "r"\ncommit = "c"\nlicense = "MIT"\n'
     'licence_file = "LICENSE"\n', "provenance.licence_file"),
    ('title = "x"\ncategory = "smoke"\n' + V + '[provenance]\nrepository = "r"\ncommit = "c"\nlicense = "MIT"\n'
     'license_files = "LICENSE"\n', "provenance.license_files"),
    ('title = "x"\ncategory = "smoke"\n' + V + 'provenance = "github"\n', "provenance"),
])
def test_bad_task_files_name_file_line_and_field(tmp_path: Path, toml: str, message: str | None):
    directory = _task(tmp_path, toml)
    if message is None:       # `network` inside [verify] is an unknown verify field
        message = "verify.network"
    with pytest.raises(BadInput) as err:
        datasets.load_task(directory, tmp_path)
    text = str(err.value)
    assert str(directory / "task.toml") in text and message in text
    assert "\n" not in text


def test_network_error_points_at_its_line(tmp_path: Path):
    directory = _task(tmp_path, 'title = "x"\ncategory = "smoke"\nnetwork = true\n' + V)
    with pytest.raises(BadInput, match=r"task.toml:3: network: tasks get no network"):
        datasets.load_task(directory, tmp_path)


def test_lint_scheme(tmp_path: Path):
    write_task(tmp_path, "feature/small-project/ok", prompt="p", tags=("go", "feature", "small", "synthetic"))
    write_task(tmp_path, "feature/small-project/bad", prompt="p", tags=("go", "feature"))
    write_task(tmp_path, "coding/python/two-langs", prompt="p", tags=("python", "go"))
    write_task(tmp_path, "coding/python/kind-tag", prompt="p", tags=("python", "bugfix"))
    write_task(tmp_path, "misc/odd", prompt="p", tags=("python", "sparkly"))
    write_task(tmp_path, "aoc/2023/day01", prompt="p", tags=("python", "hard", "quick"))
    problems = "\n".join(lint.lint(datasets.load_tasks(tmp_path)))
    assert "feature/small-project/ok" not in problems and "aoc/2023" not in problems
    assert "bad/task.toml: tags: a feature/small-project task needs exactly one size tag" in problems
    assert "origin tag" in problems
    assert "two-langs/task.toml: tags: needs exactly one language tag, has ['python', 'go']" in problems
    assert "kind-tag/task.toml: tags: kind tags ['bugfix'] belong to project categories only" in problems
    assert "odd/task.toml: category: 'misc'" in problems and "unknown tag 'sparkly'" in problems
    proc = run_cli("agent", "lint", "--tasks-dir", str(tmp_path))
    assert proc.returncode == 2 and "needs exactly one size tag" in proc.stdout
    assert run_cli("agent", "lint", "--tasks-dir", str(FIXTURES)).returncode == 0


def test_selection_globs_and_hash(tmp_path: Path):
    root = tmp_path / "tasks"
    shutil.copytree(FIXTURES, root)
    tasks = datasets.load_tasks(root)
    pick = lambda **kw: [t.id for t in datasets.select(tasks, **kw)]  # noqa: E731
    assert pick(tags=["quick"]) == ["coding/python/digit-sum", "smoke/hello"]
    assert pick(categories=["coding"]) == ["coding/python/digit-sum"]
    assert pick(categories=["fro*", "smoke"]) == ["frontend/counter", "smoke/hello"]
    assert pick(only=["*/counter", "smoke/*"], exclude=["smoke/*"]) == ["frontend/counter"]
    assert pick(tags=["quick"], categories=["smoke"]) == ["smoke/hello"]
    before = {t.id: t.hash for t in tasks}
    (root / "smoke" / "hello" / "verify" / "check.py").write_text("pass\n")
    after = {t.id: t.hash for t in datasets.load_tasks(root)}
    assert after["smoke/hello"] != before["smoke/hello"]
    assert after["frontend/counter"] == before["frontend/counter"]
    listed = run_cli("agent", "list", "--tasks-dir", str(root), "--tag", "quick", "--json")
    assert listed.returncode == 0 and listed.stdout.count('"id"') == 2


def test_limits_precedence_and_config(tmp_path: Path):
    config = tmp_path / "bench.toml"
    config.write_text("[limits]\ntimeout_s = 100\nidle_s = 50\n[pi.settings.retry]\nmaxRetries = 1\n")
    loaded = load_config(config)
    assert loaded.limits.timeout_s == 100 and loaded.pi_settings == {"retry": {"maxRetries": 1}}
    final = merged(loaded.limits, {"timeout_s": 30.0, "idle_s": 20.0}, {"idle_s": 10, "timeout_s": None})
    assert (final.timeout_s, final.idle_s, final.repeat_call) == (30.0, 10, 8)
    config.write_text("[limits]\nsnooze = 1\n")
    with pytest.raises(BadInput, match="snooze"):
        load_config(config)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _calls(monitor: StuckMonitor, commands: list[str]):
    verdict = None
    for command in commands:
        verdict = monitor.observe({"type": "tool_execution_start", "toolName": "bash", "args": {"command": command}})
    return verdict


def test_monitor_rules():
    assert _calls(StuckMonitor(Limits()), ["ls"] * 7) is None
    assert _calls(StuckMonitor(Limits()), ["ls"] * 8).reason == "repeated_call"
    assert _calls(StuckMonitor(Limits()), ["a", "b"] * 3 + ["a"]) is None
    assert _calls(StuckMonitor(Limits()), ["a", "b"] * 4).reason == "cycle"
    assert _calls(StuckMonitor(Limits()), ["a", "b", "c", "d"] * 4).reason == "cycle"
    assert _calls(StuckMonitor(Limits()), ["x", "a", "b", "c", "d", "e"] * 4) is None   # a 6-cycle is no 2-4 cycle
    assert _calls(StuckMonitor(Limits(max_tool_calls=5)), list("abcdef")).reason == "tool_calls"
    monitor = StuckMonitor(Limits(repeat_message=3))
    message = {"type": "message_end", "message": {"role": "assistant", "content": [{"type": "text", "text": "hm"}]}}
    assert monitor.observe(message) is None and monitor.observe(message) is None
    assert monitor.observe(message).reason == "repeated_message"
    clock = Clock()
    idle = StuckMonitor(Limits(idle_s=10, timeout_s=100), clock=clock)
    clock.now = 9
    assert idle.check(last_traffic=0) is None
    clock.now = 15
    assert idle.check(last_traffic=8) is None               # model traffic counts as activity
    clock.now = 19
    assert idle.check(last_traffic=8).reason == "idle"
    wall = StuckMonitor(Limits(idle_s=1000, timeout_s=100), clock=clock)
    clock.now = 19 + 101
    assert wall.check().status == "timeout"
    assert StuckMonitor(Limits()).check(runaway=True).reason == "runaway"


def test_event_summary():
    usage = lambda i, o, c: {"input": i, "output": o, "cacheRead": c, "cacheWrite": 0, "totalTokens": i + o + c}  # noqa: E731
    events = [
        {"type": "agent_start"},
        {"type": "message_end", "message": {"role": "assistant", "usage": usage(100, 10, 0), "stopReason": "toolUse",
                                            "content": [{"type": "toolCall", "name": "bash"}]}},
        {"type": "tool_execution_start", "toolName": "bash", "args": {}},
        {"type": "tool_execution_end", "toolName": "bash", "isError": True},
        {"type": "turn_end"},
        {"type": "compaction_end", "result": {"summary": "s"}, "aborted": False},
        {"type": "compaction_end", "result": None, "aborted": True},
        {"type": "message_end", "message": {"role": "assistant", "usage": usage(20, 5, 80), "stopReason": "stop",
                                            "content": [{"type": "text", "text": "All done."}]}},
        {"type": "turn_end"},
        {"type": "agent_end"},
    ]
    s = summarize(events, 1000)
    assert (s["turns"], s["tool_calls"], s["tool_errors"], s["compactions"]) == (2, 1, 1, 1)
    assert (s["tokens_input"], s["tokens_output"], s["tokens_cache"]) == (120, 15, 80)
    assert (s["context_peak"], s["context_final"], s["context_peak_share"]) == (110, 105, 0.11)
    assert s["final_message"] == "All done." and s["stop_reason"] == "stop"


def test_lint_refuses_arguments_a_runner_would_drop():
    """A positive -k no longer drops the grader's canaries (the driver runs them after the task's loop); what lint
    still refuses is an `args` list that the runner never hands to the tests."""
    from evaluators.agent.corpus.lint import ignored_args

    assert ignored_args("pytest", ("-x", "-k", "vf2pp")) is None
    assert ignored_args("cargo", ("--features", "serde")) is None
    assert ignored_args("unittest", ()) is None
    assert "go runner passes no arguments" in ignored_args("go", ("-run", "TestParse"))
    assert "node runner passes no arguments" in ignored_args("node", ("--test-name-pattern", "x"))
    assert "after `--` would reach libtest" in ignored_args("cargo", ("--", "--skip", "slow"))
