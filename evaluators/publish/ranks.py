"""Which models a benchmark can tell apart: ranks with 95% rank intervals and a pairwise matrix.

One paired bootstrap per leaderboard headline column (benchmark, split), over the items the current
runs scored: the union of their item ids in natural order is resampled with replacement
`RESAMPLES` times (`numpy.random.default_rng(SEED).integers(0, n, (RESAMPLES, n))`), and every model's
headline is recomputed on each resample from its own items in it — all models on the same draw, so an
item that is hard for everyone moves everyone. The headline is the mean of the items' values (verdicts,
scores, pass@k per prompt), the weighted mean for a weighted accuracy, and for an Elo the fixed-item
rating refitted on the resampled weights. A model's rank on a resample is 1 + the number of models
strictly better; its interval is the 2.5th (lower) to 97.5th (higher) percentile of those ranks. The
observed rank orders the leaderboard's values the same way.

The matrix holds, for each pair, the paired difference row − column on the items both scored, with a
95% percentile interval from the same resamples and a p-value: exact McNemar on the discordant items
for accuracy-type headlines, otherwise twice the share of resampled differences on the other side of
zero. With many pairs some look different by chance, so the p-values are Holm-adjusted over the
matrix; a cell is marked different only when its adjusted p-value is below 0.05.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evaluators.core import stats
from evaluators.core.contract import Metric
from evaluators.publish.incremental import digest
from evaluators.publish.views import Leaderboard
from evaluators.store import paired

RESAMPLES = 1000
SEED = 0
ALPHA = 0.05


@dataclass(frozen=True)
class Pair:
    """Row model − column model on the items both scored."""

    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    p_holm: float
    n: int

    @property
    def different(self) -> bool:
        return self.p_holm < ALPHA


@dataclass
class Standing:
    """Ranks and pairwise differences of the current runs of one (benchmark, split) headline."""

    benchmark: str
    split: str
    metric: str
    higher_is_better: bool
    test: str  # how each pair is tested
    models: list[str]  # by observed rank
    n_items: int
    value: dict[str, float] = field(default_factory=dict)  # the leaderboard's (stored) headline
    rank: dict[str, int] = field(default_factory=dict)
    interval: dict[str, tuple[int, int]] = field(default_factory=dict)
    pairs: dict[tuple[str, str], Pair] = field(default_factory=dict)

    @property
    def n_pairs(self) -> int:
        return len(self.pairs) // 2


@dataclass
class _Items:
    """Per-model item values over the union of items (NaN where a model has no value)."""

    ids: list[str]
    values: np.ndarray  # models × items
    weight: np.ndarray  # items
    item_elo: np.ndarray  # items


def standings(q, board: Leaderboard, cache: dict[str, Any] | None = None,
              keep: dict[str, Any] | None = None) -> dict[tuple[str, str], Standing]:
    """A `Standing` for every headline column with at least two models and per-item values.

    `cache` holds earlier results by a digest of their inputs (the columns' runs and values); they are
    reused when the inputs are the same, and every result of this call is put into `keep`."""
    cache = cache or {}
    out = {}
    for col in board.columns:
        if not col.headline:
            continue
        cells = {row.model: row.cells[col.key] for row in board.rows
                 if col.key in row.cells and row.cells[col.key].value is not None}
        if len(cells) < 2:
            continue
        key = digest(RESAMPLES, SEED, col.key, col.benchmark.higher_is_better,
                     sorted((m, c.run_id, str(c.finished_at), c.value) for m, c in cells.items()))
        if key in cache:
            standing = _load(cache[key])
        else:
            standing = _standing(q, col.benchmark, col.split, col.metric, cells)
        if keep is not None:
            keep[key] = _dump(standing)
        if standing is not None:
            out[(col.benchmark.name, col.split)] = standing
    return out


def _dump(st: Standing | None) -> dict[str, Any] | None:
    if st is None:
        return None
    return {**{k: getattr(st, k) for k in ("benchmark", "split", "metric", "higher_is_better", "test", "models",
                                           "n_items", "value", "rank")},
            "interval": {m: list(v) for m, v in st.interval.items()},
            "pairs": [[a, b, *(None if isinstance(x, float) and math.isnan(x) else x for x in dataclasses.astuple(p))]
                      for (a, b), p in st.pairs.items()]}


def _load(data: dict[str, Any] | None) -> Standing | None:
    if data is None:
        return None
    pairs = {(a, b): Pair(*(math.nan if x is None else x for x in rest)) for a, b, *rest in data["pairs"]}
    return Standing(**{**data, "interval": {m: tuple(v) for m, v in data["interval"].items()}, "pairs": pairs})


def _decomposable(metric: str) -> bool:
    return (paired.has_verdicts(metric) or metric in (Metric.ELO, Metric.WEIGHTED_ACCURACY, Metric.SCORE,
                                                      Metric.PASS_AT_K))


def _standing(q, bench, split: str, metric: str, cells: dict) -> Standing | None:
    if not _decomposable(metric):
        return None
    models = list(cells)
    outcomes = paired.item_outcomes(q.con, [cells[m].run_id for m in models], only=metric)
    items = _item_values(metric, [outcomes[cells[m].run_id] for m in models])
    present = ~np.isnan(items.values)
    if not present.any(axis=1).all():
        return None
    counts = _counts(len(items.ids))
    boot = _resampled(metric, items, present, counts)  # resamples × models
    sign = 1.0 if bench.higher_is_better else -1.0
    observed = np.array([cells[m].value for m in models], dtype=float)
    order = sorted(range(len(models)), key=lambda i: (-sign * observed[i], models[i].lower(), models[i]))
    verdicts = paired.has_verdicts(metric) and metric != Metric.ELO
    standing = Standing(bench.name, split, metric, bench.higher_is_better,
                        "exact McNemar" if verdicts else "paired bootstrap", [models[i] for i in order],
                        len(items.ids))
    ranks = _ranks(sign * np.nan_to_num(boot, nan=-np.inf if sign > 0 else np.inf))
    observed_ranks = _ranks(sign * observed[None, :])[0]
    lows = np.quantile(ranks, 0.025, axis=0, method="lower")
    highs = np.quantile(ranks, 0.975, axis=0, method="higher")
    for i, m in enumerate(models):
        standing.value[m] = float(observed[i])
        standing.rank[m] = int(observed_ranks[i])
        standing.interval[m] = (int(lows[i]), int(highs[i]))
    first, second = np.triu_indices(len(models), 1)
    delta, low, high, p, n = _pairs(metric, items, present, counts, boot, first, second, verdicts)
    holm = _holm(list(p))
    for i, (a, b) in enumerate(zip(first, second, strict=True)):
        d, lo, hi, pv, ph = (float(x) for x in (delta[i], low[i], high[i], p[i], holm[i]))  # plain floats
        standing.pairs[(models[a], models[b])] = Pair(d, lo, hi, pv, ph, int(n[i]))
        standing.pairs[(models[b], models[a])] = Pair(-d, -hi, -lo, pv, ph, int(n[i]))
    return standing


def _item_values(metric: str, per_model: list[dict[str, dict]]) -> _Items:
    ids = sorted(set().union(*per_model), key=paired.natural_key)
    values = np.full((len(per_model), len(ids)), np.nan)
    weight = np.ones(len(ids))
    item_elo = np.full(len(ids), np.nan)
    for m, outcomes in enumerate(per_model):
        for j, item in enumerate(ids):
            o = outcomes.get(item)
            if o is None or not o["n"]:
                continue
            v = item_value_for(metric, o)
            if v is not None:
                values[m, j] = v
            if o["weight"] is not None:
                weight[j] = o["weight"]
            if o["item_elo"] is not None:
                item_elo[j] = o["item_elo"]
    if metric == Metric.ELO:
        values[:, np.isnan(item_elo)] = np.nan  # an item without a rating cannot enter the fit
    scored = ~np.isnan(values).all(axis=0)  # items no model has a value for (infrastructure errors) are no draw
    return _Items([i for i, keep in zip(ids, scored, strict=True) if keep], values[:, scored], weight[scored],
                  item_elo[scored])


def item_value_for(metric: str, outcome: dict) -> float | None:
    """The item's value under `metric` (Elo and weighted accuracy: its verdict or score, weighted later)."""
    if metric == Metric.ELO:
        return paired.item_value(outcome, Metric.ACCURACY)
    if metric == Metric.WEIGHTED_ACCURACY:
        return outcome["score"]
    return paired.item_value(outcome, metric)


@functools.lru_cache(maxsize=8)
def _counts(n: int) -> np.ndarray:
    counts = stats.resample_counts(n, RESAMPLES, SEED).astype(np.float64)
    counts.flags.writeable = False
    return counts


def _resampled(metric: str, items: _Items, present: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Every model's headline on every resample (resamples × models)."""
    if metric == Metric.ELO:
        out = np.empty((counts.shape[0], len(items.values)))
        for m, row in enumerate(items.values):
            keep = present[m]
            out[:, m] = stats.fixed_item_elo_batch(row[keep] > 0.5, items.item_elo[keep],
                                                   counts[:, keep] * items.weight[keep])
        return out
    w = items.weight if metric == Metric.WEIGHTED_ACCURACY else np.ones(len(items.ids))
    mask = present * w
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts @ (np.nan_to_num(items.values) * mask).T) / (counts @ mask.T)


def _ranks(scores: np.ndarray) -> np.ndarray:
    """1 + how many models are strictly better (higher `scores`), per row."""
    return 1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)


def _pairs(metric: str, items: _Items, present: np.ndarray, counts: np.ndarray, boot: np.ndarray,
           first: np.ndarray, second: np.ndarray, verdicts: bool) -> tuple[np.ndarray, ...]:
    """Every pair (first − second) at once: delta, interval, p-value and n on the items both scored."""
    both = present[first] & present[second]
    n = both.sum(axis=1)
    deltas = np.full((counts.shape[0], len(first)), np.nan)
    observed = np.full(len(first), np.nan)
    same = (present[first] == both).all(axis=1) & (present[second] == both).all(axis=1) & (n > 0)
    own = np.array([_statistic(metric, items, m, present[m]) if present[m].any() else np.nan
                    for m in range(len(items.values))])
    deltas[:, same] = boot[:, first[same]] - boot[:, second[same]]
    observed[same] = own[first[same]] - own[second[same]]
    other = np.flatnonzero(~same & (n > 0))
    if len(other) and metric == Metric.ELO:  # the two runs' item sets differ: refit both on the shared items
        for i in other:
            keep = both[i]
            sub = _Items([], items.values[[first[i], second[i]]][:, keep], items.weight[keep], items.item_elo[keep])
            fits = _resampled(metric, sub, np.ones((2, keep.sum()), dtype=bool), counts[:, keep])
            deltas[:, i] = fits[:, 0] - fits[:, 1]
            observed[i] = _statistic(metric, sub, 0, slice(None)) - _statistic(metric, sub, 1, slice(None))
    elif len(other):  # means over the shared items, every pair in one product
        w = items.weight if metric == Metric.WEIGHTED_ACCURACY else np.ones(len(items.ids))
        mask = both[other] * w
        diff = (np.nan_to_num(items.values[first[other]]) - np.nan_to_num(items.values[second[other]])) * mask
        with np.errstate(invalid="ignore", divide="ignore"):
            deltas[:, other] = (counts @ diff.T) / (counts @ mask.T)
        observed[other] = diff.sum(axis=1) / mask.sum(axis=1)
    finite = np.isfinite(deltas)
    with np.errstate(invalid="ignore"):
        low, high = np.quantile(deltas, [0.025, 0.975], axis=0)  # columnwise; nanquantile loops per column
        gaps = np.flatnonzero(~finite.all(axis=0))  # pairs with resamples lacking a shared item
        if len(gaps):
            low[gaps], high[gaps] = np.nanquantile(deltas[:, gaps], [0.025, 0.975], axis=0)
        below = (np.where(finite, deltas, np.inf) <= 0).sum(axis=0)
        above = (np.where(finite, deltas, -np.inf) >= 0).sum(axis=0)
        tail = np.where(observed > 0, below, np.where(observed < 0, above, finite.sum(axis=0) / 2))
        p = np.minimum(1.0, 2 * tail / np.maximum(finite.sum(axis=0), 1))
    p[n == 0] = 1.0
    if verdicts:
        right = np.where(present, items.values > 0.5, False)
        wrong = np.where(present, items.values < 0.5, False)
        only_first = right.astype(float) @ wrong.T.astype(float)  # [a, b]: a right, b wrong
        p = np.array([_mcnemar(int(only_first[a, b]), int(only_first[b, a])) for a, b in zip(first, second,
                                                                                              strict=True)])
    return observed, low, high, p, n


def _statistic(metric: str, items: _Items, m: int, keep) -> float:
    values = items.values[m, keep]
    if metric == Metric.ELO:
        return stats.fixed_item_elo(values > 0.5, items.item_elo[keep], items.weight[keep]).rating
    if metric == Metric.WEIGHTED_ACCURACY:
        return float(np.dot(values, items.weight[keep]) / items.weight[keep].sum())
    return float(values.mean())


@functools.lru_cache(maxsize=65536)
def _mcnemar(b: int, c: int) -> float:
    return stats.mcnemar_exact(b, c)


def _holm(p_values: list[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the input's order."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p_values[i]))
        adjusted[i] = running
    return adjusted
