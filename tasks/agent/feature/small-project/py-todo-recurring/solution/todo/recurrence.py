"""Recurrence rules (`3d`, `2w`, `1m`, `1y`) and the next due date of a recurring task."""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

_RULE = re.compile(r"^([1-9]\d*)([dwmy])$")


class RuleError(ValueError):
    """A recurrence rule the parser does not understand."""


def parse_rule(text: str) -> tuple[int, str]:
    match = _RULE.match(text.strip().lower())
    if not match:
        raise RuleError(f"cannot understand the rule {text!r} (use <n>d, <n>w, <n>m or <n>y, e.g. 2w)")
    return int(match.group(1)), match.group(2)


def _add_months(anchor: date, months: int) -> date:
    """anchor shifted by whole months, the day clamped to the end of a shorter month."""
    index = anchor.year * 12 + anchor.month - 1 + months
    year, month = divmod(index, 12)
    day = min(anchor.day, calendar.monthrange(year, month + 1)[1])
    return date(year, month + 1, day)


def occurrence(anchor: date, rule: str, k: int) -> date:
    """The k-th occurrence after the anchor (k = 0 is the anchor itself)."""
    n, unit = parse_rule(rule)
    if unit == "d":
        return anchor + timedelta(days=n * k)
    if unit == "w":
        return anchor + timedelta(weeks=n * k)
    return _add_months(anchor, n * k * (12 if unit == "y" else 1))


def next_due(anchor: date, due: date, rule: str, today: date) -> date:
    """The first occurrence of the series that is after both the current due date and today."""
    n, unit = parse_rule(rule)
    if unit in "dw":
        step = n * (7 if unit == "w" else 1)
        candidate = due + timedelta(days=step)
        if candidate <= today:
            candidate += timedelta(days=step * ((today - candidate).days // step + 1))
        return candidate
    k = 1
    while occurrence(anchor, rule, k) <= due:
        k += 1
    while occurrence(anchor, rule, k) <= today:
        k += 1
    return occurrence(anchor, rule, k)
