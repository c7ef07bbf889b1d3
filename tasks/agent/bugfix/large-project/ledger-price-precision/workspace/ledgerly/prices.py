"""Market prices: `P` directives plus the prices implied by `@` / `@@` postings.

A conversion uses the latest price on or before the date asked for, in either direction (a price of
EUR in USD also converts USD to EUR at the inverse rate). Quantities stay exact; rounding happens only
when amounts are displayed.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from datetime import date
from decimal import Decimal

from ledgerly.amount import Amount, Balance
from ledgerly.errors import PriceError
from ledgerly.journal import Journal


class PriceDB:
    def __init__(self) -> None:
        # (from, to) -> sorted list of (date, rate); parallel list of dates for bisecting
        self._rates: dict[tuple[str, str], list[tuple[date, Decimal]]] = defaultdict(list)

    @classmethod
    def from_journal(cls, journal: Journal) -> PriceDB:
        db = cls()
        for directive in journal.prices:
            # keep prices tidy: store them at the display precision of the commodity they are quoted in
            style = journal.commodities.get(directive.price.commodity)
            step = Decimal(1).scaleb(-style.precision)
            price = Amount(directive.price.quantity.quantize(step), directive.price.commodity)
            db.add(directive.date, directive.commodity, price)
        for txn in journal.transactions:
            for posting in txn.postings:
                if posting.price is not None and posting.amount is not None:
                    db.add(txn.date, posting.amount.commodity, posting.price)
        return db

    def add(self, on: date, commodity: str, price: Amount) -> None:
        """1 unit of `commodity` is worth `price` from `on` onwards."""
        if price.quantity <= 0 or commodity == price.commodity:
            return
        series = self._rates[(commodity, price.commodity)]
        series.append((on, price.quantity))
        series.sort(key=lambda item: item[0])

    def _direct(self, source: str, target: str, on: date) -> tuple[date, Decimal] | None:
        series = self._rates.get((source, target))
        if not series:
            return None
        index = bisect_right([d for d, _ in series], on)
        return series[index - 1] if index else None

    def rate(self, source: str, target: str, on: date) -> Decimal | None:
        """How many `target` one `source` is worth on `on` (the most recent price, either direction)."""
        if source == target:
            return Decimal(1)
        direct = self._direct(source, target, on)
        inverse = self._direct(target, source, on)
        if direct and (not inverse or direct[0] >= inverse[0]):
            return direct[1]
        if inverse:
            return Decimal(1) / inverse[1]
        return None

    def convert(self, amount: Amount, target: str, on: date) -> Amount:
        rate = self.rate(amount.commodity, target, on)
        if rate is None:
            raise PriceError(f"no price for {amount.commodity} in {target} on or before {on.isoformat()}")
        return Amount(amount.quantity * rate, target)

    def convert_balance(self, balance: Balance, target: str, on: date) -> Balance:
        return Balance(self.convert(a, target, on) for a in balance)

    def pairs(self) -> list[tuple[str, str]]:
        return sorted(self._rates)

    def history(self, source: str, target: str) -> list[tuple[date, Decimal]]:
        return list(self._rates.get((source, target), []))
