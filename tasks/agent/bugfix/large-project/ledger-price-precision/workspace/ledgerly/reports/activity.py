"""The activity report: the change of each account per period (a table with one column per period)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from ledgerly.accounts import truncate
from ledgerly.amount import Balance
from ledgerly.commodity import Commodities
from ledgerly.journal import Journal
from ledgerly.periods import Period, split
from ledgerly.prices import PriceDB
from ledgerly.query import Query, select


@dataclass
class Activity:
    periods: list[Period]
    accounts: list[str]
    cells: dict[tuple[str, int], Balance]  # (account, period index) -> change
    totals: list[Balance]  # per period


def activity_report(journal: Journal, query: Query, interval: str, depth: int | None = None,
                    convert_to: str | None = None, begin: date | None = None, end: date | None = None) -> Activity:
    chosen = select(journal, query)
    if not chosen:
        return Activity([], [], {}, [])
    first = begin or min(t.date for t, _ in chosen)
    last = end or max(t.date for t, _ in chosen) + (date.resolution)
    periods = split(first, last, interval)
    prices = PriceDB.from_journal(journal) if convert_to else None
    cells: dict[tuple[str, int], Balance] = {}
    labels = [p.label for p in periods]
    for txn, posting in chosen:
        label = next((p.label for p in periods if txn.date in p), None)
        if label is None:
            continue
        index = labels.index(label)
        amount = posting.amount
        if prices is not None:
            amount = prices.convert(amount, convert_to, txn.date)
        key = (truncate(posting.account, depth), index)
        cells.setdefault(key, Balance()).add(amount)
    accounts = sorted({account for account, _ in cells})
    totals = []
    for index in range(len(periods)):
        total = Balance()
        for account in accounts:
            total.add_balance(cells.get((account, index), Balance()))
        totals.append(total)
    return Activity(periods, accounts, cells, totals)


def _cell(balance: Balance, commodities: Commodities) -> str:
    texts = []
    for amount in balance:
        style = commodities.get(amount.commodity)
        quantum = Decimal(1).scaleb(-style.precision)
        value = amount.quantity.quantize(quantum, rounding=ROUND_HALF_UP)
        number = f"{abs(value):.{style.precision}f}"
        if style.grouping:
            integer, point, fraction = number.partition(".")
            chunks = []
            while len(integer) > 3:
                chunks.insert(0, integer[-3:])
                integer = integer[:-3]
            chunks.insert(0, integer)
            number = ",".join(chunks) + point + fraction
        if amount.commodity and style.prefix:
            number = amount.commodity + (" " if style.space else "") + number
        elif amount.commodity:
            number = number + (" " if style.space else "") + amount.commodity
        texts.append(("-" if value < 0 else "") + number)
    return ", ".join(texts) if texts else "0"


def render_activity(report: Activity, commodities: Commodities) -> str:
    if not report.periods:
        return "no postings\n"
    header = ["account"] + [p.label for p in report.periods]
    body = []
    for account in report.accounts:
        row = [account]
        for index in range(len(report.periods)):
            row.append(_cell(report.cells.get((account, index), Balance()), commodities))
        body.append(row)
    total_row = ["total"] + [_cell(t, commodities) for t in report.totals]
    widths = [max(len(r[i]) for r in [header, *body, total_row]) for i in range(len(header))]
    lines = []
    for row in [header, *body]:
        cells = [row[0].ljust(widths[0])] + [row[i].rjust(widths[i]) for i in range(1, len(row))]
        lines.append("  ".join(cells).rstrip())
    lines.append("-" * (sum(widths) + 2 * (len(widths) - 1)))
    cells = [total_row[0].ljust(widths[0])] + [total_row[i].rjust(widths[i]) for i in range(1, len(total_row))]
    lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"
