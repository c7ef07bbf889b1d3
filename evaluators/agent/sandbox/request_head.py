"""Reading a request's head under fixed bounds before anything parses it.

The agent controls what it sends, so the proxy takes the request line and headers in at most MAX_HEAD_BYTES
and MAX_HEADERS lines, then hands the standard handler the bytes it already read followed by the stream.
"""

from __future__ import annotations

import io

MAX_HEAD_BYTES = 32 << 10     # a request line and its headers
MAX_HEADERS = 64


def read_head(rfile) -> tuple[bytes, str | None]:
    """The bytes up to the blank line ending a request's head; a problem when the client closed or the head is
    over its bounds (then nothing more is read)."""
    lines: list[bytes] = []
    size = 0
    while True:
        line = rfile.readline(MAX_HEAD_BYTES - size + 1)
        if not line:
            return b"".join(lines), "closed"
        size += len(line)
        lines.append(line)
        if size > MAX_HEAD_BYTES or not line.endswith(b"\n"):
            return b"".join(lines), f"request head over {MAX_HEAD_BYTES} bytes"
        if len(lines) > MAX_HEADERS + 1:
            return b"".join(lines), f"more than {MAX_HEADERS} header lines"
        if line in (b"\r\n", b"\n") and len(lines) > 1:
            return b"".join(lines), None


class HeadFirst:
    """A request's already-read head, then the connection's stream: what the standard handler reads from."""

    def __init__(self, head: bytes, source):
        self.head = io.BytesIO(head)
        self.source = source

    def readline(self, limit: int = -1) -> bytes:
        return self.head.readline(limit) or self.source.readline(limit)

    def read(self, n: int = -1) -> bytes:
        first = self.head.read(n)
        if n is not None and 0 <= n <= len(first):
            return first
        return first + self.source.read(-1 if n is None or n < 0 else n - len(first))
