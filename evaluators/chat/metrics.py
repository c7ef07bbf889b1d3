"""Aggregates of a chat run: accuracy with its interval and the correct/wrong/unanswered/error split.

Accuracy is correct / (correct + wrong + unanswered + truncated): an unanswered item (no answer
found, e.g. empty content after thinking used the whole budget) and a truncated one (the budget cut
the answer) count against the model but are reported apart from wrong ones. Infrastructure errors are excluded from every rate and listed as
`n_error`, so a server outage never looks like a wrong answer.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from evaluators.core.contract import ERROR, Metric, ScoreKey
from evaluators.core.stats import wilson_interval
from evaluators.store.records import AttemptRow, ScoreRow

STATUSES = ("correct", "wrong", "unanswered", "truncated", ERROR)


def counts(attempts: Iterable[AttemptRow]) -> Counter:
    return Counter(a.status for a in attempts)


def _rows(scope: str, key: str, tally: Counter) -> list[ScoreRow]:
    n_correct, n_wrong, n_unanswered, n_truncated, n_error = (tally.get(s, 0) for s in STATUSES)
    scored = n_correct + n_wrong + n_unanswered + n_truncated
    rows: list[ScoreRow] = []
    if scored:
        low, high = wilson_interval(n_correct, scored)
        answered = n_correct + n_wrong
        rows.append(ScoreRow(scope=scope, key=key, metric=Metric.ACCURACY, value=n_correct / scored,
                             ci_low=low, ci_high=high, n=scored,
                             extra={ScoreKey.CI_METHOD: "wilson", ScoreKey.REPORTABLE: n_error == 0,
                                    "accuracy_answered": n_correct / answered if answered else None}))
    for metric, value in (("n_correct", n_correct), ("n_wrong", n_wrong), ("n_unanswered", n_unanswered),
                          ("n_truncated", n_truncated), ("n_error", n_error)):
        rows.append(ScoreRow(scope=scope, key=key, metric=metric, value=float(value), n=scored + n_error))
    return rows


def score_rows(attempts: list[AttemptRow]) -> list[ScoreRow]:
    """`scores` rows: overall, and per category (MMLU subject) where items have one."""
    rows = _rows("overall", "", counts(attempts))
    by_category: dict[str, list[AttemptRow]] = defaultdict(list)
    for attempt in attempts:
        if attempt.category:
            by_category[attempt.category].append(attempt)
    for category in sorted(by_category):
        rows.extend(_rows("category", category, counts(by_category[category])))
    return rows


def summary(attempts: list[AttemptRow]) -> dict[str, Any]:
    """The numbers a person reads at the end of a run."""
    tally = counts(attempts)
    scored = tally["correct"] + tally["wrong"] + tally["unanswered"] + tally["truncated"]
    return {"n": len(attempts), "accuracy": tally["correct"] / scored if scored else None,
            **{f"n_{s}": tally.get(s, 0) for s in STATUSES}}
