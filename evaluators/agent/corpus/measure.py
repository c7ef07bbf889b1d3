"""How big a real-issue task is, measured: the fix's size and spread, and the code the solver must search.

A fix's size counts only source files (test files and prose such as changelogs left out): the files it
touches, the non-blank lines it adds and removes, and the places it changes (distinct enclosing functions, as git
names them in hunk headers). The repository's size is the lines of source a solver must search in the
start state. The rule that turns these into a size tag and a difficulty tag is written once here and in
tasks/agent/README.md ("Difficulty and size"); `agent measure --write-tags` applies it and a corpus
test checks that every task's tags follow it.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from evaluators.agent.corpus import ghimport, repos
from evaluators.agent.corpus.datasets import Task

DIFFICULTIES = ("trivial", "easy", "medium", "hard")
LARGE_REPOSITORY = 10_000  # lines of source: at or above, the task is `large`
HUGE_REPOSITORY = 50_000  # lines of source: at or above, finding the place is itself work (one level harder)
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(?P<context>.*)$")


@dataclass(frozen=True)
class Size:
    files: int  # source files the fix changes
    lines: int  # non-blank source lines it adds or removes
    places: int  # distinct enclosing functions (or file tops) its hunks change
    repository: int  # lines of source in the start state

    @property
    def size(self) -> str:
        return "large" if self.repository >= LARGE_REPOSITORY else "small"

    @property
    def difficulty(self) -> str:
        if self.files == 1 and self.places == 1 and self.lines <= 6:
            level = 0
        elif self.files == 1 and self.places <= 2 and self.lines <= 25:
            level = 1
        elif self.files >= 4 or self.places >= 6 or self.lines > 80:
            level = 3
        else:
            level = 2
        if self.repository >= HUGE_REPOSITORY:
            level = min(level + 1, 3)
        return DIFFICULTIES[level]


def is_source(path: str) -> bool:
    return ghimport.is_code_path(path) and not ghimport.is_test_path(path)


def fix_size(patch: str) -> tuple[int, int, int]:
    """(source files, changed lines, places) of a unified diff."""
    files: set[str] = set()
    places: set[tuple[str, str]] = set()
    lines = 0
    for path, _status, chunk in ghimport.split_diff(patch):
        if not is_source(path):
            continue
        files.add(path)
        for line in chunk.splitlines():
            hunk = _HUNK.match(line)
            if hunk:
                context = hunk.group("context").strip()
            elif line[:1] in "+-" and not line.startswith(("+++", "---")) and line[1:].strip():
                lines += 1
                places.add((path, context))
    return len(files), lines, len(places)


def repository_lines(folder: Path) -> int:
    total = 0
    for current, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "vendor", "target")]
        for name in names:
            path = Path(current) / name
            if is_source(path.relative_to(folder).as_posix()) and not path.is_symlink():
                with open(path, "rb") as fh:
                    total += fh.read().count(b"\n")
    return total


def measure(task: Task) -> Size | None:
    """The task's measured size (None without `solution/solution.patch`)."""
    patch = task.solution_dir / "solution.patch"
    if not patch.is_file():
        return None
    files, lines, places = fix_size(patch.read_text(encoding="utf-8", errors="replace"))
    start = repos.checkout(task) if task.repo is not None else task.workspace_dir
    if task.repo is not None and task.repo.subdir:
        start = start / task.repo.subdir
    return Size(files, lines, places, repository_lines(start))


def expected_tags(task: Task, size: Size) -> list[str]:
    """The task's tags with its size and difficulty set by the rule: language, kind, size, origin, difficulty, ..."""
    kept = [t for t in task.tags if t not in DIFFICULTIES and t not in ("large", "small")]
    kept.insert(min(2, len(kept)), size.size)
    kept.insert(min(4, len(kept)), size.difficulty)
    return kept


def row(task: Task, size: Size) -> dict:
    """The per-task line of `agent measure`: project, fix size, tags, dates, proven test counts."""
    prov = task.provenance
    return {"task": task.id, "project": prov.get("repository", "").removeprefix("https://github.com/"),
            **asdict(size), "size": size.size, "difficulty": size.difficulty,
            "tagged": ",".join(t for t in task.tags if t in DIFFICULTIES or t in ("large", "small")),
            "issue_date": prov.get("issue_date", ""), "fix_date": prov.get("fix_date", ""),
            "fail_to_pass": len(task.verify.fail_to_pass), "pass_to_pass": len(task.verify.pass_to_pass),
            "flaky": len(task.verify.flaky)}


def set_tags(text: str, tags: list[str]) -> str:
    """A task.toml's text with its `tags = [...]` line replaced."""
    line = "tags = [" + ", ".join(f'"{t}"' for t in tags) + "]"
    new, n = re.subn(r"^tags\s*=\s*\[[^\]]*\]", line, text, count=1, flags=re.M)
    if n != 1:
        raise ValueError("no one-line tags array")
    return new
