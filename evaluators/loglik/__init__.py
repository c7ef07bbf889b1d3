"""Continuation log-likelihood benchmarks for base models: BananaMind Base Bench 1.1 and base-evals."""

from typing import Any

from evaluators.core.contract import CommonExtra
from evaluators.core.presentation import Presentation, Rank


class AttemptExtra(CommonExtra, total=False):
    """`attempts.extra` of a loglik attempt. Per metric scored besides the attempt's own, `prediction_<metric>`
    and `correct_<metric>` (`AttemptKey.verdict`); documents of a rolling benchmark carry their totals."""

    item_elo: float
    point_weight: float
    rank: int
    loglikelihood: float
    tokens: int
    windows: int
    words: int
    bytes: int
    lm_eval: dict[str, Any]  # an imported run's sample: task, doc_id, line of its samples file
    # The item's text where a run keeps it beside the outcome (the site publishes it once per item set;
    # never for an ids-only benchmark): its context, and its continuations or choices.
    context: str
    continuations: list[str]
    choices: list[str]


# What the site shows of loglik runs: their scores and the item table (registered by `start_run`).
PRESENTATION = Presentation(rank=Rank.LIKELIHOOD)
