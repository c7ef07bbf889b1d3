"""Transactions, postings and the journal that holds them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from ledgerly.amount import Amount, Balance
from ledgerly.commodity import Commodities


@dataclass
class Posting:
    account: str
    amount: Amount | None  # None until the parser fills in an elided amount
    price: Amount | None = None  # per-unit price (`@`), set from `@@` totals as well
    comment: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    line: int = 0

    def cost(self) -> Amount:
        """The amount in the price's commodity when a price is given, else the amount itself."""
        assert self.amount is not None
        if self.price is None:
            return self.amount
        return Amount(self.amount.quantity * self.price.quantity, self.price.commodity)


@dataclass
class Transaction:
    date: date
    payee: str
    status: str = ""  # "", "*" cleared, "!" pending
    code: str = ""
    comment: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    postings: list[Posting] = field(default_factory=list)
    source: str = ""
    line: int = 0

    def balance(self) -> Balance:
        return Balance(p.cost() for p in self.postings if p.amount is not None)


@dataclass
class PriceDirective:
    date: date
    commodity: str
    price: Amount


@dataclass
class Journal:
    transactions: list[Transaction] = field(default_factory=list)
    prices: list[PriceDirective] = field(default_factory=list)
    commodities: Commodities = field(default_factory=Commodities)
    accounts_declared: list[str] = field(default_factory=list)

    def postings(self):
        """(transaction, posting) pairs in date order (stable for equal dates)."""
        for txn in sorted(self.transactions, key=lambda t: t.date):
            for posting in txn.postings:
                yield txn, posting

    def accounts(self) -> list[str]:
        names = set(self.accounts_declared)
        for txn in self.transactions:
            names.update(p.account for p in txn.postings)
        return sorted(names)

    def date_span(self) -> tuple[date, date] | None:
        if not self.transactions:
            return None
        dates = [t.date for t in self.transactions]
        return min(dates), max(dates)


ZERO = Decimal(0)
