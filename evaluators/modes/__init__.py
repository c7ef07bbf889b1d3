"""ModeBench on BananaBench: sample k answers per problem, grade them with `modebench`, keep every attempt.

`modebench` (a dependency, never re-implemented here) owns the tasks, the prompts, the verifiers and
the per-cell metrics. This package does what it leaves to its users: generate responses from a model
(`generate.py`), run its file evaluation over one or more groups and ingest the receipts and journals
into the store (`run.py`), and combine several groups the way the ModeBench grid does (`metrics.py`).
"""

from typing import Any

from evaluators.core.contract import CommonExtra, Metric
from evaluators.core.presentation import Presentation, Rank


class AttemptExtra(CommonExtra, total=False):
    """`attempts.extra` of a ModeBench draw: its group of k, its cell of the grid, and modebench's grading."""

    group: int
    draw: int
    k: int
    level: str
    domain: str
    config: dict[str, Any]
    cell: str
    canonical_key: str | None
    detail: Any
    prompt_sha256: str
    reference_sha256: str
    problem: str
    response: str
    seed: int
    finish_reason: str | None
    refusal: str


BENCHMARK = "modebench"
CUSTOM_BENCHMARK = "modebench-custom"
HEADLINE_METRIC = Metric.PASS_AT_K
# What the site shows of ModeBench runs: their scores and the item table (registered by `start_run`).
PRESENTATION = Presentation(rank=Rank.DIVERSITY)
