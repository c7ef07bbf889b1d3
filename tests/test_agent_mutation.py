"""The mutation check of `agent validate` and the matching `agent lint` warning, on a task whose hidden test
reads a data file: without a restore rule, emptying that file makes the start state pass; with one, it cannot."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from evaluators.agent.corpus import datasets
from evaluators.agent.corpus.validate import NativeRunner, validate_task
from tests.conftest import run_cli
from tests.helpers.agent import write_task

HIDDEN = '''import unittest

from calc import add


class T(unittest.TestCase):
    def test_cases(self):
        with open("data/cases.txt") as fh:
            for line in fh:
                a, b, want = map(int, line.split())
                self.assertEqual(add(a, b), want)
'''


def data_task(root: Path, restore: str = "") -> datasets.Task:
    toml = 'runner = "unittest"\ntests = ["test_hidden.T.test_cases"]' + (f"\nrestore = {restore}" if restore else "")
    directory = write_task(root, "coding/python/data-driven", prompt="fix add", verify_toml=toml, tags=("python",),
                           files={"calc.py": "def add(a, b):\n    return a - b\n", "data/cases.txt": "1 1 2\n"},
                           verify={"test_hidden.py": HIDDEN},
                           solution={"calc.py": "def add(a, b):\n    return a + b\n"})
    return datasets.load_task(directory, root)


@pytest.mark.parametrize("restore, problem", [
    ("", "the start state passes when data/cases.txt is truncated"),
    ('["data/**"]', None),
])
def test_an_editable_input_the_tests_read_fails_validation(tmp_path: Path, restore: str, problem: str | None):
    task = data_task(tmp_path / "tasks", restore)
    result = validate_task(task, NativeRunner(), None)
    assert result.solution.passed and not result.start.passed, result.describe()
    assert result.mutation is not None
    if problem:
        assert result.mutation.inputs == ["data/cases.txt"] and result.mutation.problem.startswith(problem)
        assert not result.ok and "mutation check FAILS" in result.describe()
    else:
        assert result.mutation.inputs == [] and result.ok, result.describe()


def test_lint_warns_about_a_test_input_nothing_restores(tmp_path: Path):
    data_task(tmp_path / "tasks")
    proc = run_cli("agent", "lint", "--tasks-dir", str(tmp_path / "tasks"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verify/test_hidden.py names 'data/cases.txt': data/cases.txt is a test input nothing restores" in proc.stdout
    assert "1 warning(s)" in proc.stderr


def test_lint_reads_the_pinned_start_state_of_a_snapshot_task(tmp_path: Path):
    """A real-issue task has no `workspace/`: lint materializes its pin from the snapshot (offline, once, cached)."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(upstream)]
    subprocess.run(["git", "init", "-q", str(upstream)], check=True)
    (upstream / "data").mkdir()
    (upstream / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (upstream / "data" / "cases.txt").write_text("1 1 2\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    tasks = tmp_path / "tasks"
    task = tasks / "issue" / "bugfix" / "calc-data"
    (task / "verify").mkdir(parents=True)
    (task / "verify" / "test_hidden.py").write_text(HIDDEN)
    (task / "prompt.md").write_text("add(1, 1) gives 0\n")
    toml = ('title = "add adds"\ncategory = "issue/bugfix"\ntags = ["python", "bugfix", "small", "real-issue", '
            f'"easy"]\n\n[repo]\nsnapshot = "up+calc"\ncommit = "{commit}"\n\n[verify]\nrunner = "unittest"\n'
            'tests = ["test_hidden.T.test_cases"]\n')
    (task / "task.toml").write_text(toml)
    assert run_cli("agent", "snapshot", "up+calc", "--from", str(upstream), "--tasks-dir", str(tasks)).returncode == 0
    env = {"BANANABENCH_AGENT_CACHE": str(tmp_path / "cache")}

    proc = run_cli("agent", "lint", "--tasks-dir", str(tasks), env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "names 'data/cases.txt': data/cases.txt is a test input nothing restores" in proc.stdout
    assert "0 problem(s), 1 warning(s)" in proc.stderr
    checkouts = [p for p in (tmp_path / "cache" / "agent-repos" / "checkouts").iterdir() if p.is_dir()]
    assert [p.name for p in checkouts] == [f"issue__bugfix__calc-data-{datasets.load_task(task, tasks).hash[:12]}"]

    (task / "task.toml").write_text(toml + 'restore = ["data/**"]\n')
    restored = run_cli("agent", "lint", "--tasks-dir", str(tasks), env=env)
    assert restored.returncode == 0 and "0 warning(s)" in restored.stderr, restored.stdout + restored.stderr

    (tasks / "repos" / "up+calc.pack").unlink()             # a new pin, and no snapshot to read it from
    (task / "task.toml").write_text(toml.replace("[verify]", "[verify]\ntimeout_s = 61"))
    missing = run_cli("agent", "lint", "--tasks-dir", str(tasks), env=env)
    assert missing.returncode == 0 and "repo: the start state could not be read: " in missing.stdout, missing.stdout
