"""Aggregates: Base Bench Elo and accuracies, base-evals acc/acc_norm, as report values and store rows.

Predictions follow the seeds exactly: the highest mean (Base Bench, base-evals `acc_norm`) or summed
(base-evals `acc`) continuation log-prob wins, ties go to the first index. Rejected items are not
scored: they are counted and listed, never treated as wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evaluators.core.stats import fixed_item_elo, wilson_interval

PRIOR_RATING = 1000.0
PRIOR_WEIGHT = 4.0
ELO_SCALE = 400.0
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


def _elo_summary(correct: list[bool], item_elo: list[float], weight: list[float]) -> dict[str, Any]:
    fit = fixed_item_elo(correct, item_elo, weight, prior_rating=PRIOR_RATING, prior_weight=PRIOR_WEIGHT,
                         scale=ELO_SCALE)
    return {"value": fit.rating, "ci_low": fit.ci_low, "ci_high": fit.ci_high,
            "standard_error": fit.standard_error, "method": fit.method}


def _accuracy(correct: list[bool]) -> dict[str, Any]:
    k, n = sum(correct), len(correct)
    low, high = wilson_interval(k, n)
    return {"value": k / n if n else None, "ci_low": low if n else None, "ci_high": high if n else None, "n": n}


def base_bench_summary(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Elo (overall and per category), raw and weighted accuracy over scored items.

    `items`: dicts with `category`, `correct`, `item_elo`, `point_weight` (rejected items excluded).
    """
    correct = [bool(i["correct"]) for i in items]
    weights = [float(i["point_weight"]) for i in items]
    summary: dict[str, Any] = {"n": len(items)}
    if not items:
        return summary
    summary["elo"] = _elo_summary(correct, [i["item_elo"] for i in items], weights)
    summary["accuracy"] = _accuracy(correct)
    summary["weighted_accuracy"] = sum(w for w, c in zip(weights, correct, strict=True) if c) / sum(weights)
    categories: dict[str, dict[str, Any]] = {}
    for cat in dict.fromkeys(i["category"] for i in items):
        members = [i for i in items if i["category"] == cat]
        cc = [bool(i["correct"]) for i in members]
        cw = [float(i["point_weight"]) for i in members]
        categories[cat] = {
            "n": len(members),
            "elo": _elo_summary(cc, [i["item_elo"] for i in members], cw),
            "accuracy": _accuracy(cc),
            "weighted_accuracy": sum(w for w, c in zip(cw, cc, strict=True) if c) / sum(cw),
        }
    summary["categories"] = categories
    return summary


def base_bench_scores(summary: dict[str, Any], n_rejected: int) -> list[dict[str, Any]]:
    """`scores` rows for a Base Bench run (headline: overall `elo`)."""
    rows: list[dict[str, Any]] = []
    n = summary["n"]
    if n:
        rows += _elo_rows("overall", "", summary["elo"], n)
        rows.append(_acc_row("overall", "", "accuracy", summary["accuracy"]))
        rows.append({"scope": "overall", "key": "", "metric": "weighted_accuracy",
                     "value": summary["weighted_accuracy"], "n": n})
        for cat, cs in summary["categories"].items():
            rows += _elo_rows("category", cat, cs["elo"], cs["n"])
            rows.append(_acc_row("category", cat, "accuracy", cs["accuracy"]))
            rows.append({"scope": "category", "key": cat, "metric": "weighted_accuracy",
                         "value": cs["weighted_accuracy"], "n": cs["n"]})
    rows.append({"scope": "overall", "key": "", "metric": "n_rejected", "value": float(n_rejected), "n": n + n_rejected})
    return rows


def _elo_rows(scope: str, key: str, elo: dict[str, Any], n: int) -> list[dict[str, Any]]:
    return [{"scope": scope, "key": key, "metric": "elo", "value": elo["value"], "ci_low": elo["ci_low"],
             "ci_high": elo["ci_high"], "n": n,
             "extra": {"ci_method": elo["method"], "standard_error": elo["standard_error"],
                       "prior_rating": PRIOR_RATING, "prior_weight": PRIOR_WEIGHT, "scale": ELO_SCALE}}]


def _acc_row(scope: str, key: str, metric: str, acc: dict[str, Any]) -> dict[str, Any]:
    return {"scope": scope, "key": key, "metric": metric, "value": acc["value"], "ci_low": acc["ci_low"],
            "ci_high": acc["ci_high"], "n": acc["n"], "extra": {"ci_method": ACC_CI_METHOD}}


def choice_summary(items: Sequence[dict[str, Any]], n_rejected: int) -> dict[str, Any]:
    """`acc` (largest sum), `acc_norm` (largest mean per token) and `acc_chars` (lm-eval's acc_norm: per
    character) over scored items, each from the items' `correct_<metric>` flag when they carry it."""
    summary: dict[str, Any] = {"n": len(items), "rejected": n_rejected}
    for metric in CHOICE_METRICS:
        flags = [i.get(f"correct_{metric}") for i in items]
        if items and all(f is not None for f in flags):
            summary[metric] = _accuracy([bool(f) for f in flags])
    return summary


CHOICE_METRICS = ("acc_norm", "acc", "acc_chars")


def choice_scores(split: str | None, summary: dict[str, Any]) -> list[dict[str, Any]]:
    """`scores` rows for a multiple-choice run: the overall scope, and the split scope for a base-evals split."""
    rows = []
    for scope, key in (("overall", ""), ("split", split)):
        if key is None:
            continue
        rows.extend(_acc_row(scope, key, metric, summary[metric]) for metric in CHOICE_METRICS if metric in summary)
        rows.append({"scope": scope, "key": key, "metric": "n_rejected", "value": float(summary["rejected"]),
                     "n": summary["n"] + summary["rejected"]})
    return rows
