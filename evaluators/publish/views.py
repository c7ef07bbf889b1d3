"""What the site and `bananabench report` show, as plain data: the answers `Queries` gives.

Benchmarks, score rows and the cells built from them, the leaderboard and per-benchmark tables,
run and model summaries, attempts (already redacted by policy) and gallery entries.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from evaluators.core.contract import ERROR_STATUSES, MESSAGE_KEYS, AttemptKey, ScoreKey, target_tests_words
from evaluators.core.presentation import Presentation


@dataclass(frozen=True)
class Benchmark:
    name: str
    evaluator: str
    title: str
    version: str | None
    policy: str
    headline_metric: str | None
    higher_is_better: bool
    description: str | None
    presentation: Presentation  # what its evaluator declared the site shows of its runs

    @property
    def ids_only(self) -> bool:
        return self.policy == "ids-only"


@dataclass(frozen=True)
class Score:
    """One `scores` row."""

    run_id: str
    scope: str
    key: str
    metric: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int | None
    extra: dict[str, Any]

    @property
    def reportable(self) -> bool | None:
        flag = self.extra.get(ScoreKey.REPORTABLE)
        return None if flag is None else bool(flag)

    @property
    def ci_method(self) -> str | None:
        return self.extra.get(ScoreKey.CI_METHOD)


@dataclass(frozen=True)
class Cell:
    """A value a table shows, with the run it comes from."""

    score: Score
    run_id: str
    official: bool
    finished_at: Any
    split: str

    @property
    def value(self) -> float | None:
        return self.score.value


@dataclass(frozen=True)
class Column:
    benchmark: Benchmark
    split: str
    metric: str
    headline: bool

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.benchmark.name, self.split, self.metric)


@dataclass
class LeaderboardRow:
    model: str
    cells: dict[tuple[str, str, str], Cell]


@dataclass
class Leaderboard:
    columns: list[Column]
    rows: list[LeaderboardRow]
    models_without_runs: list[str]


@dataclass
class ScoreTable:
    """A model × key matrix of one metric at one scope of a benchmark (keys: categories, splits, cells...)."""

    scope: str
    metric: str
    keys: list[str]
    rows: list[tuple[str, dict[str, Cell]]]


@dataclass
class BenchmarkView:
    benchmark: Benchmark
    runs: list[dict[str, Any]]
    overview: ScoreTable
    tables: list[ScoreTable]


@dataclass
class RunSummary:
    run: dict[str, Any]
    benchmark: Benchmark
    current: bool
    status_counts: dict[str, int]
    scores: list[Score]
    servers: list[dict[str, Any]]
    verdicts: dict[str, int] = field(default_factory=dict)  # right/wrong among attempts only marked scored

    @property
    def run_id(self) -> str:
        return self.run["run_id"]

    def overall(self) -> list[Score]:
        return [s for s in self.scores if s.scope == "overall"]

    def headline(self) -> Score | None:
        metric = self.benchmark.headline_metric
        return next((s for s in self.scores if s.scope == "overall" and s.key == "" and s.metric == metric), None)

    def by_scope(self) -> dict[str, list[Score]]:
        out: dict[str, list[Score]] = defaultdict(list)
        for s in self.scores:
            if s.scope != "overall":
                out[s.scope].append(s)
        return dict(out)

    @property
    def n_errors(self) -> int:
        return sum(self.status_counts.get(s, 0) for s in ERROR_STATUSES)


@dataclass
class ModelView:
    name: str
    runs: list[RunSummary]
    grades: list[dict[str, Any]]


@dataclass
class Attempt:
    """One attempt row, already redacted for ids-only benchmarks unless the build is private."""

    run_id: str
    item_id: str
    attempt: int
    status: str
    correct: bool | None
    score: float | None
    prediction: str | None
    reference: str | None
    category: str | None
    difficulty: str | None
    wall_s: float | None
    extra: dict[str, Any]
    metrics: dict[str, float] = field(default_factory=dict)
    grade: dict[str, Any] | None = None

    @property
    def message(self) -> str | None:
        """The error or stuck reason the evaluator recorded, if any."""
        for key in MESSAGE_KEYS:
            if self.extra.get(key):
                return str(self.extra[key])
        return None

    @property
    def target_tests(self) -> str | None:
        """"fixed n of m target tests, broke k of j" for attempts on fail-to-pass tasks."""
        counts = self.extra.get(AttemptKey.TARGET_TESTS)
        return target_tests_words(counts) if counts else None


@dataclass
class GalleryEntry:
    model: str
    run_id: str
    benchmark: Benchmark
    attempt: Attempt
