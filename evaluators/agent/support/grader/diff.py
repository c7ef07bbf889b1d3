"""The attempt's diff: `python3 -I diff.py START WORKSPACE` prints what the agent changed.

Runs in a fresh container with both trees read-only. Nothing that can hang or explode is read:
special files (FIFOs, sockets, devices) and files over the size cap are listed in the header,
never opened; regular files are compared first and only changed ones go to `git diff --no-index`
(one call per file, so one odd file cannot hide the rest). Every changed path is listed in the header
(`# changed: "<path as JSON>" added|deleted|modified`) and each file's diff is preceded by
`# file: "<path as JSON>"`, so the host reads any file name without parsing git's quoting (no diff
line starts with `#`). Exit status 0 means the diff is complete up to the listed omissions; anything
else is reported by the host as a failed artifact.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stage import walk  # noqa: E402

CAP = 8 << 20
MAX_FILES = 2000


def kind(st: os.stat_result) -> str:
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "link"
    for test, name in ((stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device")):
        if test(mode):
            return name
    return "special file"


def same(a: str, b: str, size: int) -> bool:
    with open(a, "rb") as fa, open(b, "rb") as fb:
        left = size
        while left > 0:
            x, y = fa.read(min(left, 1 << 20)), fb.read(min(left, 1 << 20))
            if x != y:
                return False
            if not x:
                return True
            left -= len(x)
    return True


def main(start: str, workspace: str) -> int:
    before = {rel: st for rel, st in walk(start)}
    after = {rel: st for rel, st in walk(workspace)}
    notes, changed = [], []
    for rel in sorted(set(before) | set(after)):
        a, b = before.get(rel), after.get(rel)
        kinds = {kind(s) for s in (a, b) if s is not None}
        odd = kinds - {"file", "dir", "link"}
        if odd:
            notes.append(f"{rel}: {', '.join(sorted(odd))} (special file, not read)")
            continue
        big = [s.st_size for s in (a, b) if s is not None and kind(s) == "file" and s.st_size > CAP]
        if big:
            notes.append(f"{rel}: {max(big)} bytes (over the {CAP}-byte cap, not read)")
            continue
        if b is not None and kind(b) == "dir" and not os.access(os.path.join(workspace, rel), os.R_OK | os.X_OK):
            notes.append(f"{rel}/: folder not readable (mode {stat.S_IMODE(b.st_mode):o}, its files not read)")
            continue
        if kinds == {"dir"}:
            continue
        if b is not None and kind(b) == "file" and not os.access(os.path.join(workspace, rel), os.R_OK):
            notes.append(f"{rel}: not readable (mode {stat.S_IMODE(b.st_mode):o}, not read)")
            continue
        if a is not None and b is not None and kind(a) == kind(b) == "file" and a.st_size == b.st_size \
                and stat.S_IMODE(a.st_mode) & 0o111 == stat.S_IMODE(b.st_mode) & 0o111 \
                and same(os.path.join(start, rel), os.path.join(workspace, rel), a.st_size):
            continue
        if a is not None and b is not None and kind(a) == kind(b) == "link" \
                and os.readlink(os.path.join(start, rel)) == os.readlink(os.path.join(workspace, rel)):
            continue
        changed.append((rel, a is not None and kind(a) != "dir", b is not None and kind(b) != "dir"))
    shown = changed[:MAX_FILES]
    header = [f"# {len(changed)} changed path(s)"]
    if len(changed) > len(shown):
        header.append(f"# not shown: {len(changed) - len(shown)} more changed path(s) beyond the first {MAX_FILES}")
    header += [f"# not shown: {note}" for note in notes]
    header += [f"# changed: {json.dumps(rel)} {'modified' if old and new else 'added' if new else 'deleted'}"
               for rel, old, new in changed]
    sys.stdout.write("\n".join(header) + "\n")
    sys.stdout.flush()
    root = os.path.dirname(start.rstrip("/")) or "/"
    rel_start, rel_ws = os.path.relpath(start, root), os.path.relpath(workspace, root)
    for rel, old, new in shown:
        argv = ["git", "-c", "core.quotepath=off", "diff", "--no-index", "--no-color", "--binary", "--",
                f"{rel_start}/{rel}" if old else "/dev/null", f"{rel_ws}/{rel}" if new else "/dev/null"]
        proc = subprocess.run(argv, cwd=root, capture_output=True, timeout=60)
        sys.stdout.write(f"# file: {json.dumps(rel)}\n")
        sys.stdout.flush()
        if proc.returncode > 1:
            sys.stderr.write(f"git diff failed for {rel}: {proc.stderr.decode(errors='replace')[-300:]}\n")
            return 1
        sys.stdout.buffer.write(proc.stdout)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
