"""Log-likelihood scoring shared among torchrun's ranks, with the numbers one process gets.

The writer asks its backend how one process would group the requests (`Backend.loglik_units`:
hf's batches, one context with its continuations elsewhere) and hands out whole units, so each
number is computed with the same batch-mates as in a single process: the report does not depend
on how many ranks there are. Units go out longest first, round by round, in a snake order (rank
0..N-1, then N-1..0), which balances the work and gives every rank a unit in every round but
the last. Each round ends with one exchange in which every rank hands in its unit's results (or
its error); the writer yields them to the caller, which records them as they come.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator, Sequence
from typing import Any

from evaluators.core.errors import EXIT_FAILURE, Interrupted
from evaluators.models.backends.base import Backend, LoglikRequest, LoglikResult
from evaluators.runs.distributed import RankFailure, Ranks

_Plan = list[list[int]]


def assign(requests: Sequence[LoglikRequest], units: list[list[int]], world: int) -> _Plan:
    """Unit indices per rank, in the order each rank scores them (see the module docstring)."""
    def cost(unit: list[int]) -> int:
        contexts = {tuple(requests[i].context) for i in unit}
        return sum(len(c) for c in contexts) + sum(len(requests[i].continuation) for i in unit)

    order = sorted(range(len(units)), key=lambda u: (-cost(units[u]), u))
    plan: _Plan = [[] for _ in range(world)]
    for position, unit in enumerate(order):
        round_, slot = divmod(position, world)
        plan[slot if round_ % 2 == 0 else world - 1 - slot].append(unit)
    return plan


class _Rounds:
    """One `loglikelihood` call's rounds on this rank; the writer's iterator yields every rank's results."""

    def __init__(self, backend: Backend, ranks: Ranks, requests: Sequence[LoglikRequest], units: list[list[int]],
                 plan: _Plan):
        self.backend, self.ranks, self.requests, self.units, self.plan = backend, ranks, requests, units, plan
        self.scored_by: dict[int, int] = {}
        self.peers_stopped = False

    def _score(self, round_: int) -> tuple[str, Any]:
        mine = self.plan[self.ranks.rank]
        if round_ >= len(mine):
            return ("ok", [])
        members = self.units[mine[round_]]
        results = self.backend.loglikelihood([self.requests[i] for i in members])
        return ("ok", [(members[local], result) for local, result in results])

    def __iter__(self) -> Iterator[tuple[int, LoglikResult]]:
        rounds = max((len(p) for p in self.plan), default=0)
        exchanged = 0
        try:
            for round_ in range(rounds):
                reports = self.ranks.everyone(self._score(round_))
                exchanged = round_ + 1
                for rank, (kind, body) in enumerate(reports):
                    if kind == "error":
                        self.peers_stopped = True
                        raise RankFailure(f"rank {rank} failed: {body['message']}", body["exit_code"])
                for rank, (_kind, body) in enumerate(reports):
                    for index, result in body:
                        self.scored_by[index] = rank
                        if self.ranks.writer:
                            yield index, result
        except BaseException as exc:
            if not isinstance(exc, RankFailure) and exchanged < rounds:
                # The others are still in the rounds: the next exchange tells them to stop.
                self.peers_stopped = True
                with contextlib.suppress(Exception):
                    self.ranks.everyone(("error", {"message": f"{type(exc).__name__}: {exc}",
                                                   "exit_code": getattr(exc, "exit_code", EXIT_FAILURE)}))
            if isinstance(exc, Interrupted) and exc.signum == signal.SIGTERM:
                raise RankFailure("stopped by the launcher (torchrun stops every rank when one fails); "
                                  "`--resume` continues the run") from exc
            raise


class DataParallelBackend(Backend):
    """The writer's view of a backend whose `loglikelihood` is shared among the ranks.

    Use as a context manager around the whole command: leaving it tells the other ranks to stop
    (done, or the error that ended the command).
    """

    def __init__(self, backend: Backend, ranks: Ranks):
        self.inner = backend
        self.ranks = ranks
        self.identity = backend.identity
        self.scored_by: dict[int, int] = {}
        self._peers_stopped = False

    def tokenize(self, text: str) -> list[int]:
        return self.inner.tokenize(text)

    @property
    def bos_token_id(self) -> int | None:
        return self.inner.bos_token_id

    @property
    def max_length(self) -> int | None:
        return self.inner.max_length

    def describe_loglik(self) -> dict[str, Any]:
        describe = getattr(self.inner, "describe_loglik", None)
        info = describe() if callable(describe) else {}
        return {**info, "data_parallel": {"world_size": self.ranks.world, "process_group": self.ranks.backend,
                                          "ranks": self.ranks.members}}

    def loglikelihood(self, requests: Sequence[LoglikRequest]) -> Iterator[tuple[int, LoglikResult]]:
        requests = list(requests)
        units = self.inner.loglik_units(requests)
        plan = assign(requests, units, self.ranks.world)
        self.ranks.from_writer(("score", requests, units, plan))
        rounds = _Rounds(self.inner, self.ranks, requests, units, plan)
        self.scored_by = rounds.scored_by
        try:
            yield from rounds
        finally:
            self._peers_stopped |= rounds.peers_stopped

    def close(self) -> None:
        self.inner.close()

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if not self._peers_stopped:
                message = ("done",) if exc is None else ("abort", getattr(exc, "exit_code", EXIT_FAILURE),
                                                         f"rank 0 stopped: {type(exc).__name__}: {exc}")
                with contextlib.suppress(RankFailure):
                    self.ranks.from_writer(message)
        finally:
            self.close()


def serve(backend: Backend, ranks: Ranks) -> None:
    """A follower's whole job: score what the writer hands out until it says it is done."""
    while True:
        message = ranks.from_writer()
        if message[0] == "done":
            return
        if message[0] == "abort":
            raise RankFailure(message[2], message[1])
        _kind, requests, units, plan = message
        for _ in _Rounds(backend, ranks, requests, units, plan):
            pass
