"""Progress for long work: a redrawn bar on a terminal, plain periodic log lines otherwise."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO


def _fmt_duration(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """`update()` after each item; `close()` at the end. Shows done/total, rate and ETA."""

    def __init__(self, total: int | None, desc: str, *, stream: TextIO | None = None,
                 interval_s: float | None = None, initial: int = 0):
        self.total = total
        self.desc = desc
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        default = 0.1 if self.tty else float(os.environ.get("BANANABENCH_LOG_EVERY_S", "10"))
        self.interval_s = default if interval_s is None else interval_s
        self.done = initial
        self._initial = initial
        self._start = time.monotonic()
        self._last = 0.0
        self._closed = False

    def line(self) -> str:
        elapsed = time.monotonic() - self._start
        rate = (self.done - self._initial) / elapsed if elapsed > 0 else 0.0
        parts = [self.desc]
        if self.total:
            pct = 100.0 * self.done / self.total
            if self.tty:
                width = 24
                fill = int(width * self.done / self.total)
                parts.append("[" + "#" * fill + "-" * (width - fill) + "]")
            parts.append(f"{self.done}/{self.total} ({pct:.0f}%)")
        else:
            parts.append(f"{self.done}")
        parts.append(f"{rate:.2f} it/s")
        if self.total and rate > 0:
            parts.append(f"ETA {_fmt_duration((self.total - self.done) / rate)}")
        parts.append(f"elapsed {_fmt_duration(elapsed)}")
        return " ".join(parts)

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self._last >= self.interval_s:
            self._last = now
            self._emit()

    def _emit(self, final: bool = False) -> None:
        if self.tty:
            self.stream.write("\r\x1b[2K" + self.line() + ("\n" if final else ""))
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._emit(final=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
