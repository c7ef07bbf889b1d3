"""The banana-benchmark task corpus in tasks/agent: its shape, its scheme, and that every task is valid.

Validity is the real check: each task must fail on its start state and pass with its reference solution
(`agent validate --native`, one test per task), and the quick subset must also validate in podman. Real-issue
tasks must say where their code comes from, under which licence, and describe the problem in their own words.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evaluators.agent import datasets, ghimport, licences, lint
from tests.conftest import REPO, run_cli
from tests.helpers.agent import needs_podman

TASKS = REPO / "tasks" / "agent"
ALL = datasets.load_tasks(TASKS)
BY_ID = {t.id: t for t in ALL if not t.category.startswith("aoc/")}  # user-imported AoC tasks are not ours
EXPECTED = {"smoke": 1, "coding": 16, "feature/small-project": 6, "large-project": 10, "frontend": 5, "review": 4,
            "issue/bugfix": 22, "issue/feature": 6}
REAL = {i: t for i, t in BY_ID.items() if "real-issue" in t.tags}
LEFTOVERS = {"__pycache__", "target", "node_modules", "build", ".pytest_cache", "Cargo.lock"}


def group(category: str) -> str:
    if category.startswith("coding/"):
        return "coding"
    if category.endswith("/large-project"):
        return "large-project"
    return category


def test_seventy_tasks_in_the_planned_categories():
    assert len(BY_ID) == 70
    assert Counter(group(t.category) for t in BY_ID.values()) == EXPECTED
    coding = Counter(t.category for t in BY_ID.values() if t.category.startswith("coding/"))
    assert coding == {"coding/python": 4, "coding/go": 4, "coding/rust": 5, "coding/cpp": 3}
    large = Counter(t.category for t in BY_ID.values() if t.category.endswith("large-project"))
    assert sum(large.values()) == 10 and len(large) == 3


def test_real_issue_tasks_come_from_several_real_projects():
    assert len(REAL) >= 20 and all(t.category.startswith("issue/") for t in REAL.values())
    projects = Counter(t.provenance["repository"] for t in REAL.values())
    assert len(projects) >= 5 and max(projects.values()) <= 6, projects
    languages = {next(tag for tag in t.tags if tag in lint.LANGUAGES) for t in REAL.values()}
    assert {"python", "go"} <= languages
    kinds = Counter(t.category for t in REAL.values())
    assert kinds["issue/bugfix"] > kinds["issue/feature"] > 0


@pytest.mark.parametrize("task_id", sorted(REAL))
def test_real_issue_task_provenance_licence_and_own_words(task_id: str):
    task = REAL[task_id]
    provenance = task.provenance
    assert provenance["repository"].startswith("https://github.com/"), task_id
    assert len(provenance["commit"]) == 40 and len(provenance["parent"]) == 40, task_id
    assert provenance["license"] in {"MIT", "BSD-3-Clause", "Apache-2.0 OR MIT"}, task_id
    for name in provenance["license_files"]:  # the licence travels with the code it covers
        text = (task.workspace_dir / name).read_text(encoding="utf-8")
        assert licences.identify(text) in provenance["license"].split(" OR "), (task_id, name)
    assert task.repo is None and task.workspace_dir.is_dir(), f"{task_id}: must stand alone, not pin a repository"
    assert (task.solution_dir / "solution.patch").is_file(), task_id
    assert provenance["commit_message"].strip(), task_id
    assert ghimport.shared_sentences(task.prompt, provenance["commit_message"]) == [], task_id
    assert ghimport.shared_sentences(task.title, provenance["commit_message"]) == [], task_id
    for path in task.dir.rglob("*"):
        if path.is_file() and path.suffix in {".toml", ".md", ".py", ".go", ".rs", ".cfg", ".ini", ".txt"}:
            assert "/work/shared" not in path.read_text(encoding="utf-8", errors="replace"), path


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
    assert len([line for line in quick.stdout.splitlines() if not line.startswith("aoc/")]) == 15
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
