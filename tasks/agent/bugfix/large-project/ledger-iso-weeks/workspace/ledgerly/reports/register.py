"""The register report: one line per matching posting with a running total."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from ledgerly.amount import Amount, Balance
from ledgerly.commodity import Commodities
from ledgerly.journal import Journal
from ledgerly.prices import PriceDB
from ledgerly.query import Query, select

DATE_W, PAYEE_W, ACCOUNT_W, AMOUNT_W = 10, 22, 26, 14


@dataclass
class RegisterLine:
    date: date
    payee: str
    account: str
    amount: Amount
    total: Balance
    first: bool  # first posting shown for its transaction


def register_report(journal: Journal, query: Query, convert_to: str | None = None) -> list[RegisterLine]:
    prices = PriceDB.from_journal(journal) if convert_to else None
    running = Balance()
    lines: list[RegisterLine] = []
    previous = None
    for txn, posting in select(journal, query):
        amount = posting.amount
        if prices is not None:
            amount = prices.convert(amount, convert_to, txn.date)
        running.add(amount)
        lines.append(RegisterLine(txn.date, txn.payee, posting.account, amount, running.copy(), txn is not previous))
        previous = txn
    return lines


def _amount_text(amount: Amount, commodities: Commodities) -> str:
    style = commodities.get(amount.commodity)
    q = amount.quantity.quantize(Decimal(1).scaleb(-style.precision), rounding=ROUND_HALF_UP)
    sign = "-" if q < 0 else ""
    digits = f"{abs(q):.{style.precision}f}"
    if style.grouping:
        whole, dot, frac = digits.partition(".")
        parts = []
        while len(whole) > 3:
            parts.insert(0, whole[-3:])
            whole = whole[:-3]
        parts.insert(0, whole)
        digits = ",".join(parts) + dot + frac
    if not amount.commodity:
        return sign + digits
    gap = " " if style.space else ""
    if style.prefix:
        return sign + amount.commodity + gap + digits
    return sign + digits + gap + amount.commodity


def _clip(text: str, width: int) -> str:
    """Fit text into width, marking cut text with `..`."""
    if len(text) <= width:
        return text.ljust(width)
    return text[: width - 2] + ".."


def render_register(lines: list[RegisterLine], commodities: Commodities) -> str:
    out = []
    for line in lines:
        date_col = line.date.isoformat() if line.first else ""
        payee_col = line.payee if line.first else ""
        totals = [_amount_text(a, commodities) for a in line.total] or ["0"]
        amount = _amount_text(line.amount, commodities)
        out.append(
            date_col.ljust(DATE_W) + " " + _clip(payee_col, PAYEE_W) + " " + _clip(line.account, ACCOUNT_W) + " "
            + amount.rjust(AMOUNT_W) + " " + totals[0].rjust(AMOUNT_W)
        )
        for extra in totals[1:]:
            out.append(" " * (DATE_W + PAYEE_W + ACCOUNT_W + AMOUNT_W + 4) + extra.rjust(AMOUNT_W))
    return "\n".join(line.rstrip() for line in out) + ("\n" if out else "")
