"""The balance report: account balances as a tree (or a flat list) with a total line."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from ledgerly.accounts import AccountTree, leaf, truncate
from ledgerly.amount import Balance
from ledgerly.commodity import Commodities
from ledgerly.journal import Journal
from ledgerly.prices import PriceDB
from ledgerly.query import Query, select
from ledgerly.reports.fmt import format_lines

AMOUNT_WIDTH = 20


@dataclass
class BalanceRow:
    account: str
    label: str  # what is printed: the leaf name indented (tree) or the full name (flat)
    balance: Balance


def _build_tree(journal: Journal, query: Query, depth: int | None, flat: bool, convert_to: str | None,
                at: date | None) -> AccountTree:
    tree = AccountTree()
    prices = PriceDB.from_journal(journal) if convert_to else None
    for txn, posting in select(journal, query):
        amount = posting.amount
        if prices is not None:
            amount = prices.convert(amount, convert_to, at or txn.date)
        tree.add(truncate(posting.account, depth) if flat else posting.account, Balance([amount]))
    return tree


def _flat_rows(tree: AccountTree, journal: Journal, query: Query, depth: int | None,
               empty: bool) -> list[BalanceRow]:
    rows = []
    for name in tree.names():
        node = tree.nodes[name]
        if node.own.is_zero() and not (empty and _has_own_postings(name, journal, query, depth)):
            continue
        rows.append(BalanceRow(name, name, node.own))
    return rows


def _tree_rows(tree: AccountTree, depth: int | None, empty: bool) -> list[BalanceRow]:
    rows = []
    for name, node, level in tree.walk(depth):
        if node.total.is_zero() and not empty:
            continue
        rows.append(BalanceRow(name, "  " * (level - 1) + leaf(name), node.total))
    return rows


def balance_report(journal: Journal, query: Query, depth: int | None = None, flat: bool = False,
                   convert_to: str | None = None, at: date | None = None,
                   empty: bool = False) -> tuple[list[BalanceRow], Balance]:
    """Rows in display order and the grand total."""
    tree = _build_tree(journal, query, depth, flat, convert_to, at)
    rows = _flat_rows(tree, journal, query, depth, empty) if flat else _tree_rows(tree, depth, empty)
    total = Balance()
    for root in tree.roots():
        total.add_balance(tree.nodes[root].total)
    return rows, total


def _has_own_postings(name: str, journal: Journal, query: Query, depth: int | None) -> bool:
    return any(truncate(p.account, depth) == name for _, p in select(journal, query))


def render_balance(rows: list[BalanceRow], total: Balance, commodities: Commodities,
                   show_total: bool = True) -> str:
    out = []
    for row in rows:
        lines = format_lines(row.balance, commodities)
        for extra in lines[:-1]:
            out.append(extra.rjust(AMOUNT_WIDTH))
        out.append(lines[-1].rjust(AMOUNT_WIDTH) + "  " + row.label)
    if show_total:
        out.append("-" * AMOUNT_WIDTH)
        for line in format_lines(total, commodities):
            out.append(line.rjust(AMOUNT_WIDTH))
    return "\n".join(out) + "\n"
