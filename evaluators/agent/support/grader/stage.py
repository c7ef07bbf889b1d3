"""Build the verification copy of a workspace: the agent's files, runner configuration restored from
the start state, the hidden files laid over it.

Runs inside a verification container (or on the host for `agent validate --native`) with the
standard library only. The agent's tree is only read: special files, `__pycache__` folders,
bytecode and files over the size cap are left out, and links are copied as links, never followed.
Where a restored or hidden file goes, whatever the agent left on that path (a link, a file where a
folder belongs) is removed first, so nothing is written through the agent's links.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import stat

SKIP_DIRS = {"__pycache__"}
SKIP_SUFFIXES = (".pyc", ".pyo")


def matches(rel: str, pattern: str) -> bool:
    """Glob match on a relative POSIX path; `**` spans any number of folders (also none)."""
    return _match(rel.split("/"), pattern.split("/"))


def _match(parts: list[str], pats: list[str]) -> bool:
    if not pats:
        return not parts
    if pats[0] == "**":
        return any(_match(parts[i:], pats[1:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pats[0]) and _match(parts[1:], pats[1:])


def restored(rel: str, patterns: list[str]) -> bool:
    """True when `rel` or one of its parent folders matches a restore pattern."""
    parts = rel.split("/")
    return any(matches("/".join(parts[:i]), p) for i in range(1, len(parts) + 1) for p in patterns)


def walk(root: str):
    """(relative path, lstat) of everything under root, parents first, links not followed."""
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            names = sorted(os.listdir(os.path.join(root, rel) if rel else root))
        except OSError:
            continue
        for name in names:
            child = f"{rel}/{name}" if rel else name
            try:
                st = os.lstat(os.path.join(root, child))
            except OSError:
                continue
            yield child, st
            if stat.S_ISDIR(st.st_mode):
                stack.append(child)


def copy_tree(src: str, dest: str, *, cap: int, exclude=lambda rel: False) -> list[str]:
    """Copy regular files (up to `cap` bytes), folders and links; returns what was left out and why."""
    os.makedirs(dest, exist_ok=True)
    omitted = []
    for rel, st in walk(src):
        if exclude(rel) or any(p in SKIP_DIRS for p in rel.split("/")) or rel.endswith(SKIP_SUFFIXES):
            continue
        target = os.path.join(dest, rel)
        if stat.S_ISDIR(st.st_mode):
            os.makedirs(target, exist_ok=True)
        elif stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(os.path.join(src, rel)), target)
        elif stat.S_ISREG(st.st_mode):
            if st.st_size > cap:
                omitted.append(f"{rel}: {st.st_size} bytes, over the {cap}-byte cap")
                continue
            _copy_file(os.path.join(src, rel), target, st)
        else:
            omitted.append(f"{rel}: special file ({_kind(st.st_mode)})")
    return omitted


def _copy_file(source: str, target: str, st: os.stat_result) -> None:
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fin, open(target, "wb") as fout:
        shutil.copyfileobj(fin, fout, 1 << 20)
    os.chmod(target, stat.S_IMODE(st.st_mode) | 0o600)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device")):
        if test(mode):
            return name
    return "unknown type"


def clear_path(root: str, rel: str) -> None:
    """Make every parent of root/rel a real folder and remove whatever sits at root/rel itself."""
    current = root
    parts = rel.split("/")
    for part in parts[:-1]:
        current = os.path.join(current, part)
        if os.path.islink(current) or (os.path.lexists(current) and not os.path.isdir(current)):
            os.unlink(current)
        if not os.path.lexists(current):
            os.mkdir(current)
    remove(os.path.join(current, parts[-1]))


def remove(path: str) -> None:
    if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
        os.unlink(path)
    elif os.path.isdir(path):
        shutil.rmtree(path)


def place(source: str, root: str, rel: str, st: os.stat_result) -> None:
    """Put one trusted entry (file, folder or link) at root/rel, replacing what the agent left there."""
    target = os.path.join(root, rel)
    if stat.S_ISDIR(st.st_mode):
        if os.path.islink(target) or (os.path.lexists(target) and not os.path.isdir(target)):
            clear_path(root, rel)
        if not os.path.isdir(target):
            clear_path(root, rel)
            os.mkdir(target)
        return
    clear_path(root, rel)
    if stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(source), target)
    elif stat.S_ISREG(st.st_mode):
        _copy_file(source, target, st)


def stage(src: str, start: str, verify: str | None, dest: str, restore: list[str], cap: int) -> list[str]:
    """The verification copy in `dest`; returns a log of what was left out, restored and laid in."""
    log = [f"left out: {line}" for line in copy_tree(src, dest, cap=cap, exclude=lambda rel: restored(rel, restore))]
    for rel, st in walk(start):
        if restored(rel, restore):
            place(os.path.join(start, rel), dest, rel, st)
    if verify and os.path.isdir(verify):
        for rel, st in walk(verify):
            place(os.path.join(verify, rel), dest, rel, st)
    return log


if __name__ == "__main__":
    # python3 -I stage.py SRC DEST CAP: a bounded copy of a tree (used to keep an attempt's workspace)
    import sys

    for note in copy_tree(sys.argv[1], sys.argv[2], cap=int(sys.argv[3])):
        print(f"left out: {note}")
