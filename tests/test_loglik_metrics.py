"""The seeds' decision rules and aggregates, on hand-made numbers."""

from __future__ import annotations

import pytest

from evaluators.core.stats import fixed_item_elo
from evaluators.loglik import metrics
from evaluators.loglik.metrics import ChoiceScore


def test_ties_go_to_the_first_index():
    tied = [ChoiceScore(-4.0, 2), ChoiceScore(-6.0, 3), ChoiceScore(-2.0, 1), ChoiceScore(-2.0, 1)]
    assert metrics.predict_mean(tied) == 0  # means -2, -2, -2, -2
    assert metrics.predict_sum(tied) == 2  # sums -4, -6, -2, -2
    assert metrics.first_argmax([1.0, 3.0, 3.0]) == 1


def test_mean_and_sum_disagree_on_length():
    long_good = ChoiceScore(-6.0, 6)  # mean -1
    short = ChoiceScore(-3.0, 1)  # mean -3, but larger sum
    assert metrics.predict_mean([short, long_good]) == 1
    assert metrics.predict_sum([short, long_good]) == 0


def test_base_bench_summary_uses_point_weights_and_prior():
    items = [
        {"category": "a", "correct": True, "item_elo": 750, "point_weight": 1.0},
        {"category": "a", "correct": False, "item_elo": 1000, "point_weight": 2.25},
        {"category": "b", "correct": True, "item_elo": 1200, "point_weight": 1.4 * 2.25},
        {"category": "b", "correct": True, "item_elo": 950, "point_weight": 1.4},
    ]
    summary = metrics.base_bench_summary(items)
    fit = fixed_item_elo([True, False, True, True], [750, 1000, 1200, 950], [1.0, 2.25, 3.15, 1.4],
                         prior_rating=1000, prior_weight=4)
    assert summary["elo"]["value"] == pytest.approx(fit.rating)
    assert summary["accuracy"]["value"] == 0.75
    assert summary["weighted_accuracy"] == pytest.approx((1.0 + 3.15 + 1.4) / (1.0 + 2.25 + 3.15 + 1.4))
    assert summary["categories"]["b"]["elo"]["value"] > summary["categories"]["a"]["elo"]["value"]
    # With every answer right the prior keeps the rating finite.
    perfect = metrics.base_bench_summary([{**i, "correct": True} for i in items])
    assert 1000 < perfect["elo"]["value"] < 3000
    rows = {(r["scope"], r["key"], r["metric"]): r for r in metrics.base_bench_scores(summary, n_rejected=1)}
    assert rows[("overall", "", "elo")]["ci_low"] < rows[("overall", "", "elo")]["value"]
    assert rows[("overall", "", "n_rejected")]["value"] == 1 and rows[("overall", "", "n_rejected")]["n"] == 5
    assert rows[("category", "a", "accuracy")]["value"] == 0.5


def test_choice_summary_rows():
    summary = metrics.choice_summary([{"correct_acc": True, "correct_acc_norm": False},
                                      {"correct_acc": True, "correct_acc_norm": True}], n_rejected=3)
    assert (summary["acc"]["value"], summary["acc_norm"]["value"], summary["rejected"]) == (1.0, 0.5, 3)
    rows = {(r["scope"], r["key"], r["metric"]): r["value"] for r in metrics.choice_scores("tiny_x", summary)}
    assert rows[("overall", "", "acc_norm")] == rows[("split", "tiny_x", "acc_norm")] == 0.5
    assert rows[("split", "tiny_x", "n_rejected")] == 3
