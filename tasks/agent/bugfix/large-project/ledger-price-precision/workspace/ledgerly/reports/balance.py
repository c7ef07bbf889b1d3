"""The balance report: account balances as a tree (or a flat list) with a total line."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from ledgerly.accounts import AccountTree, leaf, truncate
from ledgerly.amount import Amount, Balance
from ledgerly.commodity import Commodities
from ledgerly.journal import Journal
from ledgerly.prices import PriceDB
from ledgerly.query import Query, select

AMOUNT_WIDTH = 20


@dataclass
class BalanceRow:
    account: str
    label: str  # what is printed: the leaf name indented (tree) or the full name (flat)
    balance: Balance


def balance_report(journal: Journal, query: Query, depth: int | None = None, flat: bool = False,
                   convert_to: str | None = None, at: date | None = None,
                   empty: bool = False) -> tuple[list[BalanceRow], Balance]:
    """Rows in display order and the grand total."""
    tree = AccountTree()
    prices = PriceDB.from_journal(journal) if convert_to else None
    for txn, posting in select(journal, query):
        amount = posting.amount
        if prices is not None:
            when = at or txn.date
            amount = prices.convert(amount, convert_to, when)
        tree.add(truncate(posting.account, depth) if flat else posting.account, Balance([amount]))
    rows: list[BalanceRow] = []
    if flat:
        for name in tree.names():
            node = tree.nodes[name]
            if node.own.is_zero() and not (empty and _has_own_postings(name, journal, query, depth)):
                continue
            rows.append(BalanceRow(name, name, node.own))
    else:
        for name, node, level in tree.walk(depth):
            if node.total.is_zero() and not empty:
                continue
            rows.append(BalanceRow(name, "  " * (level - 1) + leaf(name), node.total))
    total = Balance()
    for root in tree.roots():
        total.add_balance(tree.nodes[root].total)
    return rows, total


def _has_own_postings(name: str, journal: Journal, query: Query, depth: int | None) -> bool:
    return any(truncate(p.account, depth) == name for _, p in select(journal, query))


def _fmt_amount(amount: Amount, commodities: Commodities) -> str:
    style = commodities.get(amount.commodity)
    step = Decimal(1).scaleb(-style.precision)
    quantity = amount.quantity.quantize(step, rounding=ROUND_HALF_UP)
    negative = quantity < 0
    text = f"{abs(quantity):.{style.precision}f}"
    if style.grouping:
        whole, _, frac = text.partition(".")
        groups = []
        while len(whole) > 3:
            groups.insert(0, whole[-3:])
            whole = whole[:-3]
        groups.insert(0, whole)
        text = ",".join(groups) + ("." + frac if frac else "")
    if not amount.commodity:
        body = text
    elif style.prefix:
        body = amount.commodity + (" " if style.space else "") + text
    else:
        body = text + (" " if style.space else "") + amount.commodity
    return ("-" if negative else "") + body


def _fmt_lines(balance: Balance, commodities: Commodities) -> list[str]:
    lines = [_fmt_amount(a, commodities) for a in balance]
    return lines or ["0"]


def render_balance(rows: list[BalanceRow], total: Balance, commodities: Commodities,
                   show_total: bool = True) -> str:
    out = []
    for row in rows:
        lines = _fmt_lines(row.balance, commodities)
        for extra in lines[:-1]:
            out.append(extra.rjust(AMOUNT_WIDTH))
        out.append(lines[-1].rjust(AMOUNT_WIDTH) + "  " + row.label)
    if show_total:
        out.append("-" * AMOUNT_WIDTH)
        for line in _fmt_lines(total, commodities):
            out.append(line.rjust(AMOUNT_WIDTH))
    return "\n".join(out) + "\n"
