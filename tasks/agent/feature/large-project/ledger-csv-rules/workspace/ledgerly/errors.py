"""Errors with a location in a journal file."""

from __future__ import annotations


class LedgerError(Exception):
    """Base class for problems the user can fix."""


class ParseError(LedgerError):
    def __init__(self, source: str, line: int, message: str) -> None:
        super().__init__(f"{source}:{line}: {message}")
        self.source = source
        self.line = line
        self.message = message


class BalanceError(LedgerError):
    """A transaction whose postings do not sum to zero."""


class PriceError(LedgerError):
    """No price is known to convert between two commodities."""
