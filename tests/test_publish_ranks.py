"""Rank intervals and the pairwise matrix against an independent recomputation.

The recomputation reads the attempts straight from DuckDB and does every step with numpy and the
standard library here: the resample draw, per-model means, a fixed-item Elo solved by bisection,
ranks, percentile intervals, exact McNemar from binomial sums, and Holm's adjustment.
"""

from __future__ import annotations

import math
import re

import duckdb
import numpy as np
import pytest

from evaluators.publish import ranks
from evaluators.publish.queries import Queries
from evaluators.store.store import DB_NAME, Store


@pytest.fixture(scope="module")
def standings(publish_store):
    root, _ = publish_store
    with Queries.open(Store(root)) as q:
        board = q.leaderboard()
        found = ranks.standings(q, board)
        runs = {(col.benchmark.name, col.split): {row.model: row.cells[col.key].run_id for row in board.rows
                                                   if col.key in row.cells and row.cells[col.key].value is not None}
                for col in board.columns if col.headline}
    return root, found, runs


def _natural(text: str) -> tuple:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p.lower()) for p in re.split(r"(\d+)", text))


def _items(root, run_ids: dict[str, str]) -> tuple[list[str], dict[str, dict[str, tuple]]]:
    """Per model: item -> (correct, item_elo, weight) of its single non-error attempt."""
    con = duckdb.connect(str(root / DB_NAME), read_only=True)
    per: dict[str, dict[str, tuple]] = {}
    for model, run_id in run_ids.items():
        rows = con.execute("SELECT item_id, correct, TRY_CAST(json_extract_string(extra, '$.item_elo') AS DOUBLE), "
                           "weight FROM attempts WHERE run_id = ? AND status <> 'error'", [run_id]).fetchall()
        per[model] = {r[0]: (bool(r[1]), r[2], r[3] if r[3] is not None else 1.0) for r in rows}
    con.close()
    ids = sorted(set().union(*per.values()), key=_natural)
    return ids, per


def _draws(n: int, resamples: int, seed: int) -> np.ndarray:
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    counts = np.zeros((resamples, n))
    np.add.at(counts, (np.repeat(np.arange(resamples), n), idx.ravel()), 1.0)
    return counts


def _elo(y: np.ndarray, item_elo: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Fixed-item Elo (prior: 4 games at 0.5 against 1000) for each row of weights `w`, by bisection."""
    lo, hi = np.full(len(w), -10000.0), np.full(len(w), 12000.0)
    target = w @ y + 2.0
    for _ in range(80):
        mid = (lo + hi) / 2
        e = 1 / (1 + 10 ** ((item_elo[None, :] - mid[:, None]) / 400))
        total = (w * e).sum(axis=1) + 4 / (1 + 10 ** ((1000 - mid) / 400))
        lo, hi = np.where(total < target, mid, lo), np.where(total < target, hi, mid)
    return (lo + hi) / 2


def _mcnemar(b: int, c: int) -> float:
    n = b + c
    return 1.0 if n == 0 else min(1.0, 2 * sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2 ** n)


def _holm(p: list[float]) -> list[float]:
    order = np.argsort(p, kind="stable")
    out, running = [0.0] * len(p), 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - k) * p[i]))
        out[i] = running
    return out


def _recompute(root, run_ids: dict[str, str], elo: bool):
    ids, per = _items(root, run_ids)
    models = list(run_ids)
    counts = _draws(len(ids), ranks.RESAMPLES, ranks.SEED)
    present = np.array([[i in per[m] for i in ids] for m in models])
    y = np.array([[per[m].get(i, (False,))[0] for i in ids] for m in models], dtype=float)
    stats = np.empty((ranks.RESAMPLES, len(models)))
    for k, m in enumerate(models):
        keep = present[k]
        if elo:
            ratings = np.array([per[m][i][1] for i in np.array(ids)[keep]])
            weights = np.array([per[m][i][2] for i in np.array(ids)[keep]])
            stats[:, k] = _elo(y[k, keep], ratings, counts[:, keep] * weights)
        else:
            stats[:, k] = counts[:, keep] @ y[k, keep] / counts[:, keep].sum(axis=1)
    rank = np.array([[1 + sum(row[j] > row[k] for j in range(len(models))) for k in range(len(models))]
                     for row in stats])
    intervals = {m: (int(np.quantile(rank[:, k], 0.025, method="lower")),
                     int(np.quantile(rank[:, k], 0.975, method="higher"))) for k, m in enumerate(models)}
    return models, present, y, stats, intervals


@pytest.mark.parametrize("column", [("arc", ""), ("gsm8k", ""), ("mmlu", "")])
def test_accuracy_ranks_and_mcnemar_matrix_match_a_recomputation(standings, column):
    root, found, runs = standings
    st = found[column]
    assert st.test == "exact McNemar" and len(st.models) == 3
    models, present, y, stats, intervals = _recompute(root, runs[column], elo=False)
    assert st.interval == intervals
    pairs, p_values = [], []
    for a in range(len(models)):
        for b in range(a + 1, len(models)):
            both = present[a] & present[b]
            ya, yb = y[a, both].astype(bool), y[b, both].astype(bool)
            p_values.append(_mcnemar(int((ya & ~yb).sum()), int((~ya & yb).sum())))
            pairs.append((a, b, float((y[a, both] - y[b, both]).mean()),
                          np.quantile(stats[:, a] - stats[:, b], [0.025, 0.975])))
    for (a, b, delta, (low, high)), p, p_holm in zip(pairs, p_values, _holm(p_values), strict=True):
        got = st.pairs[(models[a], models[b])]
        assert got.delta == pytest.approx(delta) and got.p_value == pytest.approx(p)
        assert got.p_holm == pytest.approx(p_holm)
        assert (got.ci_low, got.ci_high) == pytest.approx((low, high))
        mirror = st.pairs[(models[b], models[a])]
        assert mirror.delta == pytest.approx(-delta) and mirror.p_holm == got.p_holm


def test_elo_ranks_refit_on_every_resample_match_a_recomputation(standings):
    root, found, runs = standings
    st = found[("base-bench", "")]
    models, present, _, stats, intervals = _recompute(root, runs[("base-bench", "")], elo=True)
    # beta-3b's current run is a --limit run: fewer items than the others, resampled on the same draw.
    assert present.sum(axis=1).min() < present.shape[1]
    assert st.interval == intervals and st.test == "paired bootstrap"
    same = [(a, b) for a in range(len(models)) for b in range(len(models))
            if a != b and (present[a] == present[b]).all()]
    assert same
    for a, b in same:
        low, high = np.quantile(stats[:, a] - stats[:, b], [0.025, 0.975])
        got = st.pairs[(models[a], models[b])]
        assert (got.ci_low, got.ci_high) == pytest.approx((low, high), abs=1e-3)


def test_observed_rank_follows_the_leaderboard_value(standings):
    _, found, _ = standings
    for st in found.values():
        values = [st.value[m] for m in st.models]
        assert values == sorted(values, reverse=st.higher_is_better)
        assert [st.rank[m] for m in st.models] == sorted(st.rank.values())
        for m in st.models:
            low, high = st.interval[m]
            assert 1 <= low <= high <= len(st.models)


def test_pages_show_ranks_matrix_and_method(published_site):
    board = (published_site / "index.html").read_text()
    assert board.count('class="rank"') >= 10 and "95% rank interval" in board
    page = (published_site / "benchmarks" / "arc.html").read_text()
    assert 'id="ranks-all-matrix"' in page and "Holm-adjusted" in page and "exact McNemar" in page
    assert "resampled with" in page
