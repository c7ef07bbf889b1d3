"""`agent lint`: the category and tag scheme every task must follow.

Categories: `smoke`, `coding/<sub>`, `feature/small-project`, `feature/large-project`,
`bugfix/large-project`, `refactor/large-project`, `issue/bugfix`, `issue/feature`, `frontend`,
`review`, `aoc/<year>`. Every task has exactly one language tag; tasks of the project categories
(feature/*, bugfix/*, refactor/*, issue/*) also have exactly one kind, one size and one origin tag;
real-issue tasks one difficulty tag measured by `agent measure` (trivial|easy|medium|hard).
Every task lists the tests its verification expects (`[verify] tests`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from evaluators.agent.corpus import repos
from evaluators.agent.corpus.datasets import Task
from evaluators.core.errors import BadInput, EvaluationFailure

LANGUAGES = frozenset({
    "python", "go", "rust", "cpp", "c", "javascript", "typescript", "java", "html", "shell", "kotlin",
    "ruby", "php", "csharp", "swift", "haskell", "ocaml", "lua", "sql", "zig", "scala", "elixir", "r",
})
KINDS = frozenset({"bugfix", "feature", "refactor"})
SIZES = frozenset({"large", "small"})
ORIGINS = frozenset({"real-issue", "synthetic"})
MARKERS = frozenset({"hard", "quick", "manual"})
DIFFICULTIES = frozenset({"trivial", "easy", "medium", "hard"})  # measured (agent measure): real-issue tasks
FIXED_CATEGORIES = frozenset({
    "smoke", "feature/small-project", "feature/large-project", "bugfix/large-project",
    "refactor/large-project", "issue/bugfix", "issue/feature", "frontend", "review",
})
PROJECT_PREFIXES = ("feature/", "bugfix/", "refactor/", "issue/")
_CODING = re.compile(r"^coding/[a-z0-9][a-z0-9+-]*$")
_AOC = re.compile(r"^aoc/\d{4}$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


def category_ok(category: str) -> bool:
    return category in FIXED_CATEGORIES or bool(_CODING.match(category) or _AOC.match(category))


def lint_task(task: Task) -> list[str]:
    """Problems with one task's category and tags (empty when it follows the scheme)."""
    problems = []
    where = f"{task.dir / 'task.toml'}"
    if not category_ok(task.category):
        problems.append(f"{where}: category: {task.category!r} is not in the scheme "
                        f"({', '.join(sorted(FIXED_CATEGORIES))}, coding/<sub>, aoc/<year>)")
    if not _NAME.match(task.name):
        problems.append(f"{where}: name: {task.name!r} must be lowercase letters, digits, '.', '_' or '-'")
    tags = list(task.tags)
    if len(set(tags)) != len(tags):
        problems.append(f"{where}: tags: duplicate tags in {tags}")
    known = LANGUAGES | KINDS | SIZES | ORIGINS | MARKERS | DIFFICULTIES
    for tag in tags:
        if tag not in known:
            problems.append(f"{where}: tags: unknown tag {tag!r}")
    languages = [t for t in tags if t in LANGUAGES]
    if len(languages) != 1:
        problems.append(f"{where}: tags: needs exactly one language tag, has {languages or 'none'}")
    project = task.category.startswith(PROJECT_PREFIXES)
    for group, name in ((KINDS, "kind"), (SIZES, "size"), (ORIGINS, "origin")):
        present = [t for t in tags if t in group]
        if project and len(present) != 1:
            problems.append(f"{where}: tags: a {task.category} task needs exactly one {name} tag "
                            f"({'|'.join(sorted(group))}), has {present or 'none'}")
        if not project and present:
            problems.append(f"{where}: tags: {name} tags {present} belong to project categories only")
    if "real-issue" in tags and len([t for t in tags if t in DIFFICULTIES]) != 1:
        problems.append(f"{where}: tags: a real-issue task needs exactly one measured difficulty tag "
                        f"({'|'.join(sorted(DIFFICULTIES))}; `bananabench agent measure --write-tags`)")
    if "manual" in tags and not task.manual:
        problems.append(f"{where}: tags: the `manual` tag marks tasks with grade = \"manual\" only")
    if task.category == "frontend" and not task.manual:
        problems.append(f"{where}: grade: frontend tasks are graded by hand (grade = \"manual\")")
    if task.manual and task.screenshot is None:
        problems.append(f"{where}: screenshot: a manual task needs a [screenshot] section")
    if (ignored := ignored_args(task.verify.runner, task.verify.args)) is not None:
        problems.append(f"{where}: verify.args: {ignored}")
    if not task.verify.tests:
        problems.append(f"{where}: verify.tests: no expected tests (fill them in with "
                        f"`bananabench agent validate --write-tests {task.id}`)")
    return problems


def lint(tasks: Iterable[Task]) -> list[str]:
    return [p for task in tasks for p in lint_task(task)]


def warnings(tasks: Iterable[Task]) -> list[str]:
    """Findings that do not make a task invalid but deserve a look: test inputs the agent could edit, in the start
    state as validation materializes it (a `[repo]` task's pinned checkout under its `workspace/`)."""
    from evaluators.agent.grading.mutation import unrestored_reads

    found = []
    for task in tasks:
        layers = [task.workspace_dir]
        if task.repo is not None:
            try:
                layers.append(start_checkout(task))
            except (BadInput, EvaluationFailure) as exc:
                found.append(f"{task.dir / 'task.toml'}: repo: the start state could not be read: {exc}")
                continue
        found += unrestored_reads(task, layers)
    return found


def start_checkout(task: Task) -> Path:
    """The prepared checkout of a `[repo]` task's pin, made once from its snapshot (offline) and cached under
    $BANANABENCH_AGENT_CACHE, as validation makes it; a `url` pin is not cloned for a lint."""
    spec = task.repo
    assert spec is not None
    if not spec.snapshot:
        raise BadInput(f"a url pin ({spec.url}) would need the network; pin a snapshot instead")
    checkout = repos.checkout(task)
    return checkout / spec.subdir if spec.subdir else checkout


def ignored_args(runner: str, args: Sequence[str]) -> str | None:
    """Why the runner would drop `args` without a word (None when it uses them): only pytest's run and cargo's
    build take arguments; every other runner starts its tests itself, and selects them by `targets`."""
    if not args or runner == "pytest":
        return None
    if runner != "cargo":
        return f"the {runner} runner passes no arguments to its tests; select them with `targets` and `tests`"
    if "--" in args:
        return ("arguments after `--` would reach libtest, but the cargo runner starts the test executables itself "
                "without them; select tests with `targets` and `tests`")
    return None
