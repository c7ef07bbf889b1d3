"""A frozen copy of ledgerly before the formatting refactor: the reference for the golden test."""

__version__ = "1.3.0"
