"""Scores of an agent run, always recomputed from its attempt rows (and the human grades).

Headline: `overall/score` = mean over tasks of the mean attempt score (passed = 1, `SCORE: x`
partial credit, failed/held/stuck/timeout = 0: a held attempt counts only once a person accepts it);
infrastructure errors are excluded, manual tasks are reported apart as `overall/manual_grade` (mean
0–5 human grade). Recomputed at the end of a run, after `agent grade`, `agent review` and `agent
backfill`, so scores never drift from the rows behind them.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict

from evaluators.core.contract import ERROR, HELD, AttemptKey, Metric, RunStatus, ScoreKey
from evaluators.store import lookups
from evaluators.store.records import ScoreRow
from evaluators.store.store import Store

STATUSES = ("passed", "failed", HELD, "stuck", "timeout", "manual", ERROR)
# Attempt metrics whose run-wide mean is worth a score row (report tables read them).
MEAN_METRICS = ("turns", "tool_calls", "tool_errors", "tokens_input", "tokens_output", "tokens_cache",
                "context_peak", "context_peak_share", "compactions", "llm_requests", "prefill_tps", "decode_tps",
                "ttft_s", "verify_s")


def _mean_ci(values: list[float]) -> tuple[float, float | None, float | None]:
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, None, None
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    half = 1.96 * sd / math.sqrt(len(values))
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def compute_scores(store: Store, run_id: str) -> list[ScoreRow]:
    """Every score row of an agent run."""
    attempts = store.attempts(run_id)
    run = store.run(run_id)
    model = run.model_name if run else None
    rows: list[ScoreRow] = []
    counts = Counter(a.status for a in attempts)
    by_task: dict[str, list[float]] = defaultdict(list)
    category_of: dict[str, str] = {}
    for a in attempts:
        category_of[a.item_id] = a.category or ""
        if a.status not in (ERROR, "manual") and a.score is not None:
            by_task[a.item_id].append(float(a.score))
    task_means = {task: sum(v) / len(v) for task, v in by_task.items()}
    n_scored = sum(len(v) for v in by_task.values())
    if task_means:
        mean, low, high = _mean_ci(list(task_means.values()))
        rows.append(ScoreRow(scope="overall", key="", metric=Metric.SCORE, value=mean, ci_low=low,
                             ci_high=high, n=len(task_means),
                             extra={ScoreKey.CI_METHOD: "normal approximation over task means", "attempts": n_scored}))
        passed = counts["passed"]
        rows.append(ScoreRow(scope="overall", key="", metric=Metric.PASS_RATE, value=passed / n_scored,
                             n=n_scored))
    for status in STATUSES:
        rows.append(ScoreRow(scope="overall", key="", metric=f"n_{status}", value=float(counts[status]),
                             n=len(attempts)))
    per_category: dict[str, list[float]] = defaultdict(list)
    for task, value in task_means.items():
        per_category[category_of[task]].append(value)
        rows.append(ScoreRow(scope="task", key=task, metric=Metric.SCORE, value=value, n=len(by_task[task])))
    for category, values in sorted(per_category.items()):
        rows.append(ScoreRow(scope="category", key=category, metric=Metric.SCORE,
                             value=sum(values) / len(values), n=len(values)))
    wall = [a.wall_s for a in attempts if a.status != ERROR and a.wall_s is not None]
    if wall:
        rows.append(ScoreRow(scope="overall", key="", metric="mean_wall_s", value=sum(wall) / len(wall),
                             n=len(wall)))
    for metric, value, n in lookups.metric_means(store, run_id, MEAN_METRICS, skip_status=ERROR):
        rows.append(ScoreRow(scope="overall", key="", metric=f"mean_{metric}", value=value, n=n))
    if model:
        grades = lookups.mean_grades(store, run_id, model, status="manual")
        if grades:
            values = [v for _, v in grades]
            rows.append(ScoreRow(scope="overall", key="", metric=Metric.MANUAL_GRADE,
                                 value=sum(values) / len(values), n=len(values),
                                 extra={"scale": "0-5", "tasks": json.dumps(dict(grades))}))
            for task, value in grades:
                rows.append(ScoreRow(scope="task", key=task, metric=Metric.MANUAL_GRADE, value=float(value),
                                     n=1))
    return rows


def backfill_run(store: Store, run_id: str) -> int:
    """Recompute the event-derived metrics of every attempt from its saved events.jsonl, then the scores."""
    from evaluators.agent.attempts.events import EVENT_METRICS, read_events, summarize

    run = store.run(run_id)
    window = ((run and run.extra) or {}).get("context_window")
    rows = []
    for attempt in store.attempts(run_id):
        artifacts = (attempt.extra or {}).get(AttemptKey.ARTIFACTS)
        if not artifacts:
            continue
        events = store.root / artifacts / "events.jsonl"
        if not events.is_file():
            continue
        summary = summarize(read_events(events), window)
        for metric in EVENT_METRICS:
            if summary[metric] is not None:
                rows.append({"run_id": run_id, "item_id": attempt.item_id, "attempt": attempt.attempt,
                             "metric": metric, "value": float(summary[metric])})
    store.upsert("attempt_metrics", rows)
    if run and run.status == RunStatus.FINISHED:
        store.replace_scores(run_id, compute_scores(store, run_id))
    return len({(r["item_id"], r["attempt"]) for r in rows})
