"""Agent tasks: the on-disk format, discovery, selection and a content hash per task.

A task is any directory under the tasks root that holds `task.toml`; its id is the path
relative to the root (`<category>/<name>`, the category may contain slashes). The hash covers
every file of the task, so results from an edited task are never silently compared with
results from the old version.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.agent.grading import verifyspec
from evaluators.agent.grading.verifyspec import VerifySpec
from evaluators.agent.sandbox import limits as limits_mod
from evaluators.core.errors import BadInput, located
from evaluators.core.shipped import shipped

ENV_TASKS = "BANANABENCH_AGENT_TASKS"
DEFAULT_TASKS_DIR = shipped("tasks/agent")  # the project's own tasks
TASK_FILE = "task.toml"
# Files and folders that never belong to a task's identity (editor and build droppings).
_IGNORED = {"__pycache__", ".pytest_cache", ".mypy_cache", ".DS_Store", "node_modules", "target"}
_TOP_KEYS = {"title", "category", "tags", "grade", "verify", "agent", "repo", "screenshot", "network",
             "description", "provenance", "asks_for"}
# Where an imported task's code came from: the project, the fix commit and the licence it is under.
_PROVENANCE_KEYS = {"repository", "commit", "parent", "license", "license_files", "issue", "pull_request",
                    "commit_message", "prepare", "issue_date", "fix_date"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_PROVENANCE_LISTS = {"license_files", "prepare"}
_PROVENANCE_REQUIRED = ("repository", "commit", "license")


@dataclass(frozen=True)
class RepoSpec:
    """A pinned upstream repository the workspace starts from: a snapshot of the corpus
    (`tasks/agent/repos/<snapshot>.pack`, offline) at `commit`, or a clone of `url` at `rev`."""

    url: str | None = None
    rev: str | None = None
    snapshot: str | None = None
    commit: str | None = None
    subdir: str | None = None
    patch: str | None = None
    prepare: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScreenshotSpec:
    """How to photograph a frontend task's page: `path` relative to the workspace."""

    path: str = "index.html"
    build: str | None = None
    width: int = 1280
    height: int = 800
    mobile_width: int | None = None


@dataclass(frozen=True)
class Task:
    id: str
    category: str
    name: str
    dir: Path
    title: str
    tags: tuple[str, ...]
    prompt: str
    verify: VerifySpec
    grade: str = "auto"
    agent: dict[str, Any] = field(default_factory=dict)
    repo: RepoSpec | None = None
    screenshot: ScreenshotSpec | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    asks_for: tuple[str, ...] = ()  # new API names the reported issue asks for (its prompt may name them)
    hash: str = ""

    @property
    def manual(self) -> bool:
        return self.grade == "manual"

    @property
    def workspace_dir(self) -> Path:
        return self.dir / "workspace"

    @property
    def verify_dir(self) -> Path:
        return self.dir / "verify"

    @property
    def solution_dir(self) -> Path:
        return self.dir / "solution"

    @property
    def root(self) -> Path:
        """The tasks root this task was loaded from (its snapshots live in `repos/` there)."""
        return self.dir.parents[self.id.count("/")]

    @property
    def checklist(self) -> Path | None:
        path = self.dir / "checklist.md"
        return path if path.is_file() else None


def tasks_root(explicit: str | os.PathLike | None = None) -> Path:
    """`--tasks-dir`, else `$BANANABENCH_AGENT_TASKS`, else the project's `tasks/agent` (from any working directory)."""
    return Path(explicit or os.environ.get(ENV_TASKS) or DEFAULT_TASKS_DIR)


def discover(root: str | os.PathLike) -> list[Path]:
    """Task directories under `root`, sorted; a task's own subfolders are not searched."""
    root = Path(root)
    if not root.is_dir():
        raise BadInput(f"{root}: tasks directory not found (use --tasks-dir)")
    found = []
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _IGNORED and not d.startswith("."))
        if TASK_FILE in files and Path(current) != root:
            found.append(Path(current))
            dirs[:] = []
    return sorted(found)


def _line_of(text: str, key: str) -> int | None:
    """The line where `key = ...` (or `[key]`) first appears, for error messages."""
    pattern = re.compile(rf"^\s*(\[\s*{re.escape(key)}\s*\]|{re.escape(key)}\s*=)", re.M)
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def content_hash(directory: Path) -> str:
    """SHA-256 over the relative paths, modes and contents of every file of a task."""
    digest = hashlib.sha256()
    for current, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d not in _IGNORED)
        for name in sorted(files):
            if name in _IGNORED or name.endswith(".pyc"):
                continue
            path = Path(current) / name
            rel = path.relative_to(directory).as_posix()
            digest.update(rel.encode() + b"\0")
            if path.is_symlink():
                digest.update(b"L" + os.readlink(path).encode() + b"\0")
                continue
            digest.update(b"X" if os.access(path, os.X_OK) else b"F")
            with open(path, "rb") as fh:
                while block := fh.read(1 << 20):
                    digest.update(block)
            digest.update(b"\0")
    return digest.hexdigest()


def load_task(task_dir: str | os.PathLike, root: str | os.PathLike) -> Task:
    """Parse and validate one task; any problem is a `BadInput` naming file, line and field."""
    task_dir, root = Path(task_dir), Path(root)
    toml_path = task_dir / TASK_FILE
    text = toml_path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{toml_path}: {exc}") from None

    def err(key: str, message: str) -> BadInput:
        return BadInput(located(toml_path, _line_of(text, key.split(".")[-1]), key, message))

    task_id = task_dir.relative_to(root).as_posix()
    if "/" not in task_id:
        raise BadInput(f"{task_dir}: a task lives at <category>/<name> under {root}, not at its top level")
    dir_category, name = task_id.rsplit("/", 1)
    unknown = set(data) - _TOP_KEYS
    if unknown:
        key = sorted(unknown)[0]
        raise err(key, f"unknown field (known: {', '.join(sorted(_TOP_KEYS))})")
    if data.get("network") not in (None, False):
        raise err("network", "tasks get no network access; remove `network = true`")
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise err("title", "required, a non-empty string")
    category = data.get("category")
    if category != dir_category:
        raise err("category", f"must equal the directory's category path {dir_category!r}, not {category!r}")
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
        raise err("tags", "must be a list of non-empty strings")
    grade = data.get("grade", "auto")
    if grade not in ("auto", "manual"):
        raise err("grade", f"must be \"manual\" (or absent), not {grade!r}")
    verify = verifyspec.parse(data.get("verify"), err)
    agent = data.get("agent", {})
    if not isinstance(agent, dict):
        raise err("agent", "must be a table of limit overrides")
    line = _line_of(text, "agent")
    agent = limits_mod.coerce(agent, f"{toml_path}:{line}: agent" if line else f"{toml_path}: agent")
    repo = _repo(data.get("repo"), err)
    screenshot = _screenshot(data.get("screenshot"), err)
    provenance = _provenance(data.get("provenance"), err)
    asks_for = data.get("asks_for", [])
    if not isinstance(asks_for, list) or not all(isinstance(n, str) and n for n in asks_for):
        raise err("asks_for", "must be a list of the API names the issue asks for")

    prompt_path = task_dir / "prompt.md"
    if not prompt_path.is_file() or not prompt_path.read_text(encoding="utf-8").strip():
        raise BadInput(f"{prompt_path}: required, the text the agent receives (missing or empty)")
    if repo is None and not (task_dir / "workspace").is_dir():
        raise BadInput(f"{task_dir / 'workspace'}: required folder of start files (or a [repo] section)")
    for sub in ("verify", "solution"):
        path = task_dir / sub
        if path.exists() and not path.is_dir():
            raise BadInput(f"{path}: must be a folder")
    return Task(
        id=task_id, category=dir_category, name=name, dir=task_dir, title=title.strip(), tags=tuple(tags),
        prompt=prompt_path.read_text(encoding="utf-8"), verify=verify, grade=grade, agent=agent, repo=repo,
        screenshot=screenshot, provenance=provenance, asks_for=tuple(asks_for), hash=content_hash(task_dir),
    )


def _table(section: Any, name: str, known: Sequence[str], err, what: str = "a table") -> dict[str, Any] | None:
    """A sub-table of task.toml: None when absent, else checked to be a table of known fields only."""
    if section is None:
        return None
    if not isinstance(section, dict):
        raise err(name, f"must be {what}")
    unknown = set(section) - set(known)
    if unknown:
        raise err(f"{name}.{sorted(unknown)[0]}", f"unknown field (known: {', '.join(known)})")
    return section


SNAPSHOT_NAME = re.compile(r"^[A-Za-z0-9_.-]+\+[A-Za-z0-9_.-]+$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


def _repo(section: Any, err) -> RepoSpec | None:
    section = _table(section, "repo", ("snapshot", "commit", "url", "rev", "subdir", "patch", "prepare", "exclude"),
                     err, "a table with snapshot and commit (or url and rev)")
    if section is None:
        return None
    pinned = ("snapshot", "commit") if "snapshot" in section or "commit" in section else ("url", "rev")
    for key in pinned:
        if not isinstance(section.get(key), str) or not section[key]:
            raise err(f"repo.{key}", "required, a non-empty string")
    if pinned[0] == "snapshot":
        if "url" in section or "rev" in section:
            raise err("repo.url" if "url" in section else "repo.rev", "a task pins a snapshot or a url, not both")
        if not SNAPSHOT_NAME.match(section["snapshot"]):
            raise err("repo.snapshot", f"must be OWNER+NAME (a file under repos/), not {section['snapshot']!r}")
        if not _COMMIT.match(section["commit"]):
            raise err("repo.commit", f"must be a full 40-digit lowercase commit id, not {section['commit']!r}")
    elif "exclude" in section:
        raise err("repo.exclude", "applies to snapshot pins only")
    lists = {}
    for key in ("prepare", "exclude"):
        value = section.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
            raise err(f"repo.{key}", "must be a string or a list of non-empty strings")
        lists[key] = tuple(value)
    for key in ("subdir", "patch"):
        value = section.get(key)
        if value is not None and (not isinstance(value, str) or value.startswith("/") or ".." in value.split("/")):
            raise err(f"repo.{key}", "must be a relative path inside the task")
    return RepoSpec(url=section.get("url"), rev=section.get("rev"), snapshot=section.get("snapshot"),
                    commit=section.get("commit"), subdir=section.get("subdir"), patch=section.get("patch"),
                    prepare=lists["prepare"], exclude=lists["exclude"])


def _provenance(section: Any, err) -> dict[str, Any]:
    section = _table(section, "provenance", sorted(_PROVENANCE_KEYS), err, "a table (repository, commit, license, ...)")
    if section is None:
        return {}
    for key in _PROVENANCE_REQUIRED:
        if not isinstance(section.get(key), str) or not section[key].strip():
            raise err(f"provenance.{key}", "required, a non-empty string")
    for key, value in section.items():
        if key in _PROVENANCE_LISTS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise err(f"provenance.{key}", "must be a list of strings")
        elif not isinstance(value, str):
            raise err(f"provenance.{key}", "must be a string")
        elif key.endswith("_date") and not _DATE.match(value):
            raise err(f"provenance.{key}", f"must be a date YYYY-MM-DD, not {value!r}")
    return dict(section)


def _screenshot(section: Any, err) -> ScreenshotSpec | None:
    section = _table(section, "screenshot", ("path", "build", "width", "height", "mobile_width"), err)
    if section is None:
        return None
    path = section.get("path", "index.html")
    if not isinstance(path, str) or path.startswith("/") or ".." in path.split("/"):
        raise err("screenshot.path", "must be a page path relative to the workspace")
    build = section.get("build")
    if build is not None and not isinstance(build, str):
        raise err("screenshot.build", "must be a shell command")
    sizes = {}
    for key, default in (("width", 1280), ("height", 800), ("mobile_width", None)):
        value = section.get(key, default)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 100 <= value <= 8000):
            raise err(f"screenshot.{key}", f"must be a whole number of pixels from 100 to 8000, not {value!r}")
        sizes[key] = value
    return ScreenshotSpec(path=path, build=build, **sizes)


def load_tasks(root: str | os.PathLike) -> list[Task]:
    """Every task under `root` (the first invalid task stops with its error)."""
    root = Path(root)
    return [load_task(d, root) for d in discover(root)]


def _any_match(value: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(value, p) for p in patterns)


def select(tasks: Iterable[Task], *, only: Sequence[str] = (), exclude: Sequence[str] = (),
           categories: Sequence[str] = (), tags: Sequence[str] = ()) -> list[Task]:
    """Filter by globs: each option repeats (OR within it); different options combine with AND."""
    chosen = []
    for task in tasks:
        if only and not _any_match(task.id, only):
            continue
        if exclude and _any_match(task.id, exclude):
            continue
        if categories and not (_any_match(task.category, categories)
                               or any(task.category.startswith(c.rstrip("/") + "/") for c in categories)):
            continue
        if tags and not any(_any_match(t, tags) for t in task.tags):
            continue
        chosen.append(task)
    return chosen
