"""How the site and the report show an evaluator's runs: the registry `publish` asks instead of testing names.

Every run gets its scores, errors and status counts. Beyond that an evaluator declares what its rows
support (one page per task with each attempt's files, a list of attempts held for review, ...) as a
`Presentation`, and registers it with its benchmark when a run starts (`runs.start_run`): the store's
`benchmarks.extra` holds it, so `publish`, which reads only the store, shows a store made by another
machine or another version the way its evaluators asked, and never names an evaluator.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


class Rank:
    """Leaderboard column groups in pipeline order: what a benchmark measures, whichever evaluator wrote it."""

    LIKELIHOOD = 1  # scored by log-likelihood
    GENERATION = 2  # generated answers, graded
    AGENT_TASKS = 3  # tasks an agent works on in a sandbox
    DIVERSITY = 4  # several samples per problem, graded for distinct right answers
    OTHER = 100


@dataclass(frozen=True, slots=True)
class Presentation:
    """What one evaluator's benchmarks show beyond scores; the defaults are a plain item table."""

    # Where the evaluator's benchmarks stand among the leaderboard's columns, smaller first (pipeline order).
    rank: int = Rank.OTHER
    # One page per task with every attempt's artifacts, screenshots, checklist and diff, linked from the run
    # page (which lists the attempts), and a per-task table in the report, instead of the browsable item table.
    task_pages: bool = False
    # Run pages list the attempts held for a person's review (status `held`).
    held_attempts: bool = False
    # A diff lists an item whose status changed even when each side made a single attempt at it.
    every_status_change: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, value: Any) -> Presentation:
        """The stored declaration; keys this version does not know are left out, a missing one is the default."""
        if not isinstance(value, dict):
            return cls()
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in value.items() if k in known})


# Scores and the item table: what a benchmark whose evaluator declared nothing shows.
PLAIN = Presentation()
