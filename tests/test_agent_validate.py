"""`agent validate` (podman and --native), `run --dry-run`, and the CLI's bad-input paths."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.agent_support import FIXTURES, needs_podman
from tests.conftest import run_cli


@pytest.fixture
def broken_tasks(tmp_path: Path) -> Path:
    root = tmp_path / "tasks"
    shutil.copytree(FIXTURES, root)
    # a start state that already passes, and a solution that does not
    (root / "smoke" / "hello" / "workspace" / "hello.txt").write_text("hello banana\n")
    (root / "coding" / "python" / "digit-sum" / "solution" / "digits.py").write_text(
        "def digit_sum(n):\n    return 0\n")
    return root


@pytest.mark.browser
def test_validate_native(broken_tasks: Path):
    good = run_cli("agent", "validate", "--native", "--tasks-dir", str(FIXTURES))
    assert good.returncode == 0, good.stdout + good.stderr
    assert "WITHOUT isolation" in good.stderr and "page loads" in good.stdout
    bad = run_cli("agent", "validate", "--native", "--tasks-dir", str(broken_tasks), "smoke/*", "coding/*")
    assert bad.returncode == 2
    assert "FAIL smoke/hello: start state PASSES" in bad.stdout
    assert "FAIL coding/python/digit-sum" in bad.stdout and "solution FAILS" in bad.stdout
    assert "0/2 task(s) valid" in bad.stderr


@pytest.mark.slow
@pytest.mark.podman
@needs_podman
def test_validate_in_podman(broken_tasks: Path):
    good = run_cli("agent", "validate", "--tasks-dir", str(FIXTURES), "--json")
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.count('"ok": true') == 3
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
