"""Snapshots of upstream projects, proven fail-to-pass / pass-to-pass tests, and the validation ledger.

One small upstream repository (real git) with history after the pinned commit; a task pins the commit in a
snapshot built by `agent snapshot`, and `agent validate --native` materializes it offline, runs each side three
times and proves every expected test.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from evaluators.agent.grading import testproof, verdict
from evaluators.agent.grading.verifyspec import parse
from evaluators.core.contract import target_tests_words
from evaluators.core.errors import BadInput
from tests.conftest import REPO, cli_env, run_cli

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
BUGGY = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n"
FIXED = BUGGY.replace("return a + b\n", "return a - b\n").replace("return a - b\n", "return a + b\n", 1)
TESTS = ("from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
         "def test_sub():\n    assert sub(5, 3) == 2\n")
PATCH = ("--- a/calc.py\n+++ b/calc.py\n@@ -3,4 +3,4 @@\n \n \n def sub(a, b):\n-    return a + b\n"
         "+    return a - b\n")


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    subprocess.run([*GIT, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", message], check=True)
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def _task(root: Path, name: str, commit: str, verify_toml: str, verify: dict[str, str]) -> Path:
    task = root / "issue" / "bugfix" / name
    (task / "solution").mkdir(parents=True)
    (task / "task.toml").write_text(
        'title = "sub subtracts"\ncategory = "issue/bugfix"\ntags = ["python", "bugfix", "small", "real-issue"]\n\n'
        f'[repo]\nsnapshot = "up+calc"\ncommit = "{commit}"\nexclude = ["docs"]\n\n'
        f'[verify]\nrunner = "pytest"\n{verify_toml}\ntimeout_s = 60\n')
    (task / "prompt.md").write_text("sub(5, 3) gives 8; I expected 2.\n")
    (task / "solution" / "solution.patch").write_text(PATCH)
    for rel, text in verify.items():
        (task / "verify" / rel).parent.mkdir(parents=True, exist_ok=True)
        (task / "verify" / rel).write_text(text)
    return task


@pytest.fixture
def upstream(tmp_path: Path) -> dict:
    repo = tmp_path / "upstream"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    start = _commit(repo, {"calc.py": BUGGY, "docs/index.md": "docs\n", "tests/test_calc.py": TESTS}, "buggy")
    later = _commit(repo, {"calc.py": FIXED, "NEWS": "the fix\n"}, "fix sub")  # the future: never in the snapshot
    return {"repo": repo, "start": start, "later": later, "env": {"BANANABENCH_AGENT_CACHE": str(tmp_path / "cache")}}


def test_a_snapshot_holds_only_the_pinned_commits_and_materializes_offline(tmp_path: Path, upstream: dict,
                                                                          monkeypatch):
    root = tmp_path / "tasks"
    task = _task(root, "calc-sub", upstream["start"], 'fail_to_pass = ["tests/test_calc.py::test_sub"]\n'
                 'pass_to_pass = ["tests/test_calc.py::test_add"]', {"tests/test_calc.py": TESTS})
    missing = run_cli("agent", "validate", "--native", "--tasks-dir", str(root), env=upstream["env"])
    assert missing.returncode == 2 and "agent snapshot up+calc --from GITDIR" in missing.stdout
    built = run_cli("agent", "snapshot", "up+calc", "--from", str(upstream["repo"]), "--tasks-dir", str(root))
    assert built.returncode == 0, built.stderr
    pack = root / "repos" / "up+calc.pack"
    assert "1 commit(s)" in built.stdout and pack.is_file()
    probe = tmp_path / "probe.git"
    subprocess.run(["git", "init", "-q", "--bare", str(probe)], check=True)
    subprocess.run(["git", "-C", str(probe), "index-pack", "--stdin"], input=pack.read_bytes(), check=True,
                   capture_output=True)
    has = lambda sha: subprocess.run(["git", "-C", str(probe), "cat-file", "-e", sha]).returncode == 0  # noqa: E731
    assert has(upstream["start"]) and not has(upstream["later"])

    from evaluators.agent.corpus import datasets, repos
    loaded = datasets.load_task(task, root)
    assert loaded.repo.snapshot == "up+calc" and loaded.root == root
    out = run_cli("agent", "validate", "--native", "--json", "--tasks-dir", str(root), env=upstream["env"])
    assert out.returncode == 0, out.stdout + out.stderr
    row = json.loads(out.stdout.splitlines()[-1])
    assert row["proof"]["fail_to_pass"] == ["tests/test_calc.py::test_sub"]
    assert row["proof"]["pass_to_pass"] == ["tests/test_calc.py::test_add"] and "in 3 runs" in row["detail"]
    monkeypatch.setenv("BANANABENCH_AGENT_CACHE", upstream["env"]["BANANABENCH_AGENT_CACHE"])
    start = repos.materialize(loaded, tmp_path / "ws")
    assert sorted(p.relative_to(start).as_posix() for p in start.rglob("*") if p.is_file()) == \
        ["calc.py", "tests/test_calc.py"]  # docs/ excluded, no .git, no later NEWS
    assert (start / "calc.py").read_text() == BUGGY

    (task / "task.toml").write_text((task / "task.toml").read_text().replace(upstream["start"], "f" * 40))
    unknown = run_cli("agent", "snapshot", "up+calc", "--from", str(upstream["repo"]), "--tasks-dir", str(root))
    assert unknown.returncode == 2 and "issue/bugfix/calc-sub: repo.commit ffff" in unknown.stderr
    absent = run_cli("agent", "validate", "--native", "--tasks-dir", str(root), env=upstream["env"])
    assert absent.returncode == 2 and "is not in the snapshot" in absent.stdout


MATERIALIZE = """import sys, time
from pathlib import Path
from evaluators.agent.corpus import datasets, repos
root, task, dest, go = map(Path, sys.argv[1:])
loaded = datasets.load_task(task, root)
dest.with_suffix(".ready").touch()
while not go.exists():
    time.sleep(0.001)
repos.materialize(loaded, dest)
"""


def test_runs_sharing_a_cache_make_a_start_state_once_while_they_read_it(tmp_path: Path, upstream: dict):
    """Runs of one task at once (two models on one machine, validation beside a run) share the cache: none may
    remove or replace the folders another is building or copying from."""
    from evaluators.agent.corpus import datasets, snapshots
    root = tmp_path / "tasks"
    task = _task(root, "calc-sub", upstream["start"], 'fail_to_pass = ["tests/test_calc.py::test_sub"]',
                 {"tests/test_calc.py": TESTS})
    snapshots.build(upstream["repo"], {upstream["start"]: ["issue/bugfix/calc-sub"]}, snapshots.path_of(root, "up+calc"))
    go, env = tmp_path / "go", {**cli_env(), **upstream["env"]}
    procs = [subprocess.Popen([sys.executable, "-c", MATERIALIZE, str(root), str(task), str(tmp_path / f"ws{i}"),
                               str(go)], env=env, cwd=REPO, stderr=subprocess.PIPE, text=True) for i in range(6)]
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("ws*.ready"))) < 6 and time.monotonic() < deadline:
        time.sleep(0.01)  # until every process has loaded the task and waits for the others
    go.touch()
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, errors
    for i in range(6):
        start = tmp_path / f"ws{i}"
        assert sorted(f.relative_to(start).as_posix() for f in start.rglob("*") if f.is_file()) == \
            ["calc.py", "tests/test_calc.py"]
        assert (start / "calc.py").read_text() == BUGGY
    cache = tmp_path / "cache" / "agent-repos"
    assert [d.name for d in (cache / "checkouts").iterdir() if d.is_dir()] == \
        [f"issue__bugfix__calc-sub-{datasets.load_task(task, root).hash[:12]}"]  # one checkout, no temporary folder left
    assert len([d for d in (cache / "snapshots").iterdir() if d.is_dir()]) == 1


@pytest.mark.slow
def test_validation_proves_each_test_reports_flaky_and_broken_and_refuses_without_fail_to_pass(
        tmp_path: Path, upstream: dict):
    root = tmp_path / "tasks"
    counter = tmp_path / "count"
    flaky = (TESTS + "\n\ndef test_coin():\n    from pathlib import Path\n"
             f"    p = Path({str(counter)!r})\n    n = int(p.read_text()) + 1 if p.exists() else 1\n"
             "    p.write_text(str(n))\n    assert n % 2\n\n\ndef test_never():\n    assert False\n")
    task = _task(root, "calc-sub", upstream["start"], 'tests = ["tests/test_calc.py::test_add", '
                 '"tests/test_calc.py::test_sub"]', {"tests/test_calc.py": flaky})
    assert run_cli("agent", "snapshot", "up+calc", "--from", str(upstream["repo"]),
                   "--tasks-dir", str(root)).returncode == 0
    out = run_cli("agent", "validate", "--native", "--write-tests", "--tasks-dir", str(root), env=upstream["env"])
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 flaky, left out (first: tests/test_calc.py::test_coin: start 2/3 passed" in out.stdout
    assert "1 fail with the solution too, left out (first: tests/test_calc.py::test_never)" in out.stdout
    assert "wrote 1 fail_to_pass, 1 pass_to_pass and 1 flaky test id(s)" in out.stderr
    verify = tomllib.loads((task / "task.toml").read_text())["verify"]
    assert "tests" not in verify and verify["fail_to_pass"] == ["tests/test_calc.py::test_sub"]
    assert verify["pass_to_pass"] == ["tests/test_calc.py::test_add"]
    assert verify["flaky"] == ["tests/test_calc.py::test_coin"]

    # the same task with the fix already in its start state proves nothing: refused
    (task / "solution" / "solution.patch").write_text("")
    text = (task / "task.toml").read_text().replace(upstream["start"], upstream["later"])
    (task / "task.toml").write_text(text)
    assert run_cli("agent", "snapshot", "up+calc", "--from", str(upstream["repo"]),
                   "--tasks-dir", str(root)).returncode == 0
    refused = run_cli("agent", "validate", "--native", "--tasks-dir", str(root), env=upstream["env"])
    assert refused.returncode == 2
    assert "UNPROVEN: fail_to_pass tests/test_calc.py::test_sub is not proven (passes at the start)" in refused.stdout


@pytest.mark.slow
def test_the_ledger_skips_proven_tasks_until_something_they_depend_on_changes(tmp_path: Path, upstream: dict):
    root = tmp_path / "tasks"
    task = _task(root, "calc-sub", upstream["start"], 'fail_to_pass = ["tests/test_calc.py::test_sub"]\n'
                 'pass_to_pass = ["tests/test_calc.py::test_add"]', {"tests/test_calc.py": TESTS})
    run_cli("agent", "snapshot", "up+calc", "--from", str(upstream["repo"]), "--tasks-dir", str(root))
    args = ("agent", "validate", "--native", "--runs", "1", "--tasks-dir", str(root))
    first = run_cli(*args, "--record", env=upstream["env"])
    assert first.returncode == 0, first.stdout + first.stderr
    entry = json.loads((root / "validated.json").read_text())["tasks"]["issue/bugfix/calc-sub"]
    assert entry["sandbox"] == "native" and entry["fail_to_pass"] == 1 and "Python 3" in entry["toolchain"]
    again = run_cli(*args, env=upstream["env"])
    assert again.returncode == 0 and "1 task(s) proven in the ledger" in again.stderr and again.stdout == ""
    podman = run_cli("agent", "validate", "--tasks-dir", str(root), "--image", "none:none", env=upstream["env"])
    assert "proven in the ledger" not in podman.stderr  # a native proof does not stand for the sandbox
    forced = run_cli(*args, "--force", env=upstream["env"])
    assert forced.returncode == 0 and "ok   issue/bugfix/calc-sub" in forced.stdout
    (task / "prompt.md").write_text("sub is wrong.\n")
    changed = run_cli(*args, env=upstream["env"])
    assert "ok   issue/bugfix/calc-sub" in changed.stdout and "ledger" not in changed.stderr


def _records(**outcomes: str) -> dict[str, verdict.TestOutcome]:
    return {test: verdict.TestOutcome(outcome) for test, outcome in outcomes.items()}


def test_proof_classifies_every_test_from_the_runs_of_both_sides():
    start = [_records(a="failed", b="passed", c="passed", d="failed"), _records(a="failed", b="passed", c="failed"),
             _records(a="error", b="passed", c="passed")]
    solution = [_records(a="passed", b="passed", c="passed", d="failed", e="passed")] * 3
    proof = testproof.prove(start, solution)
    assert proof.fail_to_pass == ["a", "e"] and proof.pass_to_pass == ["b"]
    assert proof.flaky == {"c": "start 2/3 passed"} and proof.broken == ["d"]  # d: missing in two runs = not passed
    assert proof.unrun == ["e"]  # in no start record: it never ran there
    err = lambda key, message: BadInput(f"{key}: {message}")  # noqa: E731
    spec = parse({"runner": "pytest", "fail_to_pass": ["a", "b"], "pass_to_pass": ["c", "e"]}, err)
    assert spec.tests == ("a", "b", "c", "e")
    assert proof.problems(spec) == ["fail_to_pass b is not proven (passes at the start)", "c is flaky (start 2/3 passed)",
                                    "pass_to_pass e is not proven (fails at the start)"]
    assert testproof.prove(solution, solution).problems(parse({"runner": "pytest", "tests": ["a"]}, err)) == \
        ["no expected test is proven fail-to-pass (fails at the start, passes with the solution)"]
    counts = testproof.target_tests(spec, _records(a="passed", b="failed", c="passed"))
    assert counts == {"fixed": 1, "fail_to_pass": 2, "broke": 1, "pass_to_pass": 2}
    assert target_tests_words(counts) == "fixed 1 of 2 target tests, broke 1 of 2"
    assert testproof.target_tests(parse({"runner": "pytest", "tests": ["a"]}, err), {}) is None
    from evaluators.core.contract import AttemptKey
    from evaluators.publish.views import Attempt
    shown = Attempt(run_id="r", item_id="issue/bugfix/x", attempt=1, status="failed", correct=False, score=0.0,
                    prediction=None, reference=None, category=None, difficulty=None, wall_s=1.0,
                    extra={AttemptKey.TARGET_TESTS: counts})
    assert shown.target_tests == "fixed 1 of 2 target tests, broke 1 of 2"  # the attempt page and the report


@pytest.mark.parametrize("verify, message", [
    ({"tests": ["a"], "fail_to_pass": ["b"]}, "verify.tests: a task lists `tests` or `fail_to_pass`"),
    ({"fail_to_pass": ["a"], "pass_to_pass": ["a"]}, "verify.pass_to_pass: 'a' is also in fail_to_pass"),
    ({"fail_to_pass": ["a"], "flaky": ["a"]}, "verify.flaky: 'a' is flaky and also expected"),
    ({"fail_to_pass": "a"}, "verify.fail_to_pass: must be a list"),
])
def test_bad_test_lists_name_their_field(verify: dict, message: str):
    with pytest.raises(BadInput, match=message.replace("`", ".").replace("(", ".").replace("[", ".")):
        parse({"runner": "pytest", **verify}, lambda key, msg: BadInput(f"{key}: {msg}"))


@pytest.mark.parametrize("repo, message", [
    ('snapshot = "up+calc"\ncommit = "abc"', "repo.commit: must be a full 40-digit"),
    ('snapshot = "calc"\ncommit = "' + "a" * 40 + '"', "repo.snapshot: must be OWNER+NAME"),
    ('snapshot = "up+calc"\ncommit = "' + "a" * 40 + '"\nurl = "u"', "repo.url: a task pins a snapshot or a url"),
    ('url = "u"\nrev = "main"\nexclude = ["docs"]', "repo.exclude: applies to snapshot pins only"),
])
def test_bad_snapshot_pins_name_file_line_and_field(tmp_path: Path, repo: str, message: str):
    task = _task(tmp_path, "x", "a" * 40, 'tests = ["t"]', {})
    text = (task / "task.toml").read_text()
    start = text.index("[repo]\n") + len("[repo]\n")
    (task / "task.toml").write_text(text[:start] + repo + "\n" + text[text.index("\n\n[verify]"):])
    out = run_cli("agent", "list", "--tasks-dir", str(tmp_path))
    assert out.returncode == 2 and "task.toml:" in out.stderr and message in out.stderr, out.stderr
