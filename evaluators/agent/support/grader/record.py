"""The record every runner writes: one JSON line per test outcome, appended and flushed at once."""

from __future__ import annotations

import json
import os


class Record:
    """Appends to the file named by $BANANABENCH_REPORT (opened before any code under test runs)."""

    def __init__(self) -> None:
        self._fh = open(os.environ["BANANABENCH_REPORT"], "a", encoding="utf-8")

    def add(self, test_id: str, outcome: str, seconds: float | None = None, message: str = "") -> None:
        line = {"id": test_id, "outcome": outcome}
        if seconds is not None:
            line["seconds"] = round(seconds, 4)
        if message:
            line["message"] = message[-2000:]
        self._fh.write(json.dumps(line) + "\n")
        self._fh.flush()
