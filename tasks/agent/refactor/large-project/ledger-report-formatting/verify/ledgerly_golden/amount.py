"""Amounts: an exact Decimal quantity of one commodity, and multi-commodity balances."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ledgerly_golden.commodity import Style

_NUMBER = r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|-?\.\d+"
_PREFIX = re.compile(rf"^(?P<sign>-?)\s*(?P<sym>[^\d\s.,\-+;\"]+)\s*(?P<num>{_NUMBER})$")
_SUFFIX = re.compile(rf"^(?P<num>{_NUMBER})\s*(?P<sym>[A-Za-z_\"][^\d\s;]*)?$")


@dataclass(frozen=True)
class Amount:
    quantity: Decimal
    commodity: str

    def __add__(self, other: Amount) -> Amount:
        if other.commodity != self.commodity:
            raise ValueError(f"cannot add {other.commodity} to {self.commodity}")
        return Amount(self.quantity + other.quantity, self.commodity)

    def __neg__(self) -> Amount:
        return Amount(-self.quantity, self.commodity)

    def __mul__(self, factor: Decimal) -> Amount:
        return Amount(self.quantity * factor, self.commodity)

    def is_zero(self) -> bool:
        return self.quantity == 0


def parse_amount(text: str) -> tuple[Amount, Style]:
    """`$1,234.50`, `-$3`, `$-3`, `12.5 EUR`, `10 "Green Apples"`, `7` (no commodity)."""
    raw = text.strip()
    m = _PREFIX.match(raw)
    if m:
        number = m.group("num")
        quantity = _decimal(number, raw)
        if m.group("sign"):
            quantity = -quantity
        symbol = m.group("sym").strip()
        style = Style(symbol=symbol, prefix=True, precision=_decimals(number), grouping="," in number,
                      space=raw.find(symbol) + len(symbol) < len(raw) and raw[raw.find(symbol) + len(symbol)] == " ")
        return Amount(quantity, symbol), style
    m = _SUFFIX.match(raw)
    if m:
        number = m.group("num")
        symbol = (m.group("sym") or "").strip('"')
        style = Style(symbol=symbol, prefix=False, precision=_decimals(number), grouping="," in number,
                      space=" " in raw)
        return Amount(_decimal(number, raw), symbol), style
    raise ValueError(f"not an amount: {text!r}")


def _decimal(number: str, raw: str) -> Decimal:
    try:
        return Decimal(number.replace(",", ""))
    except InvalidOperation:
        raise ValueError(f"not an amount: {raw!r}") from None


def _decimals(number: str) -> int:
    return len(number.split(".", 1)[1]) if "." in number else 0


class Balance:
    """A sum of amounts in several commodities (one quantity per commodity)."""

    def __init__(self, amounts: Iterable[Amount] = ()) -> None:
        self._q: dict[str, Decimal] = {}
        for a in amounts:
            self.add(a)

    def add(self, amount: Amount) -> None:
        self._q[amount.commodity] = self._q.get(amount.commodity, Decimal(0)) + amount.quantity

    def add_balance(self, other: Balance) -> None:
        for a in other:
            self.add(a)

    def __iter__(self) -> Iterator[Amount]:
        for commodity in sorted(self._q):
            if self._q[commodity] != 0:
                yield Amount(self._q[commodity], commodity)

    def __neg__(self) -> Balance:
        return Balance(-a for a in self)

    def copy(self) -> Balance:
        return Balance(self)

    def is_zero(self) -> bool:
        return all(q == 0 for q in self._q.values())

    def get(self, commodity: str) -> Decimal:
        return self._q.get(commodity, Decimal(0))

    def commodities(self) -> list[str]:
        return [a.commodity for a in self]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Balance) and list(self) == list(other)

    def __repr__(self) -> str:
        return "Balance(" + ", ".join(f"{a.quantity} {a.commodity}" for a in self) + ")"
