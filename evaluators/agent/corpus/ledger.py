"""The validation ledger (`validated.json` in the tasks root): which tasks were proven, under what.

Validating the whole corpus takes many minutes, and most of it does not change between commits. A task's
entry holds a key over everything its validation depends on: the task's files (its pins included), the
code that materializes, runs and judges it, and the versions of the toolchain its runner uses. While the
key matches, `agent validate` skips the task (`--force` validates it anyway); `--record` writes the
results back, so `make validate-tasks` refreshes only what changed. A podman entry also stands for a
native run (the sandbox runs the same host toolchains under more restrictions); a native one does not
stand for podman.
"""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from evaluators.agent.corpus.datasets import Task
from evaluators.core import atomic

FILE = "validated.json"
_AGENT = Path(__file__).resolve().parents[1]
# The code a verdict depends on: materialization, staging, the runners, the verdict and the proof.
_CODE = ("corpus/datasets.py", "corpus/repos.py", "corpus/snapshots.py", "grading/verifyspec.py",
         "grading/verification.py", "grading/verdict.py", "grading/testproof.py", "corpus/validate.py", "support/grader")
_TOOLCHAINS = {
    "unittest": (["python3", "--version"],),
    "pytest": (["python3", "--version"], ["python3", "-c", "import pytest; print(pytest.__version__)"]),
    "go": (["go", "version"],),
    "cargo": (["rustc", "--version"], ["cargo", "--version"]),
    "node": (["node", "--version"],),
    "cpp": (["g++", "--version"],),
    "script": (["python3", "--version"],),
}
_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}  # the runners' toolchains, as they see them


@functools.cache
def code_hash() -> str:
    digest = hashlib.sha256()
    for name in _CODE:
        path = _AGENT / name
        files = sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts) \
            if path.is_dir() else [path]
        for file in files:
            digest.update(file.relative_to(_AGENT).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def toolchain(runner: str) -> str:
    """The first output line of each version command of the runner's toolchain ("missing" when absent)."""
    lines = []
    for cmd in _TOOLCHAINS[runner]:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=_ENV)
            lines.append((proc.stdout or proc.stderr).strip().splitlines()[0] if proc.returncode == 0 else "missing")
        except (OSError, IndexError, subprocess.TimeoutExpired):
            lines.append("missing")
    return "; ".join(lines)


def key(task: Task) -> str:
    parts = (task.hash, code_hash(), toolchain(task.verify.runner))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


class Ledger:
    def __init__(self, root: Path):
        self.path = root / FILE
        self.entries = self._read()
        self._changed: dict[str, dict[str, Any] | None] = {}  # what this process recorded (None: forgotten)

    def _read(self) -> dict[str, dict[str, Any]]:
        return json.loads(self.path.read_text(encoding="utf-8")).get("tasks", {}) if self.path.is_file() else {}

    def holds(self, task: Task, sandbox: str) -> bool:
        """The task was proven with its current files, code and toolchain, in `sandbox` or a stricter one."""
        entry = self.entries.get(task.id)
        return bool(entry) and entry["key"] == key(task) and (entry["sandbox"] == "podman" or sandbox == "native")

    def record(self, task: Task, sandbox: str, result) -> None:
        """Enter a valid result (replacing an entry made in a weaker sandbox only); forget an invalid one."""
        if not result.ok:
            self.entries.pop(task.id, None)
            self._changed[task.id] = None
            return
        old = self.entries.get(task.id)
        if old and old["key"] == key(task) and old["sandbox"] == "podman" and sandbox == "native":
            return
        proof = result.proof
        self.entries[task.id] = {
            "key": key(task), "sandbox": sandbox, "runs": len(result.solution.runs), "toolchain":
            toolchain(task.verify.runner), "seconds": round(result.seconds, 1),
            "validated": time.strftime("%Y-%m-%d", time.gmtime()),
            **({"fail_to_pass": len(proof.fail_to_pass), "pass_to_pass": len(proof.pass_to_pass),
                "flaky": len(proof.flaky), "broken": len(proof.broken), "unrun_at_start": len(proof.unrun)}
               if proof is not None else {}),
        }
        self._changed[task.id] = self.entries[task.id]

    def save(self) -> None:
        """Write this process's results into the file as it is now (another validation may have added its own)."""
        lock = Path(tempfile.gettempdir()) / f"bananabench-ledger-{hashlib.sha256(bytes(self.path.resolve())).hexdigest()[:16]}.lock"
        with atomic.file_lock(lock):
            entries = self._read()
            for task_id, entry in self._changed.items():
                if entry is None:
                    entries.pop(task_id, None)
                else:
                    entries[task_id] = entry
            data = {"about": "tasks proven by `bananabench agent validate --record` (make validate-tasks); "
                             "see evaluators/agent/corpus/ledger.py", "tasks": dict(sorted(entries.items()))}
            atomic.write_text(self.path, json.dumps(data, indent=1) + "\n", overwrite=True)
            self.path.chmod(0o644)  # a file of the repository
            self.entries = entries
