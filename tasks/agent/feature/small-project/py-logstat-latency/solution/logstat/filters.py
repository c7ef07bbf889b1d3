"""Selecting records: time window, status classes, path prefixes."""

from __future__ import annotations

from datetime import datetime, timezone


def parse_when(text: str) -> datetime:
    """ISO 8601 date or date-time; without an offset it is taken as UTC."""
    value = datetime.fromisoformat(text)
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value


def in_window(record, since: datetime | None, until: datetime | None) -> bool:
    """since is inclusive, until exclusive."""
    if since is not None and record.time < since:
        return False
    if until is not None and record.time >= until:
        return False
    return True


def status_class(status: int) -> str:
    return f"{status // 100}xx"


def select(records, since=None, until=None, statuses: set[str] | None = None, prefix: str | None = None):
    for r in records:
        if not in_window(r, since, until):
            continue
        if statuses and status_class(r.status) not in statuses:
            continue
        if prefix and not r.path.startswith(prefix):
            continue
        yield r
