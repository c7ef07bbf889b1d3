"""Statistics shared by evaluators, reports and the site: intervals, paired tests, fixed-item Elo.

Pure Python + numpy, no scipy: exact where exactness is cheap (McNemar, Wilson), resampling
where the statistic has no closed form (paired bootstrap). Every function is deterministic
given its seed, so reports and the site never disagree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

Z95 = 1.959963984540054
LN10 = math.log(10.0)


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion k/n (well-behaved at 0 and n)."""
    if n <= 0:
        return (math.nan, math.nan)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return (low, high)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts b (A right, B wrong) and c.

    Under H0 the discordant pairs split Binomial(b + c, 1/2); computed with exact integers,
    so it stays correct for large counts where 0.5**n underflows.
    """
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


@dataclass(frozen=True)
class PairedDelta:
    """A paired comparison of B against A: observed delta, its 95% interval and a p-value."""

    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    n: int
    method: str


def elo_expected(model_elo: float | np.ndarray, item_elo: float | np.ndarray, scale: float = 400.0):
    """Probability that a model of `model_elo` answers an item of `item_elo` correctly."""
    return 1.0 / (1.0 + np.exp((np.asarray(item_elo) - model_elo) * (LN10 / scale)))


@dataclass(frozen=True)
class EloFit:
    rating: float
    ci_low: float
    ci_high: float
    standard_error: float
    method: str


def fixed_item_elo(correct: Sequence[bool], item_elo: Sequence[float], weight: Sequence[float], *,
                   prior_rating: float = 1000.0, prior_weight: float = 4.0, scale: float = 400.0) -> EloFit:
    """Weighted maximum-likelihood rating against fixed item ratings, with a virtual-games prior.

    Maximises  Σ w_i [y_i log E_i + (1 − y_i) log(1 − E_i)] + p [½ log E_p + ½ log(1 − E_p)],
    E = 1 / (1 + 10^((item − model)/scale)), i.e. `prior_weight` games scored 0.5 against
    `prior_rating`. The objective is strictly concave, so the score equation
    Σ w_i E_i + p E_p = Σ w_i y_i + p/2 has one root, found by bisection to 1e-9.
    Interval: Wald, ±1.96 / sqrt(observed Fisher information) at the optimum.
    """
    y = np.asarray(correct, dtype=float)
    items = np.asarray(item_elo, dtype=float)
    w = np.asarray(weight, dtype=float)
    if not (len(y) == len(items) == len(w)):
        raise ValueError("correct, item_elo and weight must have the same length")
    if np.any(w < 0) or prior_weight < 0:
        raise ValueError("weights must be non-negative")
    target = float(np.dot(w, y) + 0.5 * prior_weight)

    def expected_total(r: float) -> float:
        return float(np.dot(w, elo_expected(r, items, scale)) + prior_weight * elo_expected(r, prior_rating, scale))

    lo, hi = -10000.0, 12000.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if expected_total(mid) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-9:
            break
    rating = 0.5 * (lo + hi)
    e = elo_expected(rating, items, scale)
    ep = elo_expected(rating, prior_rating, scale)
    info = (LN10 / scale) ** 2 * float(np.dot(w, e * (1 - e)) + prior_weight * ep * (1 - ep))
    se = 1.0 / math.sqrt(info) if info > 0 else math.inf
    return EloFit(rating, rating - Z95 * se, rating + Z95 * se, se, "wald (observed Fisher information)")


def resample_counts(n: int, n_resamples: int = 2000, seed: int = 0) -> np.ndarray:
    """Bootstrap resamples as an (n_resamples, n) matrix of how often each item was drawn.

    Lets a statistic that is a weighted sum over items (a mean, a weighted accuracy, a fixed-item
    Elo fit) be evaluated on every resample at once with matrix operations instead of a loop.
    """
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_resamples, n))
    flat = (np.arange(n_resamples)[:, None] * n + idx).ravel()
    return np.bincount(flat, minlength=n_resamples * n).reshape(n_resamples, n)


def summarize_resamples(observed: float, deltas: np.ndarray, n: int, method: str) -> PairedDelta:
    """A `PairedDelta` from the observed delta and its resampled values (percentile interval,
    two-sided p-value = twice the share of resamples on the other side of zero, capped at 1)."""
    deltas = np.asarray(deltas, dtype=float)
    if n <= 0 or deltas.size == 0:
        return PairedDelta(math.nan, math.nan, math.nan, math.nan, max(n, 0), method)
    low, high = np.quantile(deltas, [0.025, 0.975])
    if observed > 0:
        tail = np.mean(deltas <= 0)
    elif observed < 0:
        tail = np.mean(deltas >= 0)
    else:
        tail = 0.5
    return PairedDelta(float(observed), float(low), float(high), float(min(1.0, 2 * tail)), n, method)


def fixed_item_elo_batch(correct: Sequence[bool], item_elo: Sequence[float], weights: np.ndarray, *,
                         prior_rating: float = 1000.0, prior_weight: float = 4.0,
                         scale: float = 400.0) -> np.ndarray:
    """`fixed_item_elo` ratings for many weightings of the same items at once (one per row of
    `weights`, e.g. point weights × `resample_counts`).

    Solves the same score equation with a safeguarded Newton iteration, vectorised over rows:
    a Newton step from the current rating, or a bisection step whenever Newton would leave the
    bracket that still holds the root; stops when every row moved less than 1e-7 rating points.
    """
    y = np.asarray(correct, dtype=float)
    items = np.asarray(item_elo, dtype=float)
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    if w.shape[1] != len(y) or len(items) != len(y):
        raise ValueError("weights must have one column per item")
    target = w @ y + 0.5 * prior_weight
    lo = np.full(len(w), -10000.0)
    hi = np.full(len(w), 12000.0)
    rating = np.full(len(w), float(prior_rating))
    k = LN10 / scale
    for _ in range(200):
        e = elo_expected(rating[:, None], items[None, :], scale)
        ep = elo_expected(rating, prior_rating, scale)
        f = (w * e).sum(axis=1) + prior_weight * ep - target  # increasing in the rating
        slope = k * ((w * e * (1 - e)).sum(axis=1) + prior_weight * ep * (1 - ep))
        lo = np.where(f < 0, rating, lo)
        hi = np.where(f < 0, hi, rating)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = rating - f / slope
        bisect = ~np.isfinite(step) | (step < lo) | (step > hi)
        new = np.where(bisect, 0.5 * (lo + hi), step)
        moved = np.abs(new - rating)
        rating = new
        if np.max(moved) < 1e-7:
            break
    return rating
