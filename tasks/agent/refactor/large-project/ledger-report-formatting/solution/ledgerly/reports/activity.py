"""The activity report: the change of each account per period (a table with one column per period)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from ledgerly.accounts import truncate
from ledgerly.amount import Balance
from ledgerly.commodity import Commodities
from ledgerly.journal import Journal, Posting, Transaction
from ledgerly.periods import Period, split
from ledgerly.prices import PriceDB
from ledgerly.query import Query, select
from ledgerly.reports.fmt import format_inline


@dataclass
class Activity:
    periods: list[Period]
    accounts: list[str]
    cells: dict[tuple[str, int], Balance]  # (account, period index) -> change
    totals: list[Balance]  # per period


def _collect(chosen: list[tuple[Transaction, Posting]], periods: list[Period], depth: int | None,
             prices: PriceDB | None, convert_to: str | None) -> dict[tuple[str, int], Balance]:
    cells: dict[tuple[str, int], Balance] = {}
    labels = [p.label for p in periods]
    for txn, posting in chosen:
        label = next((p.label for p in periods if txn.date in p), None)
        if label is None:
            continue
        amount = posting.amount
        if prices is not None:
            amount = prices.convert(amount, convert_to, txn.date)
        cells.setdefault((truncate(posting.account, depth), labels.index(label)), Balance()).add(amount)
    return cells


def _totals(cells: dict[tuple[str, int], Balance], accounts: list[str], count: int) -> list[Balance]:
    totals = []
    for index in range(count):
        total = Balance()
        for account in accounts:
            total.add_balance(cells.get((account, index), Balance()))
        totals.append(total)
    return totals


def activity_report(journal: Journal, query: Query, interval: str, depth: int | None = None,
                    convert_to: str | None = None, begin: date | None = None, end: date | None = None) -> Activity:
    chosen = select(journal, query)
    if not chosen:
        return Activity([], [], {}, [])
    first = begin or min(t.date for t, _ in chosen)
    last = end or max(t.date for t, _ in chosen) + (date.resolution)
    periods = split(first, last, interval)
    prices = PriceDB.from_journal(journal) if convert_to else None
    cells = _collect(chosen, periods, depth, prices, convert_to)
    accounts = sorted({account for account, _ in cells})
    return Activity(periods, accounts, cells, _totals(cells, accounts, len(periods)))


def _line(row: list[str], widths: list[int]) -> str:
    cells = [row[0].ljust(widths[0])] + [row[i].rjust(widths[i]) for i in range(1, len(row))]
    return "  ".join(cells).rstrip()


def render_activity(report: Activity, commodities: Commodities) -> str:
    if not report.periods:
        return "no postings\n"
    header = ["account"] + [p.label for p in report.periods]
    body = [[account] + [format_inline(report.cells.get((account, i), Balance()), commodities)
                         for i in range(len(report.periods))] for account in report.accounts]
    total_row = ["total"] + [format_inline(t, commodities) for t in report.totals]
    widths = [max(len(r[i]) for r in [header, *body, total_row]) for i in range(len(header))]
    lines = [_line(row, widths) for row in [header, *body]]
    lines.append("-" * (sum(widths) + 2 * (len(widths) - 1)))
    lines.append(_line(total_row, widths))
    return "\n".join(lines) + "\n"
