"""A person's decision on a held attempt: accepted, it counts as what its tests earned; rejected, as failed.

A held attempt passed its tests (in whole or in part) with a change that trips the tamper checks, so it
counts as not passed until someone looks at its flags and diff. The decision is stored in `reviews`
(published with the site) and applied to the attempt's row, and the run's scores are recomputed, so
every reader (scores, leaderboard, diffs, reports) sees the same outcome. A decision can be changed by
reviewing the attempt again.
"""

from __future__ import annotations

from typing import Any

from evaluators.agent.attempts import metrics
from evaluators.core.contract import HELD, AttemptKey, RunStatus
from evaluators.core.errors import BadInput
from evaluators.store.store import Store, utcnow

ACCEPT, REJECT = "accept", "reject"


def review(store: Store, run_id: str, task: str, attempt: int, decision: str, note: str | None) -> dict[str, Any]:
    """Record `decision` on a held (or already reviewed) attempt; returns the attempt's new status and score."""
    run = store.run(run_id)
    if run is None:
        raise BadInput(f"no run {run_id!r} in {store.path}")
    rows = [a for a in store.attempts(run_id) if a.item_id == task]
    if not rows:
        raise BadInput(f"run {run_id} has no attempt of task {task!r}")
    found = [a for a in rows if a.attempt == attempt]
    if not found:
        have = ", ".join(str(a.attempt) for a in rows)
        raise BadInput(f"run {run_id} has no attempt {attempt} of {task} (attempts: {have})")
    row = found[0]
    extra = dict(row.extra or {})
    held = extra.get(AttemptKey.HELD) or {}
    if row.status != HELD and not (held and extra.get(AttemptKey.REVIEW)):
        raise BadInput(f"{task} attempt {attempt} of run {run_id} is {row.status!r}, not held; "
                       "only held attempts are reviewed")
    if decision == ACCEPT:
        status, score = held.get("status", "passed"), held.get("score", 1.0)
    else:
        status, score = "failed", 0.0
    extra[AttemptKey.REVIEW] = {"decision": decision, "note": note, "at": utcnow().isoformat()}
    correct = status == "passed"
    store.record_review(run_id, task, attempt, decision, note, status=status, score=score, correct=correct,
                        extra=extra)
    if run.status == RunStatus.FINISHED:
        store.replace_scores(run_id, metrics.compute_scores(store, run_id))
    return {"status": status, "score": score}
