"""The per-attempt canary pair, as the test runners receive it: one test that must pass, one that must fail.

The host draws two random test names for each verification and hands them to the driver on its standard
input, which passes them to each runner the same way; the runner reads them before any code under test
loads and adds both tests after the hidden ones. A record in which the failing canary passed (a patched
framework) or either canary is missing (an early exit followed by forged lines) is tampered with.
"""

from __future__ import annotations

import json
import os
import sys


def read_canary() -> tuple[str, str] | None:
    """(must pass, must fail) from standard input, which is then closed: None when none was given."""
    try:
        line = sys.stdin.readline() if sys.stdin is not None else ""
    except (OSError, ValueError):
        line = ""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        item = json.loads(line)
        names = item["pass"], item["fail"]
    except (ValueError, TypeError, KeyError):
        return None
    return names if all(isinstance(n, str) and n.isidentifier() for n in names) else None
