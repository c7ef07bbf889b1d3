"""Several servers of one model (`--base-url` given more than once) used as one.

Replicas (llama-servers started alike, vLLM replicas, routers) are discovered one by one and must
be the same configuration (`discovery.same_configuration`), so the run keeps the first replica's
identity, which equals every other's: its signature does not depend on how many replicas served
it (`--resume` works with another set); the URLs go into the run's extra.

`ReplicaSet` shares requests by free slots (a replica with free capacity takes the next request)
and takes a replica out after a connection failure: its requests move to the others, and it gets
one request again after `retry_after_s` in case it came back. When every replica is out, requests
still go to them, paced by the caller's retry policy, so a run that cannot be served fails as an
infrastructure error (never as wrong answers).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from evaluators.core.http import TRANSIENT_ERRORS, HttpClient


def is_connection_failure(exc: BaseException) -> bool:
    """The replica itself failed (refused, reset, cut, timed out), as opposed to an HTTP error answer."""
    return isinstance(exc, TRANSIENT_ERRORS)


@dataclass
class Replica:
    """One server of the set: how many requests it takes at once, how many it has, its state."""

    url: str
    client: HttpClient
    capacity: int
    in_flight: int = 0
    served: int = 0
    failures: int = 0
    down_at: float | None = None
    down_reason: str | None = None


class ReplicaSet:
    """The servers of one model; `acquire` a replica for a request, `release` it with the outcome."""

    def __init__(self, urls: Sequence[str], *, slots: int, api_key: str | None = None,
                 concurrency: int | None = None, retry_after_s: float = 30.0):
        if not urls:
            raise ValueError("a ReplicaSet needs at least one URL")
        total = concurrency or slots * len(urls)
        share, rest = divmod(total, len(urls))
        self.replicas = [Replica(url, HttpClient(url, api_key=api_key), max(1, share + (i < rest)))
                         for i, url in enumerate(urls)]
        self.concurrency = sum(r.capacity for r in self.replicas)
        self.retry_after_s = retry_after_s
        self._cond = threading.Condition()

    @property
    def urls(self) -> list[str]:
        return [r.url for r in self.replicas]

    def _usable(self, now: float) -> list[Replica]:
        """Replicas that are up or whose time out is over; all of them when none is (the caller paces)."""
        usable = [r for r in self.replicas if r.down_at is None or now - r.down_at >= self.retry_after_s]
        return usable or list(self.replicas)

    def acquire(self, *, block: bool = True) -> Replica:
        """The usable replica with the most free capacity (waits for a free slot; `block=False` takes the
        least loaded one at once and lets the server queue)."""
        with self._cond:
            while True:
                usable = self._usable(time.monotonic())
                free = [r for r in usable if r.in_flight < r.capacity]
                if free or not block:
                    pick = min(free or usable, key=lambda r: (r.in_flight / r.capacity, r.served))
                    pick.in_flight += 1
                    return pick
                self._cond.wait(timeout=1.0)

    def release(self, replica: Replica, *, ok: bool | None = None, failure: str | None = None) -> None:
        """Hand back an acquired replica, with the request's outcome (see `note`) unless it was noted already."""
        with self._cond:
            replica.in_flight -= 1
            self._cond.notify_all()
        if ok is not None:
            self.note(replica, ok=ok, failure=failure)

    def note(self, replica: Replica, *, ok: bool, failure: str | None = None) -> None:
        """A request's outcome on `replica` (also one sent there directly, as a pinned slot's): `ok`, it
        answered (so it is up again); `failure`, its connection failed (out until retried)."""
        with self._cond:
            if ok:
                replica.served += 1
                replica.down_at = replica.down_reason = None
            elif failure is not None:
                replica.failures += 1
                replica.down_at, replica.down_reason = time.monotonic(), failure
            self._cond.notify_all()

    def is_up(self, replica: Replica) -> bool:
        """No connection to it has failed since it last answered."""
        with self._cond:
            return replica.down_at is None

    def others_up(self, replica: Replica) -> bool:
        """Another replica can take this one's request now."""
        with self._cond:
            return any(r is not replica and r.down_at is None for r in self.replicas)

    def summary(self) -> list[dict[str, object]]:
        """Per replica: URL, answers, connection failures, and whether it ended out of service."""
        with self._cond:
            return [{"url": r.url, "served": r.served, "failures": r.failures, "down": r.down_reason}
                    for r in self.replicas]
