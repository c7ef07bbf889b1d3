"""The budget report: for every budgeted account and period, the actual change against the budget."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from ledgerly.amount import Amount
from ledgerly.commodity import Commodities
from ledgerly.journal import Journal
from ledgerly.periods import Period, period_of, split
from ledgerly.prices import PriceDB
from ledgerly.query import Query, select
from ledgerly.reports.balance import _fmt_amount


@dataclass
class BudgetRow:
    period: Period
    account: str
    actual: Amount
    budget: Amount

    def used(self) -> str:
        if self.budget.quantity == 0:
            return "-"
        percent = (self.actual.quantity / self.budget.quantity * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)
        return f"{percent}%"


def report_range(journal: Journal, query: Query) -> tuple[date, date] | None:
    """[begin, end) from the query, else the journal's first to last transaction date."""
    span = journal.date_span()
    begin = query.begin or (span[0] if span else None)
    end = query.end or (span[1] + timedelta(days=1) if span else None)
    if begin is None or end is None or end <= begin:
        return None
    return begin, end


def _wanted(account: str, query: Query) -> bool:
    if query.accounts and not any(p.search(account) for p in query.accounts):
        return False
    return not any(p.search(account) for p in query.not_accounts)


def _budgets(journal: Journal, query: Query, begin: date, end: date) -> dict[tuple[Period, str, str], Amount]:
    """(period, account, commodity) -> budgeted amount, summed over the rules that apply."""
    budgets: dict[tuple[Period, str, str], Amount] = {}
    for rule in journal.periodics:
        for period in split(begin, end, rule.interval):
            if not rule.applies(period.start):
                continue
            for posting in rule.postings:
                if not _wanted(posting.account, query):
                    continue
                key = (period, posting.account, posting.amount.commodity)
                budgets[key] = budgets[key] + posting.amount if key in budgets else posting.amount
    return budgets


def budget_report(journal: Journal, query: Query, convert_to: str | None = None) -> list[BudgetRow]:
    bounds = report_range(journal, query)
    if bounds is None:
        return []
    begin, end = bounds
    prices = PriceDB.from_journal(journal) if convert_to else None
    dated = Query(**{**query.__dict__, "accounts": [], "not_accounts": [], "begin": begin, "end": end})
    postings = select(journal, dated)
    rows = []
    for (period, account, commodity), budget in _budgets(journal, query, begin, end).items():
        actual = Decimal(0)
        for txn, posting in postings:
            if txn.date not in period or not (posting.account == account or posting.account.startswith(account + ":")):
                continue
            amount = prices.convert(posting.amount, convert_to, txn.date) if prices else posting.amount
            if amount.commodity == commodity:
                actual += amount.quantity
        rows.append(BudgetRow(period, account, Amount(actual, commodity), budget))
    rows.sort(key=lambda r: (r.period.start, r.period.end, r.account, r.budget.commodity))
    return rows


def render_budget(rows: list[BudgetRow], commodities: Commodities) -> str:
    if not rows:
        return "no budget periods\n"
    table = [["period", "account", "actual", "budget", "used"]]
    for r in rows:
        table.append([r.period.label, r.account, _fmt_amount(r.actual, commodities),
                      _fmt_amount(r.budget, commodities), r.used()])
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    lines = []
    for row in table:
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])] + [row[i].rjust(widths[i]) for i in (2, 3, 4)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"
