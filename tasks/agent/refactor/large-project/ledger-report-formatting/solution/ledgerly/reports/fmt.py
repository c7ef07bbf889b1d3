"""Amount formatting shared by every report: rounding to the commodity's display precision, digit
grouping, symbol placement and the sign."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from ledgerly.amount import Amount, Balance
from ledgerly.commodity import Commodities


def group_thousands(digits: str) -> str:
    """`1234567.50` -> `1,234,567.50`."""
    whole, dot, frac = digits.partition(".")
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    return ",".join(groups) + dot + frac


def format_amount(amount: Amount, commodities: Commodities) -> str:
    """The amount written the way the journal writes its commodity, rounded half up."""
    style = commodities.get(amount.commodity)
    quantity = amount.quantity.quantize(Decimal(1).scaleb(-style.precision), rounding=ROUND_HALF_UP)
    digits = f"{abs(quantity):.{style.precision}f}"
    if style.grouping:
        digits = group_thousands(digits)
    sign = "-" if quantity < 0 else ""
    if not amount.commodity:
        return sign + digits
    gap = " " if style.space else ""
    if style.prefix:
        return sign + amount.commodity + gap + digits
    return sign + digits + gap + amount.commodity


def format_lines(balance: Balance, commodities: Commodities) -> list[str]:
    """One formatted amount per commodity; `0` for an empty balance."""
    return [format_amount(a, commodities) for a in balance] or ["0"]


def format_inline(balance: Balance, commodities: Commodities) -> str:
    """All commodities on one line, separated by `, `; `0` for an empty balance."""
    return ", ".join(format_lines(balance, commodities))
