"""One DuckDB instance per process that attaches a store file only while someone works on it.

Opening a DuckDB file creates a database instance, and every new instance registers all of
DuckDB's built-in functions: ~40 ms of CPU per open, paid by every store operation, since each one
opens and closes the file so that other processes can take its lock in between. Attaching the
file to one long-lived in-memory instance costs ~6 ms and takes the same file lock (exclusive for
read-write, shared for read-only) until it is detached.

DuckDB refuses to attach one file twice, so a process attaches it once and its threads share the
attachment: a reader may use a read-write attachment, a writer waits until the readers of a
read-only one are done. The last user detaches it, which checkpoints and releases the lock.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class AttachTimeout(Exception):
    """This process held the file read-only for longer than a writer was willing to wait."""


@dataclass
class _Attachment:
    alias: str
    read_only: bool
    users: int = 0


class Attachments:
    """The process's attachments, keyed by the file's real path."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._attached: dict[str, _Attachment] = {}
        self._aliases = itertools.count(1)
        self._instance: Any = None
        self._pid = 0

    def _base(self) -> Any:
        """The in-memory instance; a forked child starts its own (DuckDB's state does not survive a fork)."""
        if self._instance is None or self._pid != os.getpid():
            import duckdb

            self._instance, self._pid, self._attached = duckdb.connect(":memory:"), os.getpid(), {}
        return self._instance

    def join(self, path: Path, read_only: bool, deadline: float,
             guard: Callable[[], contextlib.AbstractContextManager]) -> Lease:
        """Attach `path` (or share its attachment) and hand back a lease on it; `with lease as con` works on it.

        `guard` wraps the ATTACH itself (the store's creation lock). DuckDB's errors, such as another
        process holding the file, reach the caller at once, with nothing held: it decides whether to retry.
        """
        key = os.path.realpath(path)
        with self._changed:
            return Lease(self, key, self._join(key, path, read_only, deadline, guard))

    def _join(self, key: str, path: Path, read_only: bool, deadline: float,
              guard: Callable[[], contextlib.AbstractContextManager]) -> _Attachment:
        while (attachment := self._attached.get(key)) is not None and attachment.read_only and not read_only:
            if not self._changed.wait(max(0.0, deadline - time.monotonic())):
                raise AttachTimeout(f"{path}: this process kept the database open read-only")
        if attachment is None:
            attachment = _Attachment(f"store_{next(self._aliases)}", read_only)
            target = str(path).replace("'", "''")
            with guard():
                self._base().execute(f"ATTACH '{target}' AS {attachment.alias}" + (" (READ_ONLY)" if read_only else ""))
            self._attached[key] = attachment
        attachment.users += 1
        return attachment

    def _cursor(self) -> Any:
        with self._changed:
            return self._base().cursor()

    def _leave(self, key: str, attachment: _Attachment) -> None:
        with self._changed:
            attachment.users -= 1
            if attachment.users == 0 and self._attached.get(key) is attachment:
                try:
                    self._base().execute(f"DETACH {attachment.alias}")
                    del self._attached[key]  # kept (unused) if DETACH failed: the next user retries it
                finally:
                    self._changed.notify_all()


class Lease:
    """One user's hold on an attachment; `with lease as con` works on the file, and leaving lets it go."""

    def __init__(self, owner: Attachments, key: str, attachment: _Attachment):
        self._owner, self._key, self._attachment = owner, key, attachment
        self._con: Any = None

    def __enter__(self) -> Any:
        try:
            self._con = _on(self._owner._cursor(), self._attachment.alias)
        except BaseException:
            self.__exit__()
            raise
        return self._con

    def __exit__(self, *exc: object) -> None:
        try:
            if self._con is not None:
                self._con.close()
        finally:
            self._owner._leave(self._key, self._attachment)


def _on(con: Any, alias: str) -> Any:
    con.execute(f'USE "{alias}"')
    con.execute("SET enable_progress_bar = false")  # no bars in our logs or output
    return con


def sibling(con: Any) -> Any:
    """Another connection to the database `con` works on, for a thread of its own (close it before the lease
    ends). DuckDB's `cursor()` alone would start on the in-memory instance, where no store table is."""
    return _on(con.cursor(), con.execute("SELECT current_database()").fetchone()[0])


ATTACHMENTS = Attachments()
