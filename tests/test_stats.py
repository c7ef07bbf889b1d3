"""Statistics: closed forms checked against hand computations and brute force."""

import math

import numpy as np
import pytest

from evaluators.core import stats
from evaluators.store.paired import PairedItem, paired_test


def test_wilson_interval_known_values():
    lo, hi = stats.wilson_interval(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    assert stats.wilson_interval(0, 10)[0] == 0.0
    assert stats.wilson_interval(10, 10)[1] == 1.0
    assert all(math.isnan(x) for x in stats.wilson_interval(0, 0))


def test_mcnemar_exact_matches_binomial_brute_force():
    # b=2, c=9: p = 2 * P(X <= 2), X ~ Bin(11, 1/2) = 2 * (1 + 11 + 55) / 2048
    assert stats.mcnemar_exact(2, 9) == pytest.approx(2 * 67 / 2048)
    assert stats.mcnemar_exact(9, 2) == stats.mcnemar_exact(2, 9)
    assert stats.mcnemar_exact(0, 0) == 1.0
    assert stats.mcnemar_exact(5, 5) == 1.0
    # large counts must not underflow to 0 or overflow
    p = stats.mcnemar_exact(1500, 1600)
    assert 0 < p < 1
    with pytest.raises(ValueError):
        stats.mcnemar_exact(-1, 2)


def _pairs(a, b) -> list[PairedItem]:
    def outcome(value):
        return {"n": 1, "score": float(value), "correct": None, "verdicts": {}}

    return [PairedItem(str(i), None, outcome(x), outcome(y)) for i, (x, y) in enumerate(zip(a, b, strict=True))]


def test_paired_bootstrap_detects_a_real_difference_and_not_a_null_one():
    rng = np.random.default_rng(1)
    a = rng.random(400) < 0.5
    b = a.copy()
    flip = rng.choice(400, 80, replace=False)
    b[flip] = True  # B scores on 80 more items
    res = paired_test("score", _pairs(a, b), seed=3)
    assert res.method == "paired bootstrap (mean over items)"
    assert res.delta == pytest.approx((b.sum() - a.sum()) / 400) and res.ci_low > 0 and res.p_value < 0.01
    same = paired_test("score", _pairs(a, a), seed=3)
    assert same.delta == 0 and same.p_value == 1.0
    assert paired_test("score", _pairs(a, b), seed=3) == res  # deterministic for a seed


def test_fixed_item_elo_solves_the_score_equation():
    items = [800, 900, 1000, 1100, 1200] * 10
    weights = [1.0, 1.5, 2.25, 1.1, 1.3] * 10
    correct = [i % 3 != 0 for i in range(50)]
    fit = stats.fixed_item_elo(correct, items, weights)
    e = stats.elo_expected(fit.rating, np.array(items))
    ep = stats.elo_expected(fit.rating, 1000.0)
    lhs = float(np.dot(weights, e) + 4 * ep)
    rhs = float(np.dot(weights, correct) + 2.0)
    assert lhs == pytest.approx(rhs, abs=1e-6)
    assert fit.ci_low < fit.rating < fit.ci_high


def test_fixed_item_elo_prior_keeps_extremes_finite_and_ordered():
    items, weights = [1000] * 20, [1.0] * 20
    all_right = stats.fixed_item_elo([True] * 20, items, weights)
    all_wrong = stats.fixed_item_elo([False] * 20, items, weights)
    half = stats.fixed_item_elo([True, False] * 10, items, weights)
    assert all_wrong.rating < half.rating < all_right.rating
    assert math.isfinite(all_right.rating) and math.isfinite(all_wrong.rating)
    assert half.rating == pytest.approx(1000.0, abs=1e-6)
    # no data at all: the prior alone gives the prior rating
    assert stats.fixed_item_elo([], [], []).rating == pytest.approx(1000.0, abs=1e-6)
