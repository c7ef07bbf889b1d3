"""`agent validate` (podman and --native), `run --dry-run`, and the CLI's bad-input paths."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli
from tests.helpers.agent import FIXTURES, needs_podman


@pytest.fixture
def broken_tasks(tmp_path: Path) -> Path:
    root = tmp_path / "tasks"
    shutil.copytree(FIXTURES, root)
    # start states that already pass (a hand-graded app's smoke check too), and a solution that does not
    (root / "smoke" / "hello" / "workspace" / "hello.txt").write_text("hello banana\n")
    counter = root / "frontend" / "counter"
    shutil.copy(counter / "solution" / "index.html", counter / "workspace" / "index.html")
    (root / "coding" / "python" / "digit-sum" / "solution" / "digits.py").write_text(
        "def digit_sum(n):\n    return 0\n")
    return root


@pytest.mark.browser
def test_validate_native(broken_tasks: Path):
    good = run_cli("agent", "validate", "--native", "--tasks-dir", str(FIXTURES))
    assert good.returncode == 0, good.stdout + good.stderr
    assert "WITHOUT isolation" in good.stderr and "page loads" in good.stdout
    assert "frontend/counter: start state fails in 3 runs" in good.stdout and "1 fail-to-pass" in good.stdout
    bad = run_cli("agent", "validate", "--native", "--tasks-dir", str(broken_tasks))
    assert bad.returncode == 2
    assert "FAIL smoke/hello: start state PASSES" in bad.stdout
    assert "FAIL frontend/counter: start state PASSES" in bad.stdout and "page loads" in bad.stdout
    assert "FAIL coding/python/digit-sum" in bad.stdout and "solution FAILS" in bad.stdout
    assert "0/3 task(s) valid" in bad.stderr


@pytest.mark.slow
@pytest.mark.podman
@needs_podman
def test_validate_in_podman(broken_tasks: Path, tmp_path: Path):
    tasks = shutil.copytree(FIXTURES, tmp_path / "good")
    good = run_cli("agent", "validate", "--tasks-dir", str(tasks), "--json", "--record")
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.count('"ok": true') == 3
    # `make validate-tasks`: the ledger holds podman proofs, which stand for native runs too
    entries = json.loads((tasks / "validated.json").read_text())["tasks"]
    assert len(entries) == 3 and {e["sandbox"] for e in entries.values()} == {"podman"}
    for mode in ((), ("--native",)):
        again = run_cli("agent", "validate", "--tasks-dir", str(tasks), *mode)
        assert again.returncode == 0 and "3 task(s) proven in the ledger" in again.stderr, again.stderr
    bad = run_cli("agent", "validate", "--tasks-dir", str(broken_tasks), "smoke/*")
    assert bad.returncode == 2 and "start state PASSES" in bad.stdout


@pytest.mark.slow
def test_dry_run_and_bad_input(tmp_path: Path):
    dry = run_cli("agent", "run", "--name", "m", "--base-url", "http://127.0.0.1:9", "--tasks-dir", str(FIXTURES),
                  "--dry-run", "--tag", "quick", "--attempts", "2", "--timeout-s", "77", "--results", str(tmp_path))
    assert dry.returncode == 0, dry.stderr
    assert "2 task(s) x 2 attempt(s) = 4 attempt(s)" in dry.stdout and "timeout 77s" in dry.stdout
    assert not (tmp_path / "bananabench.duckdb").exists()
    nothing = run_cli("agent", "run", "--name", "m", "--base-url", "http://127.0.0.1:9", "--tasks-dir",
                      str(FIXTURES), "--only", "nope/*", "--results", str(tmp_path))
    assert nothing.returncode == 2 and "no task" in nothing.stderr
    thinking = run_cli("agent", "run", "--name", "m", "--base-url", "http://127.0.0.1:9", "--tasks-dir",
                       str(FIXTURES), "--thinking", "galaxy-brain", "--results", str(tmp_path))
    assert thinking.returncode == 2 and "--thinking" in thinking.stderr
    down = run_cli("agent", "run", "--name", "m", "--base-url", "http://127.0.0.1:9", "--tasks-dir",
                   str(FIXTURES), "--results", str(tmp_path))
    assert down.returncode == 3 and "127.0.0.1:9" in down.stderr
    grade = run_cli("agent", "grade", "m", "frontend/counter", "9", "--results", str(tmp_path))
    assert grade.returncode == 2 and "0 to 5" in grade.stderr


def test_run_outside_the_checkout_finds_the_project_tasks(tmp_path: Path):
    """Without --tasks-dir the project's own tasks/agent is used, whatever the working directory."""
    args = ("agent", "run", "--name", "m", "--base-url", "http://127.0.0.1:9", "--dry-run", "--category", "smoke",
            "--results", str(tmp_path / "results"))
    outside, inside = run_cli(*args, cwd=tmp_path), run_cli(*args, cwd=REPO)
    assert outside.returncode == 0, outside.stderr
    assert outside.stdout == inside.stdout and " smoke/" in outside.stdout


def test_repo_task_clone_patch_prepare(tmp_path: Path, monkeypatch):
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    (upstream / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "-q", str(upstream)], check=True)
    subprocess.run([*git, "-C", str(upstream), "add", "."], check=True)
    subprocess.run([*git, "-C", str(upstream), "commit", "-qm", "v1"], check=True)
    rev = subprocess.run(["git", "-C", str(upstream), "rev-parse", "HEAD"], capture_output=True, text=True,
                         check=True).stdout.strip()
    (upstream / "calc.py").write_text("def add(a, b):\n    return a + b + 1\n")    # later upstream history
    subprocess.run([*git, "-C", str(upstream), "commit", "-qam", "v2"], check=True)
    task = tmp_path / "tasks" / "bugfix" / "large-project" / "calc-add"
    (task / "verify").mkdir(parents=True)
    (task / "solution").mkdir()
    (task / "task.toml").write_text(
        'title = "add"\ncategory = "bugfix/large-project"\ntags = ["python", "bugfix", "large", "synthetic"]\n'
        f'[repo]\nurl = "{upstream}"\nrev = "{rev}"\npatch = "bug.patch"\nprepare = ["echo ready > PREPARED"]\n'
        '[verify]\nrunner = "unittest"\ntargets = ["check"]\ntests = ["check.Check.test_prepared_and_adds"]\n')
    (task / "prompt.md").write_text("Fix add().\n")
    (task / "bug.patch").write_text(
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a + b\n+    return a - b\n")
    (task / "verify" / "check.py").write_text(
        "import os, unittest\nfrom calc import add\n\n\nclass Check(unittest.TestCase):\n"
        "    def test_prepared_and_adds(self):\n        self.assertTrue(os.path.isfile('PREPARED'))\n"
        "        self.assertEqual(add(2, 3), 5)\n")
    (task / "solution" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    cache = tmp_path / "cache"
    env = {"BANANABENCH_AGENT_CACHE": str(cache)}
    ok = run_cli("agent", "validate", "--native", "--tasks-dir", str(tmp_path / "tasks"), env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert len([p for p in (cache / "agent-repos" / "mirrors").iterdir() if p.is_dir()]) == 1  # cloned once
    assert run_cli("agent", "lint", "--tasks-dir", str(tmp_path / "tasks")).returncode == 0


def test_pytest_task_with_a_src_layout_validates_natively(tmp_path: Path):
    """A pytest task whose package lives in src/: `pythonpath` appends it; the ini's own pythonpath is ignored."""
    from tests.helpers.agent import write_task

    root = tmp_path / "tasks"
    write_task(root, "coding/python/src-layout", prompt="Fix pkg.double.", tags=("python",),
               verify_toml='runner = "pytest"\npythonpath = ["src"]\n'
                           'tests = ["tests/test_double.py::test_double", "tests/test_double.py::test_zero"]',
               files={"src/pkg/__init__.py": "def double(x):\n    return x + 2\n",
                      "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\naddopts = "--co"\n'},
               verify={"tests/test_double.py": "from pkg import double\n\n\ndef test_double():\n"
                                               "    assert double(3) == 6\n\n\ndef test_zero():\n"
                                               "    assert double(0) == 0\n"},
               solution={"src/pkg/__init__.py": "def double(x):\n    return 2 * x\n"})
    out = run_cli("agent", "validate", "--native", "--tasks-dir", str(root))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "start state fails in 3 runs (2 of 2 expected tests did not pass" in out.stdout


def test_pytest_task_without_an_ini_file_validates_natively(tmp_path: Path):
    """No pytest.ini/tox.ini/pyproject section at all (as in many real projects): the run must not depend on one."""
    from tests.helpers.agent import write_task

    root = tmp_path / "tasks"
    write_task(root, "coding/python/no-ini", prompt="Fix pkg.double.", tags=("python",),
               verify_toml='runner = "pytest"\npythonpath = ["src"]\ntests = ["tests/test_double.py::test_double"]',
               files={"src/pkg/__init__.py": "def double(x):\n    return x + 2\n", "tox.ini": "[tox]\nenvlist = py\n"},
               verify={"tests/test_double.py": "from pkg import double\n\n\ndef test_double():\n"
                                               "    assert double(3) == 6\n"},
               solution={"src/pkg/__init__.py": "def double(x):\n    return 2 * x\n"})
    out = run_cli("agent", "validate", "--native", "--tasks-dir", str(root))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "start state fails in 3 runs (1 of 1 expected test did not pass" in out.stdout
