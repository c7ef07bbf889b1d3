"""The banana-benchmark: the Pi coding agent works on tasks in a locked-down podman sandbox.

Layout: `datasets` (task format, discovery, selection, content hash) → `run` (attempts in
containers, resumable) → `metrics` (per-attempt numbers from Pi's events, per-run scores).
The sandbox pieces are `podman`, `image`, `proxy` (host side of the model socket), `pi`
(driving Pi in RPC mode), `monitor` (stuck detection) and `containers` (diff, verification,
screenshots in fresh containers).
"""

from evaluators.core.presentation import Presentation, Rank

# What the site shows of agent runs (registered by `start_run`): a page per task with each attempt's files,
# the attempts held for review, and every status change in a diff (one attempt per task is the usual run).
PRESENTATION = Presentation(rank=Rank.AGENT_TASKS, task_pages=True, held_attempts=True, every_status_change=True)
