"""From the runners' own records to a verdict: every expected test present and passed, or why not.

Records are files the test processes wrote, so the host reads them defensively: no links
followed, only regular files, a cap on their number and size, malformed lines skipped. Exit
statuses and printed output never enter the verdict.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.agent.grading.verifyspec import VerifySpec

OUTCOMES = ("passed", "skipped", "failed", "error")     # worst last
MAX_RECORD_FILES = 64
MAX_RECORD_BYTES = 16 << 20
MAX_ID = 1000


@dataclass
class TestOutcome:
    outcome: str
    message: str = ""
    seconds: float | None = None
    score: float | None = None


@dataclass
class Verdict:
    passed: bool
    score: float
    reason: str
    tests: dict[str, TestOutcome] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    not_passed: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    build_failed: bool = False
    expected: int = 0

    def summary(self) -> dict[str, Any]:
        """The attempt record's `verdict` (short; verify.json has every test)."""
        return {"passed": self.passed, "score": self.score, "reason": self.reason,
                "expected": self.expected,
                "missing": self.missing[:20], "not_passed": self.not_passed[:20], "n_missing": len(self.missing),
                "n_not_passed": len(self.not_passed), "build_failed": self.build_failed}

    def details(self) -> dict[str, Any]:
        return {**self.summary(), "missing": self.missing, "not_passed": self.not_passed,
                "unexpected": self.unexpected,
                "tests": {k: {"outcome": v.outcome, "message": v.message, "seconds": v.seconds, "score": v.score}
                          for k, v in self.tests.items()}}


def _read_regular(path: Path, limit: int) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return b""
        chunks, left = [], limit
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_records(report_dir: Path) -> dict[str, TestOutcome]:
    """The worst outcome per test id across the record files in `report_dir`."""
    outcomes: dict[str, TestOutcome] = {}
    try:
        names = sorted(n for n in os.listdir(report_dir) if n.endswith(".jsonl"))[:MAX_RECORD_FILES]
    except OSError:
        return outcomes
    budget = MAX_RECORD_BYTES
    for name in names:
        try:
            data = _read_regular(report_dir / name, budget)
        except OSError:
            continue
        budget -= len(data)
        for line in data.splitlines():
            _merge(outcomes, line)
        if budget <= 0:
            break
    return outcomes


def _merge(outcomes: dict[str, TestOutcome], line: bytes) -> None:
    try:
        item = json.loads(line)
    except ValueError:
        return
    if not isinstance(item, dict):
        return
    test_id, outcome = item.get("id"), item.get("outcome")
    if not isinstance(test_id, str) or not test_id or len(test_id) > MAX_ID or outcome not in OUTCOMES:
        return
    score = item.get("score")
    score = min(1.0, max(0.0, float(score))) if isinstance(score, (int, float)) and not isinstance(score, bool) else None
    seconds = item.get("seconds") if isinstance(item.get("seconds"), (int, float)) else None
    message = item.get("message") if isinstance(item.get("message"), str) else ""
    new = TestOutcome(outcome, message[-2000:], seconds, score)
    old = outcomes.get(test_id)
    if old is None or OUTCOMES.index(outcome) > OUTCOMES.index(old.outcome):
        outcomes[test_id] = new
    if old is not None and score is not None and old.score is not None:
        outcomes[test_id].score = min(score, old.score)


def _gist(message: str) -> str:
    """The most telling line of a failure message (an error line if there is one)."""
    lines = [line.strip() for line in message.strip().splitlines() if len(line.strip()) > 3]
    if not lines:
        return ""
    telling = [line for line in lines if re.search(r"Error|error|assert|FAIL|panic|expected|!=", line)]
    return ": " + (telling[-1] if telling else lines[-1])[:160]


def decide(spec: VerifySpec, records: dict[str, TestOutcome], *, build_error: str | None = None,
           timed_out_s: float | None = None) -> Verdict:
    """Pass only when every expected test is recorded as passed; partial credit from the same record."""
    timeout_note = f"verification timed out after {timed_out_s:g} s; " if timed_out_s is not None else ""
    if build_error is not None:
        return Verdict(False, 0.0, f"{timeout_note}build failed: {build_error}"[:500], build_failed=True,
                       missing=list(spec.tests), expected=len(spec.tests))
    expected = list(spec.tests)
    unexpected = sorted(set(records) - set(expected))
    if not expected:
        return Verdict(False, 0.0, "the task declares no expected tests ([verify] tests)", unexpected=unexpected)
    tests = {t: records[t] for t in expected if t in records}
    missing = [t for t in expected if t not in records]
    not_passed = [t for t in expected if t in records and records[t].outcome != "passed"]
    credit = []
    for t in expected:
        rec = records.get(t)
        if rec is None or rec.outcome != "passed":
            credit.append(rec.score if rec is not None and rec.score is not None and spec.runner == "script" else 0.0)
        else:
            credit.append(rec.score if rec.score is not None and spec.runner == "script" else 1.0)
    passed = not missing and not not_passed
    if spec.partial:
        score = sum(credit) / len(credit)
    else:
        score = 1.0 if passed else 0.0
    n = len(expected)
    of_n = f"of {n} expected test{'s' if n != 1 else ''}"
    parts = []
    if not_passed:
        first = not_passed[0]
        parts.append(f"{len(not_passed)} {of_n} did not pass (first: {first} {tests[first].outcome}"
                     f"{_gist(tests[first].message)})")
    if missing:
        if not records:
            parts.append(f"none {of_n} is in the grader's record (the test process ended, or exited early, "
                         "before the runner recorded an outcome)")
        else:
            parts.append(f"{len(missing)} {of_n} missing from the grader's record "
                         f"(first: {missing[0]}; the test process ended or exited before they were recorded)")
    reason = timeout_note + ("; ".join(parts) if parts else f"all {n} expected test{'s' if n != 1 else ''} passed")
    return Verdict(passed, score, reason[:600], tests=tests, missing=missing, not_passed=not_passed,
                   unexpected=unexpected, expected=n)
