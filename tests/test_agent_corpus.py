"""The banana-benchmark task corpus in tasks/agent: its shape, its scheme, and that every task is valid.

Validity is the real check: each task must fail on its start state and pass with its reference solution
(`agent validate --native`, one test per task), and the quick subset must also validate in podman.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evaluators.agent import datasets, lint
from tests.conftest import REPO, run_cli
from tests.helpers.agent import needs_podman

TASKS = REPO / "tasks" / "agent"
ALL = datasets.load_tasks(TASKS)
BY_ID = {t.id: t for t in ALL if not t.category.startswith("aoc/")}  # user-imported AoC tasks are not ours
EXPECTED = {"smoke": 1, "coding": 15, "feature/small-project": 6, "large-project": 10, "frontend": 5, "review": 3}
LEFTOVERS = {"__pycache__", "target", "node_modules", "build", ".pytest_cache", "Cargo.lock"}


def group(category: str) -> str:
    if category.startswith("coding/"):
        return "coding"
    if category.endswith("/large-project"):
        return "large-project"
    return category


def test_forty_tasks_in_the_planned_categories():
    assert len(BY_ID) == 40
    assert Counter(group(t.category) for t in BY_ID.values()) == EXPECTED
    coding = Counter(t.category for t in BY_ID.values() if t.category.startswith("coding/"))
    assert coding == {"coding/python": 4, "coding/go": 4, "coding/rust": 5, "coding/cpp": 2}
    large = Counter(t.category for t in BY_ID.values() if t.category.endswith("large-project"))
    assert sum(large.values()) == 10 and len(large) == 3


def test_scheme_and_tags():
    assert lint.lint(BY_ID.values()) == []
    quick = [t for t in BY_ID.values() if "quick" in t.tags]
    assert len(quick) == 13
    assert {group(t.category) for t in quick} == set(EXPECTED)  # a first impression of every kind of task
    languages = Counter(next(tag for tag in t.tags if tag in lint.LANGUAGES) for t in BY_ID.values())
    assert {"python", "go", "rust", "cpp", "javascript", "html"} <= set(languages)
    assert sum("hard" in t.tags for t in BY_ID.values()) >= 8


def test_task_contents():
    for task in BY_ID.values():
        assert len(task.prompt) > 150, f"{task.id}: prompt too short to read like a real request"
        assert task.solution_dir.is_dir() and any(task.solution_dir.rglob("*")), task.id
        assert task.verify_dir.is_dir() and any(task.verify_dir.rglob("*")), task.id
        assert task.verify.timeout_s <= 300 and task.verify.tests, task.id
        for path in task.dir.rglob("*"):
            assert path.name not in LEFTOVERS, f"{path}: build leftovers in a task"
        if task.category == "frontend":
            assert task.manual and task.checklist is not None and task.screenshot is not None, task.id
        if task.category == "review":
            assert (task.verify_dir / "grade_review.py").is_file(), task.id
            assert (task.solution_dir / "REVIEW.md").is_file(), task.id
    assert sum(t.screenshot.mobile_width is not None for t in BY_ID.values() if t.screenshot) >= 2


def test_list_and_lint_cli():
    listing = run_cli("agent", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    ids = [json.loads(line)["id"] for line in listing.stdout.splitlines()]
    assert set(BY_ID) <= set(ids)
    quick = run_cli("agent", "list", "--tag", "quick")
    assert len([line for line in quick.stdout.splitlines() if not line.startswith("aoc/")]) == 13
    checked = run_cli("agent", "lint")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _marks(task_id: str) -> list:
    marks = [pytest.mark.slow]
    if task_id.startswith("frontend/"):
        marks.append(pytest.mark.browser)
    return marks


@pytest.mark.parametrize("task_id", [pytest.param(i, marks=_marks(i)) for i in sorted(BY_ID)])
def test_validate_native(task_id: str, tmp_path: Path):
    out = run_cli("agent", "validate", "--native", task_id, env={"BANANABENCH_AGENT_CACHE": str(tmp_path)})
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.slow
@pytest.mark.podman
@pytest.mark.browser
@needs_podman
def test_quick_subset_validates_in_podman():
    quick = sorted(i for i, t in BY_ID.items() if "quick" in t.tags)
    out = run_cli("agent", "validate", "--json", *quick)
    assert out.returncode == 0, out.stdout + out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert sorted(r["task"] for r in rows) == quick and all(r["ok"] for r in rows)
