"""The compare page's data: every model's headline cells and category scores, and each column's pairwise matrix.

Apart from the builder because the picker compares any two models in the browser, so this is one precomputed
table of the whole leaderboard rather than a page: numbers in fixed-position lists, NaN and infinities as null.
"""

from __future__ import annotations

import math
from typing import Any

from evaluators.publish import fmt, ranks
from evaluators.publish.links import Links
from evaluators.publish.queries import Queries
from evaluators.publish.views import Leaderboard


def summaries(q: Queries, links: Links, standings: dict[tuple[str, str], ranks.Standing],
              board: Leaderboard) -> dict[str, Any]:
    """The compare picker's data: columns, per-model values and category scores, diffs, pairwise matrices."""
    columns = []
    for col in board.columns:
        columns.append({"bench": col.benchmark.name, "title": col.benchmark.title, "split": col.split,
                        "metric": col.metric, "label": fmt.metric_label(col.metric),
                        "kind": _kind(col.metric), "higher": col.benchmark.higher_is_better, "headline": col.headline,
                        "href": links.bench(col.benchmark.name)})
    models = [row.model for row in board.rows]
    values: dict[str, dict[str, list]] = {}
    categories: dict[str, dict[str, dict[str, list]]] = {}
    headline_runs = {}
    for row in board.rows:
        per: dict[str, list] = {}
        for i, col in enumerate(board.columns):
            cell = row.cells.get(col.key)
            if cell is None:
                continue
            s = cell.score
            per[str(i)] = [_finite(s.value), _finite(s.ci_low), _finite(s.ci_high), s.n,
                           links.run(cell.run_id), cell.official, s.reportable]
            if col.headline:
                headline_runs[(row.model, col.benchmark.name, col.split)] = cell.run_id
        values[row.model] = per
    by_run = q.scores(list(headline_runs.values()))
    for (model, bench, split), run_id in headline_runs.items():
        metric = q.benchmark(bench).headline_metric
        for s in by_run.get(run_id, []):
            if s.scope != "overall" and s.metric == metric:
                key = f"{bench}|{split}"
                categories.setdefault(model, {}).setdefault(key, {})[f"{s.scope}: {s.key}"] = \
                    [_finite(s.value), _finite(s.ci_low), _finite(s.ci_high), s.n]
    diffs = [[m, b, p] for (m, b), p in links.diffs.items()]
    return {"models": models, "columns": columns, "values": values, "categories": categories, "diffs": diffs,
            "references": sorted(q.reference_models), "pairs": pair_tables(standings, board, models)}


def pair_tables(standings: dict[tuple[str, str], ranks.Standing], board: Leaderboard,
                models: list[str]) -> dict[str, list[list]]:
    """Each headline column's pairwise matrix for the compare picker: [i, j, Δ i − j, low, high, p,
    Holm-adjusted p, n, test] with i < j indexes into `models`."""
    index = {m: i for i, m in enumerate(models)}
    out: dict[str, list[list]] = {}
    for c, col in enumerate(board.columns):
        standing = standings.get((col.benchmark.name, col.split)) if col.headline else None
        if standing is None:
            continue
        out[str(c)] = [[index[a], index[b], _finite(p.delta), _finite(p.ci_low), _finite(p.ci_high),
                        _finite(p.p_value), _finite(p.p_holm), p.n, standing.test]
                       for (a, b), p in standing.pairs.items() if index[a] < index[b]]
    return out


def _finite(value: float | None) -> float | None:
    """NaN and infinities (not JSON) become null."""
    return value if value is None or math.isfinite(value) else None


def _kind(metric: str) -> str:
    if fmt.is_fraction(metric):
        return "fraction"
    if metric in fmt.RATING_METRICS:
        return "rating"
    if metric in fmt.GRADE_METRICS:
        return "grade"
    return "count" if fmt.is_count(metric) else "number"
