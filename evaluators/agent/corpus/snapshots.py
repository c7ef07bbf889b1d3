"""One stored copy per upstream project: `repos/<owner>+<name>.pack` under the tasks root.

A snapshot is a git pack holding exactly the commits that the corpus's tasks pin (`[repo] snapshot`,
`commit`), each with its whole tree and none of its history: a task needs its start state, not the
project's past, and a model must not find the fix in later commits. Git names every object by the hash
of its content, so a commit found in the unpacked snapshot under the pinned id is that commit.
`agent snapshot OWNER+NAME --from GITDIR` (re)builds a snapshot from any local clone holding those commits.
"""

from __future__ import annotations

import hashlib
import subprocess
import tarfile
from collections.abc import Iterable
from pathlib import Path

from evaluators.agent.corpus import ghimport
from evaluators.core import atomic
from evaluators.core.errors import BadInput, EvaluationFailure

SNAPSHOT_DIR = "repos"
SUFFIX = ".pack"
READY = "bananabench-ready"  # left in an unpacked snapshot once it is whole


def path_of(root: Path, name: str) -> Path:
    return root / SNAPSHOT_DIR / f"{name}{SUFFIX}"


def _git(*args: str, cwd: Path | None = None, stdin: bytes | None = None) -> bytes:
    proc = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, timeout=1800)
    if proc.returncode != 0:
        raise EvaluationFailure(f"git {' '.join(args[:2])} failed: {proc.stderr.decode(errors='replace').strip()[-600:]}")
    return proc.stdout


def pinned(tasks: Iterable, name: str) -> dict[str, list[str]]:
    """The commits that tasks pin in snapshot `name`: commit -> ids of the tasks pinning it."""
    commits: dict[str, list[str]] = {}
    for task in tasks:
        if task.repo is not None and task.repo.snapshot == name:
            commits.setdefault(task.repo.commit, []).append(task.id)
    return commits


def build(git_dir: Path, commits: dict[str, list[str]], dest: Path) -> dict[str, int]:
    """Pack `commits` (with their trees, without history) from the clone at `git_dir` into `dest`."""
    if not commits:
        raise BadInput(f"{dest.name}: no task pins this snapshot ([repo] snapshot = {dest.stem!r})")
    if not (git_dir / "HEAD").exists() and not (git_dir / ".git").exists():
        raise BadInput(f"--from {git_dir}: not a git repository")
    for commit, task_ids in sorted(commits.items()):
        proc = subprocess.run(["git", "-C", str(git_dir), "cat-file", "-e", f"{commit}^{{commit}}"],
                              capture_output=True)
        if proc.returncode != 0:
            raise BadInput(f"{task_ids[0]}: repo.commit {commit} is not in {git_dir}")
    objects = _git("-C", str(git_dir), "rev-list", "--objects", "--no-walk", *sorted(commits))
    pack = _git("-C", str(git_dir), "pack-objects", "--stdout", "-q", "--threads=1", "--window=250", "--depth=50",
                stdin=objects)
    dest.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_bytes(dest, pack, overwrite=True)
    dest.chmod(0o644)  # a file of the repository, like the tasks beside it
    return {"commits": len(commits), "objects": objects.count(b"\n"), "bytes": len(pack)}


def _unpacked(pack: Path, cache: Path) -> Path:
    """A bare repository holding the snapshot's objects (unpacked once per snapshot content)."""
    data = pack.read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:16]

    def unpack(tmp: Path) -> None:
        _git("init", "-q", "--bare", str(tmp))
        _git("index-pack", "--stdin", "--fsck-objects", cwd=tmp, stdin=data)  # checks every object's id
        (tmp / READY).write_text(digest + "\n")

    return atomic.cached_directory(cache / "snapshots" / f"{pack.stem}-{digest}.git", unpack, marker=READY)


def extract(pack: Path, commit: str, dest: Path, cache: Path, *, exclude: Iterable[str] = ()) -> None:
    """Write the tree of `commit` from the snapshot `pack` into the new folder `dest`, leaving out `exclude` globs
    (a glob matching a folder leaves out all of it; top-level licence files always stay, as import-pr keeps them)."""
    if not pack.is_file():
        raise BadInput(f"{pack}: snapshot not found (build it: bananabench agent snapshot {pack.stem} --from GITDIR)")
    bare = _unpacked(pack, cache)
    kind = subprocess.run(["git", "cat-file", "-t", commit], cwd=bare, capture_output=True, text=True)
    if kind.stdout.strip() != "commit":
        raise BadInput(f"{pack}: commit {commit} is not in the snapshot (rebuild it with `agent snapshot`)")
    patterns = tuple(exclude)
    archive = subprocess.Popen(["git", "archive", "--format=tar", commit], cwd=bare, stdout=subprocess.PIPE)
    assert archive.stdout is not None
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=archive.stdout, mode="r|") as tar:
        for member in tar:
            if not ghimport.excluded(member.name, patterns):
                tar.extract(member, dest, filter="tar")
    if archive.wait() != 0:
        raise EvaluationFailure(f"git archive {commit} from {pack} failed")

