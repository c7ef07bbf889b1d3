"""The mutation check of `agent validate`: no test input the agent may edit can turn the start state into a pass.

A hidden test that reads a workspace file which nothing restores (BurntSushi/toml's compliance suite under
`internal/toml-test/`, say) can be passed by editing that file instead of fixing the bug: deleting the one
invalid-TOML case the fix is about made the start state pass. So the reference solution's verification
records which staged files its build and tests opened (support/grader/reads.py); every one of them that the
agent could change for the grading — present in the start state, neither restored nor hidden, and not
source code of the task's language — is then deleted, and separately truncated, in a copy of the start
state, and that copy must still fail. Script graders are left out: what they read is the agent's answer.
`unrestored_reads` is the static counterpart `agent lint` warns with: paths named by the hidden tests, and
data a Go package they import embeds, that no restore rule covers, read in the start state (a `[repo]` task's
pinned checkout too).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evaluators.agent.corpus.datasets import Task
from evaluators.agent.grading.verification import VerifyRun
from evaluators.agent.support.grader.stage import restored

SOURCE_SUFFIXES = {
    "unittest": (".py", ".pyi"), "pytest": (".py", ".pyi"), "go": (".go", ".s"), "cargo": (".rs",),
    "node": (".js", ".mjs", ".cjs", ".ts"),
    "cpp": (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".ipp", ".tpp", ".inl"),
}
MAX_MUTATED = 12       # more unrestored inputs than this: restore them, do not mutate them one by one
Verify = Callable[[Path, Path, Path], VerifyRun]     # (workspace, start, scratch) -> the verification


@dataclass
class Mutation:
    """What the check read and tried; `problem` is None when the task passes it."""

    inputs: list[str] = field(default_factory=list)
    tried: int = 0
    problem: str | None = None


def opened_files(stage: Path) -> tuple[set[str], bool]:
    """The staged files the verification's phases opened, and whether that list is complete."""
    opened, complete, found = set(), True, False
    for phase in ("build", "run"):
        path = stage / f"reads-{phase}.json"
        if not path.is_file():
            continue
        found = True
        data = json.loads(path.read_text(encoding="utf-8"))
        opened.update(data.get("opened", []))
        complete = complete and not data.get("overflowed")
    return opened, complete and found


def editable_inputs(task: Task, opened: set[str], start: Path) -> list[str]:
    """The opened files an agent could change for the grading (see the module's docstring)."""
    spec = task.verify
    globs = spec.restore_globs()
    hidden = {p.relative_to(task.verify_dir).as_posix() for p in task.verify_dir.rglob("*")} \
        if task.verify_dir.is_dir() else set()
    code = SOURCE_SUFFIXES.get(spec.runner, ())
    return sorted(rel for rel in opened
                  if (start / rel).is_file() and not (start / rel).is_symlink() and rel not in hidden
                  and not restored(rel, globs) and not rel.endswith(code))


def check(task: Task, verify: Verify, start: Path, solution_stage: Path, scratch: Path) -> Mutation:
    """Mutate each editable input the solution's verification (run with watch_reads) opened; the start must fail."""
    if task.verify.runner not in SOURCE_SUFFIXES:
        return Mutation()
    opened, complete = opened_files(solution_stage)
    if not opened and not complete:
        return Mutation(problem="the solution's verification did not list the files it opened")
    inputs = editable_inputs(task, opened, start)
    result = Mutation(inputs=inputs)
    if not complete:
        result.problem = "the list of files the tests opened overflowed; the check is incomplete"
        return result
    if len(inputs) > MAX_MUTATED:
        result.problem = (f"the hidden tests read {len(inputs)} workspace files that nothing restores (first: "
                          f"{inputs[0]}): add them to [verify] restore")
        return result
    for n, rel in enumerate(inputs):
        for how in ("deleted", "truncated"):
            copy = scratch / f"mutant-{n}-{how}"
            shutil.copytree(start, copy / "ws", symlinks=True)
            if how == "deleted":
                (copy / "ws" / rel).unlink()
            else:
                (copy / "ws" / rel).write_bytes(b"")
            run = verify(copy / "ws", start, copy / "stage")
            result.tried += 1
            shutil.rmtree(copy, ignore_errors=True)
            if run.verdict.passed:
                result.problem = (f"the start state passes when {rel} is {how}: the hidden tests read it and "
                                  "nothing restores it (add it to [verify] restore)")
                return result
    return result


_LITERAL = re.compile(r"""["'`]([A-Za-z0-9_][A-Za-z0-9_./-]{1,200})["'`]""")
_EMBED = re.compile(r"^//go:embed\s+(.+)$", re.M)
_MODULE = re.compile(r"^module\s+(\S+)", re.M)
_TEXT_CAP = 1 << 20


class StartState:
    """A task's start state read in place: layers (its `workspace/` over its pinned checkout, say), the first
    layer holding a path answering for it, as materializing them one over the other would."""

    def __init__(self, layers: Sequence[Path]):
        self.layers = [layer for layer in layers if layer.is_dir()]

    def path(self, rel: str) -> Path | None:
        return next((layer / rel for layer in self.layers if os.path.lexists(layer / rel)), None)

    def is_file(self, rel: str) -> bool:
        path = self.path(rel)
        return path is not None and path.is_file() and not path.is_symlink()

    def files_under(self, rel: str) -> list[str]:
        """Every file under folder `rel` (none when it is no folder in any layer, or a link)."""
        found = set()
        for layer in self.layers:
            if (layer / rel).is_dir() and not (layer / rel).is_symlink():
                found.update(p.relative_to(layer).as_posix() for p in (layer / rel).rglob("*") if p.is_file())
        return sorted(found)

    def glob(self, folder: str, pattern: str) -> list[str]:
        return sorted({p.relative_to(layer).as_posix() for layer in self.layers if (layer / folder).is_dir()
                       for p in (layer / folder).glob(pattern)})

    def text(self, rel: str) -> str | None:
        path = self.path(rel)
        return None if path is None else _text(path)


def _editable(task: Task, start: StartState, rel: str, hidden: set[str]) -> bool:
    code = SOURCE_SUFFIXES.get(task.verify.runner, ())
    return start.is_file(rel) and rel not in hidden and not restored(rel, task.verify.restore_globs()) \
        and not rel.endswith(code)


def _editable_under(task: Task, start: StartState, rel: str, hidden: set[str]) -> list[str]:
    return [f for f in start.files_under(rel) or [rel] if _editable(task, start, f, hidden)]


def unrestored_reads(task: Task, layers: Sequence[Path] | None = None) -> list[str]:
    """Warnings: start-state data the hidden tests name or embed that the agent could edit (static, heuristic).
    `layers` are where the start state lies (default: the task's `workspace/` alone)."""
    start, verify = StartState([task.workspace_dir] if layers is None else layers), task.verify_dir
    if task.verify.runner not in SOURCE_SUFFIXES or not start.layers or not verify.is_dir():
        return []
    hidden = {p.relative_to(verify).as_posix() for p in verify.rglob("*")}
    module = _MODULE.search(start.text("go.mod") or "")
    found: dict[str, str] = {}
    for test in sorted(p for p in verify.rglob("*") if p.is_file()):
        rel_test = test.relative_to(verify).as_posix()
        text = _text(test)
        if text is None:
            continue
        for literal in set(_LITERAL.findall(text)):
            for rel in {posixpath.normpath(literal), posixpath.normpath(posixpath.join(posixpath.dirname(rel_test),
                                                                                       literal))}:
                if not rel.startswith("../") and rel != ".":
                    for data in _editable_under(task, start, rel, hidden)[:3]:
                        found.setdefault(data, f"verify/{rel_test} names {literal!r}")
                    if module and literal.startswith(module.group(1) + "/"):
                        for data in _embedded(task, start, literal[len(module.group(1)) + 1:], hidden)[:3]:
                            found.setdefault(data, f"verify/{rel_test} imports {literal}, which embeds it")
    return [f"{task.dir / 'task.toml'}: verify.restore: {why}: {data} is a test input nothing restores"
            for data, why in sorted(found.items())]


def _embedded(task: Task, start: StartState, package: str, hidden: set[str]) -> list[str]:
    """Editable files a Go package embeds with //go:embed."""
    out = []
    for source in start.glob(package, "*.go"):
        for line in _EMBED.findall(start.text(source) or ""):
            for pattern in line.split():
                for match in start.glob(package, pattern.strip('"`')):
                    out += _editable_under(task, start, match, hidden)
    return out


def _text(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            data = fh.read(_TEXT_CAP)
    except OSError:
        return None
    return None if b"\0" in data else data.decode("utf-8", errors="replace")
