"""Reports: balance (account tree), register (postings with running total), activity (per period)."""
