"""The banana-benchmark: the Pi coding agent works on tasks in a locked-down podman sandbox.

Layout: `datasets` (task format, discovery, selection, content hash) → `run` (attempts in
containers, resumable) → `metrics` (per-attempt numbers from Pi's events, per-run scores).
The sandbox pieces are `podman`, `image`, `proxy` (host side of the model socket), `pi`
(driving Pi in RPC mode), `monitor` (stuck detection) and `containers` (diff, verification,
screenshots in fresh containers).
"""

from typing import Any

from evaluators.core.contract import CommonExtra
from evaluators.core.presentation import Presentation, Rank


class AttemptExtra(CommonExtra, total=False):
    """`attempts.extra` of an agent attempt (the meaning of each in `core.contract.AttemptKey`); files are named
    relative to the results folder."""

    task_hash: str
    title: str
    tags: list[str]
    stuck_reason: str
    stop_reason: str | None
    tool_calls_by_name: dict[str, int]
    verdict: dict[str, Any]
    target_tests: dict[str, int]
    smoke_passed: bool
    artifacts: str
    artifact_errors: list[str]
    screenshots: dict[str, str]
    checklist: str
    workspace: str
    app: str
    host: str
    tamper_flags: list[str]
    n_tamper_flags: int
    tamper_notes: list[str]
    changed_paths: list[dict[str, Any]]
    n_changed_paths: int
    held: dict[str, Any]
    review: dict[str, Any]


# What the site shows of agent runs (registered by `start_run`): a page per task with each attempt's files,
# the attempts held for review, and every status change in a diff (one attempt per task is the usual run).
PRESENTATION = Presentation(rank=Rank.AGENT_TASKS, task_pages=True, held_attempts=True, every_status_change=True)
