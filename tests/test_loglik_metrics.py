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


def test_elo_summary_uses_the_weights_and_the_prior():
    verdicts = [
        metrics.Verdict({"accuracy": True}, category="a", weight=1.0, item_elo=750),
        metrics.Verdict({"accuracy": False}, category="a", weight=2.25, item_elo=1000),
        metrics.Verdict({"accuracy": True}, category="b", weight=1.4 * 2.25, item_elo=1200),
        metrics.Verdict({"accuracy": True}, category="b", weight=1.4, item_elo=950),
    ]
    agg = metrics.Aggregates(("accuracy",), weighted=True, elo=metrics.Elo(), by_category=True)
    summary = metrics.summarize(verdicts, agg, n_rejected=1)
    fit = fixed_item_elo([True, False, True, True], [750, 1000, 1200, 950], [1.0, 2.25, 3.15, 1.4],
                         prior_rating=1000, prior_weight=4)
    assert summary["elo"]["value"] == pytest.approx(fit.rating)
    assert summary["accuracy"]["value"] == 0.75
    assert summary["weighted_accuracy"] == pytest.approx((1.0 + 3.15 + 1.4) / (1.0 + 2.25 + 3.15 + 1.4))
    assert summary["categories"]["b"]["elo"]["value"] > summary["categories"]["a"]["elo"]["value"]
    # With every answer right the prior keeps the rating finite.
    perfect = metrics.summarize([metrics.Verdict({"accuracy": True}, v.category, v.weight, v.item_elo)
                                 for v in verdicts], agg)
    assert 1000 < perfect["elo"]["value"] < 3000
    rows = {(r.scope, r.key, r.metric): r for r in metrics.score_rows(summary, agg)}
    assert rows[("overall", "", "elo")].ci_low < rows[("overall", "", "elo")].value
    assert rows[("overall", "", "elo")].extra["prior_weight"] == 4
    assert rows[("overall", "", "n_rejected")].value == 1 and rows[("overall", "", "n_rejected")].n == 5
    assert rows[("category", "a", "accuracy")].value == 0.5
    assert not any(scope == "split" for scope, _, _ in rows)


def test_split_rows_repeat_the_overall_ones():
    agg = metrics.Aggregates(("acc_norm", "acc"))
    summary = metrics.summarize([metrics.Verdict({"acc": True, "acc_norm": False}),
                                 metrics.Verdict({"acc": True, "acc_norm": True})], agg, n_rejected=3)
    assert (summary["acc"]["value"], summary["acc_norm"]["value"], summary["rejected"]) == (1.0, 0.5, 3)
    rows = {(r.scope, r.key, r.metric): r.value for r in metrics.score_rows(summary, agg, "tiny_x")}
    assert rows[("overall", "", "acc_norm")] == rows[("split", "tiny_x", "acc_norm")] == 0.5
    assert rows[("split", "tiny_x", "n_rejected")] == 3
    assert "categories" not in summary and ("overall", "", "elo") not in rows
    # Nothing scored: only the count of rejected items.
    empty = metrics.score_rows(metrics.summarize([], agg, n_rejected=2), agg, "tiny_x")
    assert [(r.scope, r.metric, r.value) for r in empty] == [("overall", "n_rejected", 2.0),
                                                                      ("split", "n_rejected", 2.0)]


def test_choice_rules():
    choices = [ChoiceScore(-4.0, 2), ChoiceScore(-3.0, 1), ChoiceScore(-5.0, 5)]
    texts = [" ab", " a", " abcdefghi"]
    assert [metrics.pick(rule, choices, texts) for rule in metrics.RULES] == [1, 2, 2]
