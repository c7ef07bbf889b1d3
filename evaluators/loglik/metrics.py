"""A loglik benchmark's numbers: each item's picks by the spec's choice rules, then accuracies (Wilson
intervals), weighted accuracy and the fixed-item Elo, overall and per category, as report values and
store rows.

Choice rules (ties go to the first index, the seeds' rule): `sum` the largest summed continuation
log-prob, `mean` the largest mean per continuation token, `chars` the largest sum per continuation
character (lm-eval's acc_norm). The first metric of a spec is each item's verdict: its `correct`, and
what weighted accuracy and the Elo count. Rejected items are not scored: they are counted and listed,
never treated as wrong.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evaluators.core.contract import Metric
from evaluators.core.stats import fixed_item_elo, wilson_interval
from evaluators.store.records import ScoreRow

ACC_CI_METHOD = "wilson"


@dataclass(frozen=True)
class ChoiceScore:
    logprob_sum: float
    n_tokens: int

    @property
    def mean_logprob(self) -> float:
        return self.logprob_sum / self.n_tokens

    def as_dict(self) -> dict[str, Any]:
        return {"logprob_sum": self.logprob_sum, "n_tokens": self.n_tokens, "mean_logprob": self.mean_logprob}


@dataclass(frozen=True)
class Elo:
    """Fixed-item Elo: the weighted maximum-likelihood rating with a virtual-games prior."""

    prior_rating: float = 1000.0
    prior_weight: float = 4.0
    scale: float = 400.0


def first_argmax(values: Sequence[float]) -> int:
    """Index of the largest value; the first one on ties (the seeds' rule)."""
    best = 0
    for i, v in enumerate(values):
        if v > values[best]:
            best = i
    return best


def predict_mean(choices: Sequence[ChoiceScore]) -> int:
    return first_argmax([c.mean_logprob for c in choices])


def predict_sum(choices: Sequence[ChoiceScore]) -> int:
    return first_argmax([c.logprob_sum for c in choices])


def predict_chars(logprob_sums: Sequence[float], chars: Sequence[int]) -> int:
    """lm-eval's acc_norm pick: the largest summed log-prob per character of the continuation text."""
    return first_argmax([lp / max(n, 1) for lp, n in zip(logprob_sums, chars, strict=True)])


RULES = ("sum", "mean", "chars")


def pick(rule: str, choices: Sequence[ChoiceScore], texts: Sequence[str]) -> int:
    """The choice a rule picks (`texts`: the continuations, for `chars`)."""
    if rule == "mean":
        return predict_mean(choices)
    if rule == "sum":
        return predict_sum(choices)
    return predict_chars([c.logprob_sum for c in choices], [len(t) for t in texts])


@dataclass(frozen=True)
class Verdict:
    """One scored item: whether each metric's pick is the answer, and what the aggregates weigh it by."""

    correct: dict[str, bool]
    category: str | None = None
    weight: float = 1.0
    item_elo: float | None = None


@dataclass(frozen=True)
class Aggregates:
    """What a benchmark reports: its accuracy metrics (the first is the verdict), and whether it also
    reports weighted accuracy, a fixed-item Elo, and per-category numbers."""

    metrics: tuple[str, ...]
    weighted: bool = False
    elo: Elo | None = None
    by_category: bool = False


# Keys of a summary that are not accuracy metrics: no spec may name a metric so.
RESERVED = (Metric.WEIGHTED_ACCURACY, Metric.ELO, "n", "rejected", "categories")


def _accuracy(correct: list[bool]) -> dict[str, Any]:
    k, n = sum(correct), len(correct)
    low, high = wilson_interval(k, n)
    return {"value": k / n if n else None, "ci_low": low if n else None, "ci_high": high if n else None, "n": n}


def _elo(verdicts: Sequence[Verdict], verdict: str, elo: Elo) -> dict[str, Any]:
    fit = fixed_item_elo([v.correct[verdict] for v in verdicts], [v.item_elo for v in verdicts],
                         [v.weight for v in verdicts], prior_rating=elo.prior_rating, prior_weight=elo.prior_weight,
                         scale=elo.scale)
    return {"value": fit.rating, "ci_low": fit.ci_low, "ci_high": fit.ci_high,
            "standard_error": fit.standard_error, "method": fit.method}


def _group(verdicts: Sequence[Verdict], agg: Aggregates) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(verdicts)}
    verdict = agg.metrics[0]
    if agg.elo is not None:
        out[Metric.ELO] = _elo(verdicts, verdict, agg.elo)
    for metric in agg.metrics:
        out[metric] = _accuracy([v.correct[metric] for v in verdicts])
    if agg.weighted:
        total = sum(v.weight for v in verdicts)
        out[Metric.WEIGHTED_ACCURACY] = sum(v.weight for v in verdicts if v.correct[verdict]) / total
    return out


def summarize(verdicts: Sequence[Verdict], agg: Aggregates, n_rejected: int = 0) -> dict[str, Any]:
    """`{"n", "rejected", <metric>: {value, ci_low, ci_high, n}, "weighted_accuracy", "elo", "categories"}` over
    the scored items (no numbers when none could be scored); categories in order of first appearance."""
    if not verdicts:
        return {"n": 0, "rejected": n_rejected}
    summary = {**_group(verdicts, agg), "rejected": n_rejected}
    if agg.by_category:
        cats = dict.fromkeys(v.category for v in verdicts)
        summary["categories"] = {c: _group([v for v in verdicts if v.category == c], agg) for c in cats}
    return summary


def _rows(scope: str, key: str, group: dict[str, Any], agg: Aggregates) -> list[ScoreRow]:
    rows: list[ScoreRow] = []
    if Metric.ELO in group:
        elo, params = group[Metric.ELO], agg.elo
        rows.append(ScoreRow(scope=scope, key=key, metric=Metric.ELO, value=elo["value"], ci_low=elo["ci_low"],
                             ci_high=elo["ci_high"], n=group["n"],
                             extra={"ci_method": elo["method"], "standard_error": elo["standard_error"],
                                    "prior_rating": params.prior_rating, "prior_weight": params.prior_weight,
                                    "scale": params.scale}))
    for metric in agg.metrics:
        acc = group[metric]
        rows.append(ScoreRow(scope=scope, key=key, metric=metric, value=acc["value"], ci_low=acc["ci_low"],
                             ci_high=acc["ci_high"], n=acc["n"], extra={"ci_method": ACC_CI_METHOD}))
    if Metric.WEIGHTED_ACCURACY in group:
        rows.append(ScoreRow(scope=scope, key=key, metric=Metric.WEIGHTED_ACCURACY,
                             value=group[Metric.WEIGHTED_ACCURACY], n=group["n"]))
    return rows


def score_rows(summary: dict[str, Any], agg: Aggregates, split: str | None = None) -> list[ScoreRow]:
    """`scores` rows: the overall scope, each category, and the split scope for a run over one split."""
    n, rejected = summary["n"], summary["rejected"]
    overall = _rows("overall", "", summary, agg) if n else []
    rows = [*overall]
    for cat, group in summary.get("categories", {}).items():
        rows += _rows("category", cat, group, agg)
    counted = ScoreRow(scope="overall", key="", metric=Metric.N_REJECTED, value=float(rejected), n=n + rejected)
    rows.append(counted)
    if split is not None:
        rows += [dataclasses.replace(r, scope="split", key=split) for r in (*overall, counted)]
    return rows
