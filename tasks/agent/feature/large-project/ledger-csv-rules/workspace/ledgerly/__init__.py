"""ledgerly: plain-text double-entry bookkeeping (journal files in, reports out)."""

__version__ = "1.3.0"
