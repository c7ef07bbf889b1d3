"""Rows as they cross the store's boundary: one frozen record per table, built where an evaluator makes the row.

A misspelt column is a TypeError where the row is made, never a NULL found later in the store, and a reader
(`Store.run/runs/current_runs/latest_run/attempts/scores`) gets fields, not string keys. The store adds what the writer does not know (a score's run, a choice's run
and item) when it writes them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class AttemptRow:
    """One `attempts` row: an attempt at an item (numbered from 1), its outcome, timings and evaluator's `extra`.

    `Store.attempts(run_id)` reads them back without the run id the caller asked with."""

    item_id: str
    status: str
    attempt: int = 1
    correct: bool | None = None
    score: float | None = None
    prediction: str | None = None
    reference: str | None = None
    category: str | None = None
    difficulty: str | None = None
    weight: float | None = None
    started_at: dt.datetime | None = None
    wall_s: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    extra: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """One `scores` row of a run: a metric aggregated over a scope (`overall`, a category, a split, a cell...)."""

    scope: str
    key: str
    metric: str
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int | None = None
    extra: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ChoiceRow:
    """One `choices` row of an attempt: a choice (or a rolling window) and its log-likelihood."""

    idx: int
    logprob_sum: float
    n_tokens: int | None
    mean_logprob: float | None
    extra: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class RunRow:
    """A `runs` row: written as a run starts (its status, end and extra then change with `Store.update_run`),
    read back whole by `Store.run/runs/current_runs/latest_run`."""

    run_id: str
    evaluator: str
    benchmark: str
    model_name: str
    status: str
    started_at: dt.datetime
    benchmark_version: str | None = None
    split: str | None = None
    artifact: dict[str, Any] | None = None
    backend: str | None = None
    config: dict[str, Any] | None = None
    signature: str | None = None
    dataset_sha256: str | None = None
    official: bool = False
    finished_at: dt.datetime | None = None
    software_version: str | None = None
    host: str | None = None
    hidden: bool = False
    n_items: int | None = None
    error: str | None = None
    extra: dict[str, Any] | None = None


def columns(record: Any, **more: Any) -> dict[str, Any]:
    """A record's fields as table columns (plus the ones the store adds)."""
    return {**{f.name: getattr(record, f.name) for f in dataclasses.fields(record)}, **more}
