"""A task's start state: its `workspace/`, on top of a pinned repository for `[repo]` tasks.

A pinned commit comes from the corpus's snapshot of the project (offline, see snapshots.py), or for a
`url` pin from a clone made once on the host into `cache/agent-repos/` and kept as a bare mirror. Each
task gets a checkout of its pin, without `.git` and without the `exclude` globs, with the patch applied
(`-p1`, injecting the bug) and the `prepare` commands run (e.g. `go mod vendor`: the sandbox has no
network). Everything here is trusted task content, so it runs on the host; the agent only ever sees a copy.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
from pathlib import Path

from evaluators.agent.corpus import snapshots
from evaluators.agent.corpus.datasets import Task
from evaluators.core import atomic
from evaluators.core.errors import BadInput, EvaluationFailure

log = logging.getLogger("bananabench")

ENV_CACHE = "BANANABENCH_AGENT_CACHE"
READY = ".bananabench-ready"  # left in a checkout once it is whole


def cache_root() -> Path:
    return Path(os.environ.get(ENV_CACHE) or "cache") / "agent-repos"


def _git(*args: str, cwd: Path | None = None, timeout: float = 1800) -> None:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise EvaluationFailure(f"git {' '.join(args[:2])} failed: {proc.stderr.strip()[-600:]}")


def _mirror(url: str) -> Path:
    path = cache_root() / "mirrors" / f"{hashlib.sha256(url.encode()).hexdigest()[:16]}.git"

    def clone(tmp: Path) -> None:
        log.info("cloning %s once into %s", url, path)
        _git("clone", "--mirror", "--quiet", url, str(tmp))

    return atomic.cached_directory(path, clone)


def _clone(url: str, rev: str, dest: Path) -> None:
    _git("clone", "--quiet", "--no-checkout", str(_mirror(url)), str(dest))
    try:
        _git("checkout", "--quiet", rev, cwd=dest)
    except EvaluationFailure:
        _git("fetch", "--quiet", "origin", rev, cwd=dest)
        _git("checkout", "--quiet", rev, cwd=dest)


def checkout(task: Task) -> Path:
    """The prepared checkout of a `[repo]` task (cached by task hash; made once for runs sharing the cache)."""
    spec = task.repo
    assert spec is not None

    def prepare(tmp: Path) -> None:
        if spec.snapshot:
            assert spec.commit is not None
            snapshots.extract(snapshots.path_of(task.root, spec.snapshot), spec.commit, tmp, cache_root(),
                              exclude=spec.exclude)
        else:
            _clone(spec.url, spec.rev, tmp)
        if spec.patch:
            patch = task.dir / spec.patch
            if not patch.is_file():
                raise BadInput(f"{task.dir / 'task.toml'}: repo.patch: {patch} not found")
            _git("apply", "-p1", str(patch.resolve()), cwd=tmp)
        for command in spec.prepare:
            proc = subprocess.run(command, shell=True, cwd=tmp, capture_output=True, text=True, timeout=3600)
            if proc.returncode != 0:
                raise EvaluationFailure(f"{task.id}: prepare command {command!r} failed: {proc.stderr.strip()[-600:]}")
        shutil.rmtree(tmp / ".git", ignore_errors=True)
        (tmp / READY).write_text((spec.commit or spec.rev or "") + "\n")

    target = cache_root() / "checkouts" / f"{task.id.replace('/', '__')}-{task.hash[:12]}"
    return atomic.cached_directory(target, prepare, marker=READY)


def materialize(task: Task, dest: Path, *, solution: bool = False) -> Path:
    """Write the task's start state (optionally with its solution applied) into an empty `dest`."""
    if dest.exists():
        shutil.rmtree(dest)
    if task.repo is not None:
        source = checkout(task)
        if task.repo.subdir:
            source = source / task.repo.subdir
        shutil.copytree(source, dest, symlinks=True, ignore=shutil.ignore_patterns(READY))
        if task.workspace_dir.is_dir():
            shutil.copytree(task.workspace_dir, dest, symlinks=True, dirs_exist_ok=True)
    else:
        shutil.copytree(task.workspace_dir, dest, symlinks=True)
    if solution:
        apply_solution(task, dest)
    return dest


def apply_solution(task: Task, dest: Path) -> None:
    """Copy `solution/` over the workspace; a `solution.patch` in it is applied with `git apply -p1`."""
    solution = task.solution_dir
    if not solution.is_dir():
        raise BadInput(f"{solution}: no reference solution to validate with")
    patch = solution / "solution.patch"
    shutil.copytree(solution, dest, symlinks=True, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("solution.patch"))
    if patch.is_file():
        # `patch` rather than `git apply`: the workspace is not a git repository.
        proc = subprocess.run(["patch", "-p1", "--forward", "-i", str(patch.resolve())], cwd=dest,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise BadInput(f"{patch}: does not apply: {(proc.stderr or proc.stdout).strip()[-400:]}")
