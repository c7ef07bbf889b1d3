"""Which files of the staged copy the build and the tests open: inotify on every folder, for `agent validate`.

The mutation check (evaluators/agent/grading/mutation.py) needs to know what the hidden tests read, whatever the
language: the Go compiler reading embedded data, a Python test opening a fixture, a C++ build reading
headers. inotify sees every open of a watched folder's files by any process of this user, needs no
privilege (unlike a syscall trace inside a container) and costs nothing measurable. Standard library only
(ctypes); only used on trusted reference solutions.
"""

from __future__ import annotations

import ctypes
import os
import select
import struct
import threading

from stage import walk

IN_OPEN = 0x20
IN_NONBLOCK = 0o4000
IN_ONLYDIR = 0x01000000
_EVENT = struct.Struct("iIII")


class OpenWatch:
    """Collects the workspace-relative paths opened under `root` between start() and stop()."""

    def __init__(self, root: str):
        self.root = root
        self.opened: set[str] = set()
        self.overflowed = False
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._fd = self._libc.inotify_init1(IN_NONBLOCK)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self._dirs: dict[int, str] = {}
        for rel in [""] + [rel for rel, st in walk(root) if os.path.isdir(os.path.join(root, rel))
                           and not os.path.islink(os.path.join(root, rel))]:
            wd = self._libc.inotify_add_watch(self._fd, os.path.join(root, rel).encode(), IN_OPEN | IN_ONLYDIR)
            if wd >= 0:
                self._dirs[wd] = rel
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._drain, daemon=True)

    def start(self) -> OpenWatch:
        self._thread.start()
        return self

    def _drain(self) -> None:
        while True:
            ready, _, _ = select.select([self._fd], [], [], 0.2)
            if ready:
                self._read()
            elif self._stop.is_set():
                return

    def _read(self) -> None:
        try:
            data = os.read(self._fd, 1 << 20)
        except BlockingIOError:
            return
        at = 0
        while at + _EVENT.size <= len(data):
            wd, mask, _, length = _EVENT.unpack_from(data, at)
            name = data[at + _EVENT.size:at + _EVENT.size + length].rstrip(b"\0").decode(errors="replace")
            at += _EVENT.size + length
            if mask & 0x4000:      # IN_Q_OVERFLOW: some opens were lost
                self.overflowed = True
            elif name and wd in self._dirs:
                self.opened.add(f"{self._dirs[wd]}/{name}" if self._dirs[wd] else name)

    def stop(self) -> set[str]:
        self._stop.set()
        self._thread.join()
        os.close(self._fd)
        return {rel for rel in self.opened if os.path.isfile(os.path.join(self.root, rel))}
