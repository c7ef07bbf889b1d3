"""Commodities: how amounts of each one are written (symbol side, precision, separators).

The first time a commodity is seen in a journal decides its style (like ledger and hledger do):
`$1,234.50` makes `$` a prefix symbol with 2 decimals and comma grouping, `12.5 EUR` a suffix symbol
with 1 decimal. Later amounts with more decimals raise the display precision.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Style:
    symbol: str
    prefix: bool = False
    precision: int = 2
    grouping: bool = False
    space: bool = True  # a space between number and symbol

    def merge(self, other: Style) -> None:
        """Raise the precision to the largest seen."""
        if other.precision > self.precision:
            self.precision = other.precision


class Commodities:
    """Registry of commodity styles, filled while parsing."""

    def __init__(self) -> None:
        self._styles: dict[str, Style] = {}

    def observe(self, style: Style) -> Style:
        known = self._styles.get(style.symbol)
        if known is None:
            self._styles[style.symbol] = style
            return style
        known.merge(style)
        return known

    def get(self, symbol: str) -> Style:
        """The observed style, or a default one (a one-character symbol such as `$` goes in front)."""
        if symbol in self._styles:
            return self._styles[symbol]
        short = len(symbol) == 1 and not symbol.isalnum()
        return Style(symbol=symbol, prefix=short, space=not short)

    def symbols(self) -> list[str]:
        return sorted(self._styles)

    def __contains__(self, symbol: str) -> bool:
        return symbol in self._styles
