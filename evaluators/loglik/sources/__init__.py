"""Rebuilding a benchmark's splits offline from local source copies, and the formatting rules that turn rows into items."""
