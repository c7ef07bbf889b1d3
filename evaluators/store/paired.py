"""Two runs compared item by item: per-item outcomes from the store, their pairing, and the paired test.

Used by the site's diff pages, `bananabench report --baseline` and `chat compare`, so a difference
reads the same everywhere. Runs are paired on `item_id`; infrastructure errors are dropped on either
side, so a difference is judged against the noise of *these* items rather than two independent
intervals:
- metrics with one verdict per item (accuracy, acc, acc_norm, acc_chars): exact McNemar on the
  discordant pairs, with a paired-bootstrap interval of the delta;
- Elo: paired bootstrap over items, refitting the fixed-item Elo of both runs on every resample;
- other item-decomposable metrics (mean score, pass@k, weighted accuracy): paired bootstrap;
- anything else (e.g. PCMD, whose eligibility depends on correctness): a delta without a test.

Delta = b − a throughout (`a` is the baseline).
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from evaluators.core import stats
from evaluators.core.contract import ERROR_STATUSES, VERDICT_METRICS, AttemptKey, Metric

N_RESAMPLES = 2000
SEED = 0


@dataclass
class PairedItem:
    """One item both runs scored: per-run outcome summaries (see `item_outcomes`)."""

    item_id: str
    category: str | None
    a: dict[str, Any]
    b: dict[str, Any]


@dataclass
class Pairing:
    """Items two runs both scored, and how many only one of them has."""

    pairs: list[PairedItem]
    only_a: int
    only_b: int


_OUTCOMES_SQL = f"""
    WITH per_group AS (
        SELECT run_id, item_id, coalesce(json_extract_string(extra, '$.{AttemptKey.GROUP}'), '') AS grp,
               max(CASE WHEN correct THEN 1 ELSE 0 END) AS any_correct
        FROM attempts WHERE run_id IN (SELECT unnest($runs)) AND status NOT IN (SELECT unnest($errors))
        GROUP BY ALL),
    per_item AS (
        SELECT run_id, item_id, any_value(category) AS category,
               count(*) FILTER (WHERE status NOT IN (SELECT unnest($errors))) AS n,
               avg(coalesce(score, CASE WHEN correct THEN 1.0 WHEN NOT correct THEN 0.0 END))
                   FILTER (WHERE status NOT IN (SELECT unnest($errors))) AS score,
               CASE WHEN count(*) = 1 THEN any_value(correct) END AS correct,
               list(status ORDER BY attempt) AS statuses,
               any_value(weight) AS weight,
               any_value(TRY_CAST(json_extract_string(extra, '$.{AttemptKey.ITEM_ELO}') AS DOUBLE)) AS item_elo,
               {{texts}}
        FROM attempts WHERE run_id IN (SELECT unnest($runs)) GROUP BY run_id, item_id)
    SELECT p.*, g.group_pass FROM per_item p LEFT JOIN (
        SELECT run_id, item_id, avg(any_correct) AS group_pass FROM per_group GROUP BY ALL
    ) g USING (run_id, item_id)"""


_TEXTS = """CASE WHEN count(*) = 1 THEN any_value(extra) END AS extra,
               CASE WHEN count(*) = 1 THEN any_value(prediction) END AS prediction,
               CASE WHEN count(*) = 1 THEN any_value(reference) END AS reference"""


def item_outcomes(con: Any, run_ids: list[str], *, only: str | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """Per run and item, aggregated over its attempts with infrastructure errors excluded.

    `n` attempts, mean `score` (a missing score counts `correct` as 0/1), `correct` (of a single
    attempt, else None), the status of each attempt, `weight`, `item_elo`, `group_pass` (mean over
    `extra.group` groups — or over all attempts — of whether any attempt was correct), per-metric
    `verdicts` from `extra.correct_<metric>`, prediction and reference (of a single attempt).
    `con` is an open DuckDB connection to the store. `only`: a metric whose verdict is all the caller needs
    (no prediction, reference or other verdicts are read: much faster on large runs).
    """
    texts = _TEXTS if only is None else (
        f"TRY_CAST(json_extract_string(any_value(extra), '$.{AttemptKey.verdict(only)}') AS BOOLEAN) AS verdict")
    cur = con.execute(_OUTCOMES_SQL.replace("{texts}", texts), {"runs": list(run_ids), "errors": list(ERROR_STATUSES)})
    columns = [d[0] for d in cur.description]
    out: dict[str, dict[str, dict[str, Any]]] = {r: {} for r in run_ids}
    prefix = AttemptKey.VERDICT_PREFIX
    for values in cur.fetchall():
        row = dict(zip(columns, values, strict=True))
        if only is None:
            extra = json.loads(row.pop("extra") or "{}")
            row["verdicts"] = {k[len(prefix):]: v for k, v in extra.items() if k.startswith(prefix)
                               and isinstance(v, bool)}
        else:
            verdict = row.pop("verdict")
            row["verdicts"] = {} if verdict is None or row["n"] != 1 else {only: verdict}
        out[row.pop("run_id")][row["item_id"]] = row
    return out


def pair(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> Pairing:
    """The items two runs' outcomes share, in natural id order (`item-2` before `item-10`)."""
    pairs = [PairedItem(item, a[item]["category"] or b[item]["category"], a[item], b[item])
             for item in sorted(set(a) & set(b), key=natural_key)]
    return Pairing(pairs, len(set(a) - set(b)), len(set(b) - set(a)))


def natural_key(text: str) -> tuple:
    """Sort key that orders `item-2` before `item-10`."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p.lower()) for p in re.split(r"(\d+)", text))


@dataclass(frozen=True)
class TestResult:
    """A paired comparison: delta on the paired items, its interval and p-value."""

    method: str
    n: int
    delta: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    improved: int | None = None  # discordant pairs: a wrong, b right
    regressed: int | None = None
    note: str | None = None

    @property
    def significant(self) -> bool:
        return self.p_value is not None and not math.isnan(self.p_value) and self.p_value < 0.05


def has_verdicts(metric: str, pairs: list[PairedItem] = ()) -> bool:
    """Whether `metric` is a share of items judged right: a known verdict metric, an `_accuracy`, or one the
    items carry a `correct_<metric>` verdict for (a spec's own metric names)."""
    if metric in VERDICT_METRICS or metric.endswith("_accuracy") and metric != Metric.WEIGHTED_ACCURACY:
        return True
    return any(metric in p.a["verdicts"] or metric in p.b["verdicts"] for p in pairs)


def _verdict(item: dict[str, Any], metric: str) -> bool | None:
    verdict = item["verdicts"].get(metric, item["correct"])
    return None if verdict is None or item["n"] != 1 else bool(verdict)


def item_value(item: dict[str, Any], metric: str) -> float | None:
    """An item's contribution to `metric` in one run (None when it has none)."""
    if metric == Metric.PASS_AT_K:
        return item["group_pass"]
    if (metric in VERDICT_METRICS or metric in item["verdicts"]) and item["n"] == 1:
        verdict = _verdict(item, metric)
        return None if verdict is None else float(verdict)
    return item["score"]


def paired_test(metric: str, pairs: list[PairedItem], *, seed: int = SEED,
                n_resamples: int = N_RESAMPLES) -> TestResult:
    """The paired test that fits `metric`, over items both runs scored (errors excluded)."""
    pairs = [p for p in pairs if p.a["n"] and p.b["n"]]
    if not pairs:
        return TestResult("none", 0, note="no items scored by both runs")
    if has_verdicts(metric, pairs):
        verdicts = [(_verdict(p.a, metric), _verdict(p.b, metric)) for p in pairs]
        verdicts = [(a, b) for a, b in verdicts if a is not None and b is not None]
        if verdicts:
            improved = sum(1 for a, b in verdicts if not a and b)
            regressed = sum(1 for a, b in verdicts if a and not b)
            diff = np.array([float(b) - float(a) for a, b in verdicts])
            interval = _mean_bootstrap(diff, seed, n_resamples)
            return TestResult("exact McNemar", len(diff), delta=float(diff.mean()), ci_low=interval.ci_low,
                              ci_high=interval.ci_high, p_value=stats.mcnemar_exact(regressed, improved),
                              improved=improved, regressed=regressed)
    if metric == Metric.ELO:
        return _elo_test(pairs, seed=seed, n_resamples=n_resamples)
    if metric == Metric.WEIGHTED_ACCURACY:
        return _weighted_test(pairs, seed=seed, n_resamples=n_resamples)
    if metric in VERDICT_METRICS or metric in {Metric.SCORE, Metric.PASS_AT_K} or metric.endswith("_accuracy"):
        values = [(item_value(p.a, metric), item_value(p.b, metric)) for p in pairs]
        values = [(a, b) for a, b in values if a is not None and b is not None]
        if not values:
            return TestResult("none", 0, note="no item-level values to pair")
        return _from_delta(_mean_bootstrap(np.array([b - a for a, b in values]), seed, n_resamples))
    return TestResult("none", len(pairs), note=f"{metric} has no per-item decomposition; no paired test")


@functools.lru_cache(maxsize=16)
def _counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """Resample counts, shared by every test on n items (deterministic in (n, n_resamples, seed))."""
    counts = stats.resample_counts(n, n_resamples, seed).astype(np.int32)
    counts.flags.writeable = False
    return counts


def _mean_bootstrap(diff: np.ndarray, seed: int, n_resamples: int) -> stats.PairedDelta:
    counts = _counts(len(diff), n_resamples, seed)
    return stats.summarize_resamples(float(diff.mean()), counts @ diff / len(diff), len(diff),
                                     "paired bootstrap (mean over items)")


def _from_delta(d: stats.PairedDelta) -> TestResult:
    return TestResult(d.method, d.n, delta=d.delta, ci_low=d.ci_low, ci_high=d.ci_high, p_value=d.p_value)


def _elo_test(pairs: list[PairedItem], *, seed: int, n_resamples: int) -> TestResult:
    usable = [p for p in pairs if p.a["item_elo"] is not None and _verdict(p.a, Metric.ELO) is not None
              and _verdict(p.b, Metric.ELO) is not None]
    if len(usable) < len(pairs):
        return TestResult("none", len(pairs), note="items lack extra.item_elo or a single verdict; Elo not refitted")
    items = np.array([p.a["item_elo"] for p in usable], dtype=float)
    weight = np.array([p.a["weight"] if p.a["weight"] is not None else 1.0 for p in usable], dtype=float)
    ya = np.array([_verdict(p.a, Metric.ELO) for p in usable])
    yb = np.array([_verdict(p.b, Metric.ELO) for p in usable])
    observed = stats.fixed_item_elo(yb, items, weight).rating - stats.fixed_item_elo(ya, items, weight).rating
    w = _counts(len(usable), n_resamples, seed) * weight
    deltas = stats.fixed_item_elo_batch(yb, items, w) - stats.fixed_item_elo_batch(ya, items, w)
    return _from_delta(stats.summarize_resamples(observed, deltas, len(usable), "paired bootstrap (Elo refit)"))


def _weighted_test(pairs: list[PairedItem], *, seed: int, n_resamples: int) -> TestResult:
    rows = [(p.a["score"], p.b["score"], p.a["weight"] or 1.0) for p in pairs
            if p.a["score"] is not None and p.b["score"] is not None]
    if not rows:
        return TestResult("none", 0, note="no item-level values to pair")
    a, b, w = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    counts = _counts(len(rows), n_resamples, seed) * w
    observed = float(np.dot(w, b - a) / w.sum())
    deltas = counts @ (b - a) / counts.sum(axis=1)
    return _from_delta(stats.summarize_resamples(observed, deltas, len(rows), "paired bootstrap (weighted)"))
