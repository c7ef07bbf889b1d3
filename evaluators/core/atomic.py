"""Atomic file outputs: write a temp file beside the target, fsync, rename.

A reader never sees a half-written file, and an existing final output is never
silently replaced: callers must say `overwrite=True`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput


def write_bytes(path: str | os.PathLike, data: bytes, *, overwrite: bool = False) -> Path:
    path = Path(path)
    if path.exists() and not overwrite:
        raise BadInput(f"{path}: already exists; refusing to overwrite it")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            # link() fails if the target appeared meanwhile: no silent overwrite even in a race.
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise BadInput(f"{path}: already exists; refusing to overwrite it") from None
            finally:
                os.unlink(tmp)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def write_text(path: str | os.PathLike, text: str, *, overwrite: bool = False) -> Path:
    return write_bytes(path, text.encode("utf-8"), overwrite=overwrite)


def write_json(path: str | os.PathLike, obj: Any, *, overwrite: bool = False) -> Path:
    text = json.dumps(obj, indent=2, sort_keys=False, ensure_ascii=False, default=str, allow_nan=False)
    return write_text(path, text + "\n", overwrite=overwrite)


@contextlib.contextmanager
def staged_directory(dest: str | os.PathLike) -> Iterator[Path]:
    """Build a folder beside `dest`, then swap it into place; on error nothing of it remains.

    The caller decides beforehand whether replacing an existing `dest` is allowed.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        yield tmp
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def cached_directory(dest: str | os.PathLike, build: Callable[[Path], None], *, marker: str | None = None) -> Path:
    """`dest`, made by `build(tmp)` (which creates folder `tmp` beside it) and renamed into place, unless it is there.

    For caches that processes share: the first one takes a lock beside `dest` and builds; the others wait on the
    lock and use what it built, so no process removes or replaces a folder another may be reading. With `marker`,
    a folder is finished when `build` has left that file in it (else: when it exists)."""
    dest = Path(dest)

    def finished() -> bool:
        return (dest / marker).exists() if marker else dest.exists()

    if finished():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(dest.with_name(dest.name + ".lock")):
        if finished():
            return dest
        tmp = dest.with_name(dest.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)  # left by a build that died
        try:
            build(tmp)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        shutil.rmtree(dest, ignore_errors=True)  # unfinished: an older layout's
        tmp.rename(dest)
    return dest


def require_writable(path: str | os.PathLike, flag: str) -> None:
    """BadInput (exit 2) unless files can be created in folder `path` (or, if it does not exist yet, in its
    nearest existing parent, where it would be created). Checked before any work, so a read-only
    `--results` or `--out` never fails halfway; the probe file is removed at once."""
    path = Path(path)
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise BadInput(f"{flag} {path}: {existing} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(prefix=".bananabench-write-check-", dir=existing)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        where = "" if existing == path else f" (its parent {existing})"
        raise BadInput(f"{flag} {path}: not writable{where}: {exc.strerror or exc}") from None


def read_jsonl(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """The JSON objects of an append-only log; a torn line (a crash mid-write) is skipped."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict):
                yield record


@contextlib.contextmanager
def file_lock(path: str | os.PathLike) -> Iterator[None]:
    """Hold an exclusive flock on `path` (created if absent); the kernel releases it if the process dies."""
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
