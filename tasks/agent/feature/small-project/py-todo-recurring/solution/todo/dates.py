"""Human-friendly due dates: ISO dates, today/tomorrow, +3d / +2w offsets and weekday names."""

from __future__ import annotations

import re
from datetime import date, timedelta

WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
FULL_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_OFFSET = re.compile(r"^\+(\d+)([dw])$")


class DateError(ValueError):
    """A due date the parser does not understand."""


def parse_date(text: str, today: date) -> date:
    value = text.strip().lower()
    if value == "today":
        return today
    if value == "tomorrow":
        return today + timedelta(days=1)
    match = _OFFSET.match(value)
    if match:
        n, unit = int(match.group(1)), match.group(2)
        return today + timedelta(days=n * (7 if unit == "w" else 1))
    if value in WEEKDAYS or value in FULL_WEEKDAYS:
        target = WEEKDAYS.index(value[:3])
        ahead = (target - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise DateError(f"cannot understand the date {text!r} (try 2024-05-01, today, +3d, fri)") from None
