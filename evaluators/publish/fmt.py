"""How numbers read, shared by the site and `bananabench report` so both print the same figures.

Metrics are stored in natural units (fractions 0–1 for rates, rating points for Elo, counts);
this module decides how each one is shown from its name alone.
"""

from __future__ import annotations

import math

from evaluators.core.contract import SCORED_STATUS, Metric

# Fractions in the store, shown as percentages (deltas in percentage points).
FRACTION_METRICS = frozenset({
    Metric.ACCURACY, Metric.ACC, Metric.ACC_NORM, Metric.ACC_CHARS, Metric.WEIGHTED_ACCURACY, Metric.SCORE,
    Metric.PASS_AT_K, Metric.DISTINCT_AT_K, Metric.PCMD, Metric.PASS_RATE, "recall", "precision",
})
RATING_METRICS = frozenset({Metric.ELO})
GRADE_METRICS = frozenset({Metric.MANUAL_GRADE})

METRIC_LABELS = {
    Metric.ACC_NORM: "acc_norm", Metric.WEIGHTED_ACCURACY: "weighted acc.",
    # lm-eval's acc_norm divides by the continuation's characters; ours (acc_norm) by its tokens
    Metric.ACC_CHARS: "lm-eval acc_norm (chars)",
    Metric.ELO: "Elo", Metric.PASS_AT_K: "pass@k", Metric.DISTINCT_AT_K: "distinct@k", Metric.PCMD: "PCMD",
    Metric.MANUAL_GRADE: "human grade", "n_correct": "correct", "n_wrong": "wrong", "n_unanswered": "unanswered",
    "n_truncated": "truncated (cut by the token budget)", "n_error": "errors",
}


def is_fraction(metric: str) -> bool:
    return metric in FRACTION_METRICS or metric.endswith(("_accuracy", "_rate", "_share"))


def is_count(metric: str) -> bool:
    return metric.startswith("n_") or metric in {"n", "count"}


def metric_label(metric: str) -> str:
    """Readable name of a metric (`pass_at_k` → `pass@k`)."""
    return METRIC_LABELS.get(metric, metric.replace("_", " "))


def _finite(value: float | None) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def value(metric: str, v: float | None) -> str:
    """One value, e.g. `61.2%`, `1043`, `3.5/5`; an em dash when absent."""
    if not _finite(v):
        return "—"
    if is_fraction(metric):
        return f"{100 * v:.1f}%"
    if metric in RATING_METRICS:
        return f"{v:.0f}"
    if metric in GRADE_METRICS:
        return f"{v:.1f}/5"
    if is_count(metric) or float(v).is_integer():
        return f"{int(v):,}"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def number(metric: str, v: float | None) -> str:
    """A value without its unit sign, for compact table cells (`61.2`, `1043`)."""
    text = value(metric, v)
    return text[:-1] if text.endswith("%") else text.removesuffix("/5")


def _scaled(metric: str, x: float, sign: str = "", other: str = ".3g") -> str:
    """`x` in the metric's display units, without the unit: percentage points for fractions, whole
    points for ratings, three significant digits otherwise (`sign`: "+" for differences)."""
    if is_fraction(metric):
        return f"{100 * x:{sign}.1f}"
    if metric in RATING_METRICS:
        return f"{x:{sign}.0f}"
    return f"{x:{sign}{other}}"


def delta(metric: str, d: float | None) -> str:
    """A signed difference: `+3.1 pp` for fractions, `+25` Elo, `+0.4` otherwise."""
    if not _finite(d):
        return "—"
    return _scaled(metric, d, "+") + (" pp" if is_fraction(metric) else "")


def delta_interval(metric: str, low: float | None, high: float | None) -> str:
    """A 95% interval of a difference, `[-9.1, +63.6] pp`; empty without one."""
    if not (_finite(low) and _finite(high)):
        return ""
    return f"[{_scaled(metric, low, '+')}, {_scaled(metric, high, '+')}]" + (" pp" if is_fraction(metric) else "")


def interval(metric: str, low: float | None, high: float | None) -> str:
    """A 95% interval as `58.1–64.0%`; empty when the store has none."""
    if not (_finite(low) and _finite(high)):
        return ""
    return f"{_scaled(metric, low)}–{_scaled(metric, high)}" + ("%" if is_fraction(metric) else "")


def half_width(metric: str, low: float | None, high: float | None) -> str:
    """`±3.0` (in display units) for a compact cell; empty without an interval."""
    if not (_finite(low) and _finite(high)):
        return ""
    return "±" + _scaled(metric, (high - low) / 2, other=".2g")


def p_value(p: float | None) -> str:
    if not _finite(p):
        return "—"
    if p < 0.001:
        return "<0.001"
    return f"{p:.3f}"


def seconds(s: float | None) -> str:
    if not _finite(s):
        return "—"
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def statuses(values: list[str]) -> str:
    """Attempt statuses of one item, e.g. `passed×2, failed`."""
    counts: dict[str, int] = {}
    for status in values:
        counts[status] = counts.get(status, 0) + 1
    return ", ".join(f"{s}×{n}" if n > 1 else s for s, n in sorted(counts.items()))


def outcome(item: dict) -> str:
    """An item's outcome in one run (`store.paired.item_outcomes`): right/wrong for items only marked scored
    (loglik's `ok`), else its attempts' statuses."""
    if item["statuses"] == [SCORED_STATUS] and item.get("correct") is not None:
        return "right" if item["correct"] else "wrong"
    return statuses(item["statuses"])
