"""Several processes, one command: the ranks torchrun starts, and how they agree.

`torchrun --nproc-per-node N bananabench ...` starts N copies of the same command with `RANK`,
`WORLD_SIZE` and `LOCAL_RANK` set. Rank 0 is the *writer*: it alone validates data, owns the run
(lock, journal, store) and hands out work; the other ranks load the model and do what it asks.
Without torchrun (or with one process) `join` returns a group of one that does nothing at all, so
callers have one code path.

Every exchange is a collective every rank takes part in, in the same order, so no rank waits on a
message that will never come: a rank that fails says so in the next exchange and every rank stops;
a rank that dies breaks the connection (gloo notices at once) and the others stop with
`EvaluationFailure` (exit 3). torchrun stops the remaining ranks with SIGTERM when one dies; a rank
treats that as the failure it is, not as a user's interruption.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from evaluators.core.errors import EXIT_FAILURE, BadInput, BananaError, EvaluationFailure

log = logging.getLogger("bananabench")

T = TypeVar("T")
TIMEOUT = dt.timedelta(minutes=30)  # the longest a rank waits for the others in one exchange
_joined = False  # this process has started a process group's threads (see `end_process`)


class RankFailure(EvaluationFailure):
    """Another rank failed or vanished; carries the exit code that rank's error asked for."""

    def __init__(self, message: str, exit_code: int = EXIT_FAILURE):
        super().__init__(message)
        self.exit_code = exit_code


def launched_world() -> int:
    """The number of processes torchrun started (1 when not under torchrun)."""
    try:
        return max(1, int(os.environ.get("WORLD_SIZE", "1")))
    except ValueError:
        raise BadInput(f"WORLD_SIZE must be a whole number, not {os.environ['WORLD_SIZE']!r}") from None


def cpu_threads_per_rank() -> int:
    """This machine's cores shared among the ranks torchrun started on it."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    local = int(os.environ.get("LOCAL_WORLD_SIZE", "1") or 1)
    return max(1, cores // max(1, local))


class Ranks:
    """This process's place among the ranks (a group of one outside torchrun)."""

    def __init__(self, rank: int = 0, world: int = 1, local_rank: int = 0, device: str = "cpu",
                 backend: str | None = None):
        self.rank, self.world, self.local_rank = rank, world, local_rank
        self.device = device
        self.backend = backend
        self.members: list[dict[str, Any]] = [self.describe()]
        self._dist: Any = None

    @property
    def writer(self) -> bool:
        return self.rank == 0

    @property
    def parallel(self) -> bool:
        return self.world > 1

    def describe(self) -> dict[str, Any]:
        return {"rank": self.rank, "host": socket.gethostname(), "pid": os.getpid(), "device": self.device}

    # -- set-up and tear-down -------------------------------------------------------------------

    def connect(self) -> Ranks:
        import torch.distributed as dist

        global _joined
        dist.init_process_group(backend=self.backend, timeout=TIMEOUT)
        self._dist, _joined = dist, True
        signal.signal(signal.SIGTERM, _stopped_by_launcher)  # a run in progress handles it its own way
        for handler in logging.getLogger("bananabench").handlers:
            handler.setFormatter(logging.Formatter(f"bananabench[rank {self.rank}]: %(message)s"))
        log.info("rank %d/%d: pid %d on %s (%s), process group %s", self.rank, self.world, os.getpid(),
                 socket.gethostname(), self.device, self.backend)
        return self

    def close(self) -> None:
        if self._dist is None:
            return
        if self._dist.is_initialized():
            self._dist.destroy_process_group()
        self._dist = None
        # The outcome is decided: torchrun's SIGTERM to the ranks still running must not turn it into -15.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def __enter__(self) -> Ranks:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- exchanges ------------------------------------------------------------------------------

    def everyone(self, payload: Any) -> list[Any]:
        """Every rank's `payload`, in rank order, on every rank."""
        if not self.parallel:
            return [payload]
        out: list[Any] = [None] * self.world
        try:
            self._dist.all_gather_object(out, payload)
        except BananaError:  # a signal arrived meanwhile
            raise
        except Exception as exc:  # a peer died (connection closed) or timed out
            raise RankFailure(f"lost contact with the other ranks: {_first_line(exc)}") from exc
        return out

    def from_writer(self, payload: Any = None) -> Any:
        """The writer's `payload` on every rank."""
        if not self.parallel:
            return payload
        box = [payload if self.writer else None]
        try:
            self._dist.broadcast_object_list(box, src=0)
        except BananaError:
            raise
        except Exception as exc:
            raise RankFailure(f"lost contact with rank 0: {_first_line(exc)}") from exc
        return box[0]

    def start(self, prepare: Callable[[], T], identity: Callable[[T], Any]) -> T:
        """Run `prepare` on every rank; fail on every rank if it failed on any, or if ranks loaded different
        things (`identity` of the result must be equal everywhere). Returns this rank's result."""
        try:
            result = prepare()
            mine: dict[str, Any] = {**self.describe(), "identity": identity(result)}
        except BaseException as exc:
            self.everyone({**self.describe(), "error": _first_line(exc),
                           "exit_code": getattr(exc, "exit_code", EXIT_FAILURE)})
            raise
        reports = self.everyone(mine)
        failed = [r for r in reports if "error" in r]
        if failed:
            first = failed[0]
            raise RankFailure(f"rank {first['rank']} ({first['host']}) could not start: {first['error']}",
                              first["exit_code"])
        for other in reports[1:]:
            if other["identity"] != reports[0]["identity"]:
                raise RankFailure(f"rank {other['rank']} ({other['host']}) loaded something else than rank 0: "
                                  f"{other['identity']} != {reports[0]['identity']}")
        self.members = [{k: v for k, v in r.items() if k != "identity"} for r in reports]
        return result


def join(device: str = "auto") -> Ranks:
    """This process's ranks: a group of one outside torchrun, else the torchrun group, connected.

    Ranks on GPUs use `cuda:LOCAL_RANK` and NCCL for tensors (gloo carries the objects the ranks
    exchange); on CPU everything goes through gloo.
    """
    world = launched_world()
    if world == 1:
        return Ranks()
    rank, local_rank = int(os.environ["RANK"]), int(os.environ.get("LOCAL_RANK", "0"))
    import torch

    wants_cuda = device.startswith("cuda") or (device == "auto" and torch.cuda.is_available())
    if wants_cuda:
        if ":" in device:
            raise BadInput(f"--device {device}: under torchrun every rank takes cuda:LOCAL_RANK; give --device cuda")
        if not torch.cuda.is_available() or local_rank >= torch.cuda.device_count():
            raise BadInput(f"rank {rank} needs cuda:{local_rank}, but torch sees "
                           f"{torch.cuda.device_count() if torch.cuda.is_available() else 0} CUDA device(s) here")
        torch.cuda.set_device(local_rank)
        return Ranks(rank, world, local_rank, f"cuda:{local_rank}", "cpu:gloo,cuda:nccl").connect()
    return Ranks(rank, world, local_rank, "cpu", "gloo").connect()


def end_process(code: int) -> int:
    """`code`, or, in a process that joined a torchrun group, the end of the process with `code`.

    A process group's worker thread may still be freeing a finished exchange when the command is done, and
    its tensors' Python objects need the GIL to go. Once the interpreter shuts down, a thread that takes the
    GIL exits inside that C++ destructor, which aborts the process (std::terminate, SIGABRT) and makes
    torchrun fail a run that had completed (1 run in 45 of three two-rank runs at once on two cores). The
    command's files are closed by now, so the rank flushes its output and ends without the shutdown.
    """
    if not _joined:
        return code
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _stopped_by_launcher(signum, _frame) -> None:
    raise RankFailure("stopped by the launcher (torchrun stops every rank when one fails)")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".strip()

