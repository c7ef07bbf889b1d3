"""Parsing access-log lines.

Format (nginx/apache "combined", optionally followed by the request time in milliseconds):
    203.0.113.9 - - [10/Oct/2024:13:55:36 +0200] "GET /api/items?id=3 HTTP/1.1" 200 2326 "-" "curl/8.0" 12.5
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

LINE = re.compile(
    r'^(?P<ip>\S+) \S+ \S+ \[(?P<time>[^\]]+)\] "(?P<request>[^"]*)" (?P<status>\d{3}) (?P<bytes>\d+|-)'
    r'(?: "(?P<referrer>[^"]*)" "(?P<agent>[^"]*)")?(?: (?P<duration>\d+(?:\.\d+)?))?\s*$'
)
TIME_FORMAT = "%d/%b/%Y:%H:%M:%S %z"


@dataclass(frozen=True)
class Record:
    ip: str
    time: datetime
    method: str
    target: str  # path and query string as requested
    status: int
    bytes: int
    referrer: str
    agent: str
    duration_ms: float | None

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]


class ParseError(ValueError):
    pass


def parse_line(line: str) -> Record:
    match = LINE.match(line.rstrip("\n"))
    if not match:
        raise ParseError(f"not an access-log line: {line[:80]!r}")
    parts = match.group("request").split()
    if len(parts) == 3:
        method, target = parts[0], parts[1]
    elif len(parts) == 2:
        method, target = parts
    else:
        method, target = "-", match.group("request") or "-"
    try:
        when = datetime.strptime(match.group("time"), TIME_FORMAT)
    except ValueError:
        raise ParseError(f"bad timestamp {match.group('time')!r}") from None
    size = match.group("bytes")
    duration = match.group("duration")
    return Record(
        ip=match.group("ip"), time=when, method=method, target=target, status=int(match.group("status")),
        bytes=0 if size == "-" else int(size), referrer=match.group("referrer") or "-",
        agent=match.group("agent") or "-", duration_ms=float(duration) if duration is not None else None,
    )


def parse_lines(lines, errors: list[str] | None = None):
    """Yield records; unparsable lines are skipped (and described in `errors` when given)."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield parse_line(line)
        except ParseError as exc:
            if errors is not None:
                errors.append(f"line {number}: {exc}")
