"""Report periods: parsing `2024`, `2024-03`, `2024-Q2`, `2024-W05`, `2024-03-05`, `this month`, ...
and splitting a date range into daily/weekly/monthly/quarterly/yearly intervals.

All periods are half-open: `start` is included, `end` is not. Weeks are ISO weeks (Monday to Sunday,
labelled with the ISO week-numbering year, so 2024-12-30 is in 2025-W01).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

INTERVALS = ("daily", "weekly", "monthly", "quarterly", "yearly")


@dataclass(frozen=True)
class Period:
    start: date
    end: date  # exclusive
    label: str

    def __contains__(self, day: date) -> bool:
        return self.start <= day < self.end


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def month_period(year: int, month: int) -> Period:
    start = date(year, month, 1)
    return Period(start, _add_months(start, 1), f"{year:04d}-{month:02d}")


def quarter_period(year: int, quarter: int) -> Period:
    start = date(year, 3 * (quarter - 1) + 1, 1)
    return Period(start, _add_months(start, 3), f"{year:04d}-Q{quarter}")


def year_period(year: int) -> Period:
    return Period(date(year, 1, 1), date(year + 1, 1, 1), f"{year:04d}")


def week_period(day: date) -> Period:
    start = day - timedelta(days=day.weekday())
    iso_year, iso_week, _ = start.isocalendar()
    return Period(start, start + timedelta(days=7), f"{iso_year:04d}-W{iso_week:02d}")


def day_period(day: date) -> Period:
    return Period(day, day + timedelta(days=1), day.isoformat())


def period_of(day: date, interval: str) -> Period:
    """The interval-long period that contains `day`."""
    if interval == "daily":
        return day_period(day)
    if interval == "weekly":
        return week_period(day)
    if interval == "monthly":
        return month_period(day.year, day.month)
    if interval == "quarterly":
        return quarter_period(day.year, (day.month - 1) // 3 + 1)
    if interval == "yearly":
        return year_period(day.year)
    raise ValueError(f"unknown interval {interval!r} (use one of {', '.join(INTERVALS)})")


def split(start: date, end: date, interval: str) -> list[Period]:
    """Consecutive periods of the interval that cover [start, end)."""
    periods = []
    day = start
    while day < end:
        period = period_of(day, interval)
        periods.append(period)
        day = period.end
    return periods


_ISO_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")
_QUARTER = re.compile(r"^(\d{4})-Q([1-4])$")


def parse_period(text: str, today: date) -> Period:
    value = text.strip().lower()
    relative = {
        "today": lambda: day_period(today),
        "yesterday": lambda: day_period(today - timedelta(days=1)),
        "this week": lambda: week_period(today),
        "last week": lambda: week_period(today - timedelta(days=7)),
        "this month": lambda: month_period(today.year, today.month),
        "last month": lambda: period_of(_add_months(date(today.year, today.month, 1), -1), "monthly"),
        "this quarter": lambda: period_of(today, "quarterly"),
        "this year": lambda: year_period(today.year),
        "last year": lambda: year_period(today.year - 1),
    }
    if value in relative:
        return relative[value]()
    try:
        if re.fullmatch(r"\d{4}", value):
            return year_period(int(value))
        if re.fullmatch(r"\d{4}-\d{2}", value):
            return month_period(int(value[:4]), int(value[5:]))
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return day_period(date.fromisoformat(value))
        m = _QUARTER.match(value.upper())
        if m:
            return quarter_period(int(m.group(1)), int(m.group(2)))
        m = _ISO_WEEK.match(value.upper())
        if m:
            monday = date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
            return week_period(monday)
    except ValueError:
        pass
    raise ValueError(f"cannot understand the period {text!r} (try 2024, 2024-03, 2024-Q2, 2024-W05, last month)")
