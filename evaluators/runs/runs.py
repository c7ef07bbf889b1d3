"""Run lifecycle shared by every evaluator: identity, signature, lock, journal, resume, signals.

An evaluator describes what it is about to do in a `RunSpec`, calls `start_run`, and
records one attempt row per finished item with `Run.record`. Each record is appended
to the run's journal at once (a crash loses at most the items in flight) and reaches
the store in small batches. `--resume` replays the journal into the store and skips
what is done; a run whose configuration signature differs is refused, naming the
differing fields.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import fcntl
import hashlib
import json
import logging
import os
import re
import secrets as _random
import signal
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from evaluators import __version__
from evaluators.core import atomic
from evaluators.core.contract import LOWER_IS_BETTER, BenchmarkKey, RunKey, RunStatus
from evaluators.core.errors import BadInput, Interrupted
from evaluators.core.presentation import PLAIN, Presentation
from evaluators.core.secrets import scrub
from evaluators.store.records import AttemptRow, ChoiceRow, RunRow, ScoreRow, columns
from evaluators.store.store import Store, utcnow

log = logging.getLogger("bananabench")

JOURNAL = "attempts.jsonl"
RUN_CONFIG = "run_config.json"


def slug(text: str, max_len: int = 48) -> str:
    """A readable, filesystem-safe fragment: lowercase letters, digits, dots and dashes."""
    text = re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")
    return text[:max_len].strip("-.") or "x"


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


@dataclass
class RunSpec:
    """Everything that identifies a run. `scoring` options are part of the signature; `options` are not."""

    evaluator: str
    benchmark: str
    model_name: str
    benchmark_version: str | None = None
    split: str | None = None
    artifact: dict[str, Any] = field(default_factory=dict)
    backend: str | None = None
    dataset_sha256: str | None = None
    official: bool = False
    scoring: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    n_items: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # Attempt statuses that are not "done" (e.g. infrastructure errors): resume retries them.
    retry_statuses: tuple[str, ...] = ()

    def model_identity(self) -> dict[str, Any]:
        """The part of the artifact that identifies the weights/server (paths may move, hashes don't)."""
        identity = self.artifact.get("identity")
        return identity if isinstance(identity, dict) else self.artifact

    def signature_fields(self) -> dict[str, Any]:
        return scrub({
            "evaluator": self.evaluator,
            "benchmark": self.benchmark,
            "benchmark_version": self.benchmark_version,
            "split": self.split,
            "model": self.model_identity(),
            "dataset_sha256": self.dataset_sha256,
            "scoring": self.scoring,
            "software_version": __version__,
        })

    def signature(self) -> str:
        return sha256_bytes(canonical_json(self.signature_fields()).encode())


def signature_diff(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    """Dotted names of the fields whose values differ between two signature dicts."""
    diffs = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        name = f"{prefix}{key}"
        if isinstance(a, dict) and isinstance(b, dict):
            diffs.extend(signature_diff(a, b, name + "."))
        elif canonical_json(a) != canonical_json(b):
            diffs.append(f"{name} ({_short(a)} != {_short(b)})")
    return diffs


def _short(value: Any) -> str:
    text = canonical_json(value)
    return text if len(text) <= 40 else text[:37] + "..."


class RunLock:
    """An exclusive flock on `results/locks/<key>.lock`; the kernel drops it if the holder dies."""

    def __init__(self, path: Path, description: str):
        self.path = path
        self.description = description
        self._fh = None
        self.recovered_from: dict[str, Any] | None = None

    def acquire(self) -> RunLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fh = open(self.path, "a+")
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                fh.seek(0)
                holder = fh.read().strip()
                fh.close()
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                raise BadInput(
                    f"another run of {self.description} is in progress ({holder or 'holder unknown'}); "
                    f"lock {self.path}"
                ) from None
            # The file may have been unlinked by a releasing holder after we opened it: retry then.
            try:
                same = os.fstat(fh.fileno()).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                fh.close()
                continue
            fh.seek(0)
            stale = fh.read().strip()
            if stale:
                with contextlib.suppress(json.JSONDecodeError):
                    self.recovered_from = json.loads(stale)
                    log.warning("recovered a stale lock of %s left by %s", self.description, stale)
            fh.seek(0)
            fh.truncate()
            fh.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                 "since": utcnow().isoformat(timespec="seconds") + "Z"}))
            fh.flush()
            self._fh = fh
            return self

    def release(self) -> None:
        if self._fh is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        fcntl.flock(self._fh, fcntl.LOCK_UN)
        self._fh.close()
        self._fh = None


class Run:
    """A run in progress. Use as a context manager; call `finish` when every item is done."""

    def __init__(self, store: Store, spec: RunSpec, run_id: str, directory: Path, lock: RunLock,
                 *, resumed: bool, done: set[tuple[str, int]]):
        self.store = store
        self.spec = spec
        self.run_id = run_id
        self.dir = directory
        self.lock = lock
        self.resumed = resumed
        self.done = done
        self.flush_every_s = float(os.environ.get("BANANABENCH_FLUSH_S", "1.0"))
        self.status = RunStatus.RUNNING
        self._buffer: dict[str, list[dict[str, Any]]] = {"attempts": [], "choices": [], "attempt_metrics": []}
        self._last_flush = time.monotonic()
        self._journal = open(self.dir / JOURNAL, "a", encoding="utf-8")
        self._critical = 0
        self._pending_signal: int | None = None
        self._old_handlers: dict[int, Any] = {}
        self._finished = False

    # -- recording ---------------------------------------------------------------------------

    def is_done(self, item_id: str, attempt: int = 1) -> bool:
        return (str(item_id), attempt) in self.done

    def record(self, attempt: AttemptRow, *, choices: Iterable[ChoiceRow] = (),
               metrics: dict[str, float] | None = None) -> None:
        """Record one finished attempt (and its per-choice rows and numeric metrics)."""
        row = columns(attempt, run_id=self.run_id, item_id=str(attempt.item_id))
        choice_rows = [columns(c, run_id=self.run_id, item_id=row["item_id"]) for c in choices]
        metric_rows = [
            {"run_id": self.run_id, "item_id": row["item_id"], "attempt": row["attempt"], "metric": k, "value": v}
            for k, v in (metrics or {}).items() if v is not None
        ]
        entry = {"attempt": row, "choices": choice_rows, "metrics": metric_rows}
        with self._deferred_signals():
            self._journal.write(json.dumps(entry, default=str, allow_nan=False) + "\n")
            self._journal.flush()
            self._buffer["attempts"].append(row)
            self._buffer["choices"].extend(choice_rows)
            self._buffer["attempt_metrics"].extend(metric_rows)
            self.done.add((row["item_id"], row["attempt"]))
            if time.monotonic() - self._last_flush >= self.flush_every_s:
                self.flush(block=False)

    def flush(self, block: bool = True) -> bool:
        """Write buffered rows to the store; with block=False give up quickly if it is locked."""
        if not any(self._buffer.values()):
            self._last_flush = time.monotonic()
            return True
        try:
            with self.store.write(timeout=None if block else 0.2) as con:
                for table, rows in self._buffer.items():
                    self.store.upsert(table, rows, con=con)
        except Exception:
            if block:
                raise
            return False
        self._buffer = {k: [] for k in self._buffer}
        self._last_flush = time.monotonic()
        return True

    def path(self, name: str) -> Path:
        return self.dir / name

    def finish(self, scores: Iterable[ScoreRow] = (), *, extra: dict[str, Any] | None = None,
               status: str = RunStatus.FINISHED) -> None:
        """Store the aggregates and mark the run finished, in one transaction."""
        with self._deferred_signals():
            self.flush()
            fields: dict[str, Any] = {"status": status, "finished_at": utcnow()}
            if extra is not None:
                fields["extra"] = {**self.spec.extra, **extra, RunKey.OUT_DIR: str(self.dir)}
            with self.store.write() as con:
                self.store.replace_scores(self.run_id, list(scores), con=con)
                self.store.update_run(self.run_id, con=con, **fields)
            self.status = status
            self._finished = True

    # -- signals -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def _deferred_signals(self) -> Iterator[None]:
        self._critical += 1
        try:
            yield
        finally:
            self._critical -= 1
        if self._critical == 0 and self._pending_signal is not None:
            signum, self._pending_signal = self._pending_signal, None
            raise Interrupted(signum)

    def _on_signal(self, signum, _frame) -> None:
        if self._critical:
            self._pending_signal = signum
            return
        raise Interrupted(signum)

    def __enter__(self) -> Run:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self._old_handlers[signum] = signal.signal(signum, self._on_signal)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._critical += 1  # no Interrupted while we clean up
        try:
            if not self._finished:
                if exc is None or isinstance(exc, Interrupted):
                    status, error = RunStatus.INTERRUPTED, None
                else:
                    status, error = RunStatus.FAILED, f"{type(exc).__name__}: {exc}"
                with contextlib.suppress(Exception):
                    self.flush()
                with contextlib.suppress(Exception):
                    self.store.update_run(self.run_id, status=status, error=scrub(error) if error else None)
                self.status = status
                if status == RunStatus.INTERRUPTED:
                    log.warning("run %s stopped; finished items are kept, `--resume` continues it", self.run_id)
        finally:
            self._journal.close()
            for signum, handler in self._old_handlers.items():
                signal.signal(signum, handler)
            self.lock.release()
            self._critical -= 1


def _lock_for(store: Store, spec: RunSpec) -> RunLock:
    key = f"{slug(spec.model_name)}--{slug(spec.benchmark)}"
    description = f"{spec.model_name} on {spec.benchmark}"
    if spec.split:
        key += f"--{slug(spec.split)}"
        description += f" ({spec.split})"
    return RunLock(store.root / "locks" / f"{key}.lock", description)


def new_run_id(spec: RunSpec, started: dt.datetime) -> str:
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    bench = slug(spec.benchmark) + (f"-{slug(spec.split)}" if spec.split else "")
    salt = f"{spec.signature()}{started.isoformat()}{os.getpid()}{_random.token_hex(4)}"
    return f"{slug(spec.model_name)}_{bench}_{stamp}_{sha256_bytes(salt.encode())[:6]}"


def _replay_journal(store: Store, run_id: str, journal: Path) -> int:
    """Upsert every complete journal line into the store (a torn last line is skipped)."""
    if not journal.exists():
        return 0
    tables: dict[str, list[dict[str, Any]]] = {"attempts": [], "choices": [], "attempt_metrics": []}
    for entry in atomic.read_jsonl(journal):
        tables["attempts"].append(entry["attempt"])
        tables["choices"].extend(entry.get("choices", []))
        tables["attempt_metrics"].extend(entry.get("metrics", []))
    with store.write() as con:
        for table, rows in tables.items():
            store.upsert(table, rows, con=con)
    return len(tables["attempts"])


def finished_run(store: Store, spec: RunSpec) -> RunRow | None:
    """The run `--resume` need not repeat: the latest run of this model, benchmark and split, when it
    finished with the same signature (same model identity, data and scoring). Every evaluator asks this
    before `start_run`, so resuming a multi-part command redoes only what did not finish."""
    latest = store.latest_run(spec.model_name, spec.benchmark, spec.split)
    if latest is None or latest.status != RunStatus.FINISHED or latest.signature != spec.signature():
        return None
    log.info("%s%s already finished in run %s with this configuration; keeping it", spec.benchmark,
             f" ({spec.split})" if spec.split else "", latest.run_id)
    return latest


def run_dir(store: Store, run: RunRow) -> Path:
    """A stored run's artifact folder."""
    return Path((run.extra or {}).get(RunKey.OUT_DIR) or store.root / "runs" / run.run_id)


def start_run(store: Store, spec: RunSpec, *, resume: bool = False, out_dir: str | os.PathLike | None = None,
              policy: str = "public", benchmark_title: str | None = None, headline_metric: str | None = None,
              description: str | None = None, presentation: Presentation = PLAIN) -> Run:
    """Lock (model, benchmark), then resume the latest unfinished run or create a new one. The benchmark is
    registered with the evaluator's `presentation` (what the site shows of its runs)."""
    lock = _lock_for(store, spec).acquire()
    try:
        with store.write() as con:
            store.ensure_benchmark(spec.benchmark, spec.evaluator, policy=policy, title=benchmark_title,
                                   version=spec.benchmark_version, headline_metric=headline_metric,
                                   higher_is_better=headline_metric not in LOWER_IS_BETTER,
                                   description=description or None,
                                   extra={BenchmarkKey.PRESENTATION: presentation.to_json()}, con=con)
            # We hold the lock, so any "running" run of this pair was left by a crash.
            store.mark_interrupted(spec.model_name, spec.benchmark, spec.split, con=con)
        if resume:
            run = _resume(store, spec, lock)
            if run is not None:
                return run
            log.info("no unfinished run of %s on %s to resume; starting a new one", spec.model_name, spec.benchmark)
        return _create(store, spec, lock, out_dir)
    except BaseException:
        lock.release()
        raise


def _resume(store: Store, spec: RunSpec, lock: RunLock) -> Run | None:
    latest = store.latest_run(spec.model_name, spec.benchmark, spec.split, unfinished=True)
    if latest is None:
        return None
    run_id, config = latest.run_id, latest.config or {}
    old_fields = config.get("signature", {})
    new_fields = spec.signature_fields()
    diffs = signature_diff(old_fields, new_fields)
    if diffs:
        raise BadInput(
            f"cannot resume run {run_id}: its configuration differs in " + "; ".join(diffs)
            + " (start a new run without --resume)"
        )
    directory = run_dir(store, latest)
    directory.mkdir(parents=True, exist_ok=True)
    replayed = _replay_journal(store, run_id, directory / JOURNAL)
    done = store.done_items(run_id, exclude_statuses=spec.retry_statuses)
    store.update_run(run_id, status=RunStatus.RUNNING, error=None)
    log.info("resuming run %s: %d items done (%d journal lines replayed)", run_id, len(done), replayed)
    return Run(store, spec, run_id, directory, lock, resumed=True, done=done)


def _create(store: Store, spec: RunSpec, lock: RunLock, out_dir: str | os.PathLike | None) -> Run:
    started = utcnow()
    run_id = new_run_id(spec, started)
    directory = Path(out_dir) if out_dir else store.root / "runs" / run_id
    if directory.exists() and any(directory.iterdir()):
        raise BadInput(f"{directory}: output directory is not empty; choose another or use --resume")
    directory.mkdir(parents=True, exist_ok=True)
    signature = spec.signature_fields()
    config = scrub({
        "run_id": run_id,
        "signature": signature,
        "signature_sha256": spec.signature(),
        "spec": asdict(spec),
        "started_at": started.isoformat(timespec="seconds") + "Z",
        "software_version": __version__,
        "host": socket.gethostname(),
    })
    atomic.write_json(directory / RUN_CONFIG, config)
    store.insert_run(RunRow(
        run_id=run_id,
        evaluator=spec.evaluator,
        benchmark=spec.benchmark,
        benchmark_version=spec.benchmark_version,
        split=spec.split,
        model_name=spec.model_name,
        artifact=spec.artifact,
        backend=spec.backend,
        config=config,
        signature=config["signature_sha256"],
        dataset_sha256=spec.dataset_sha256,
        official=spec.official,
        status=RunStatus.RUNNING,
        started_at=started,
        software_version=__version__,
        host=socket.gethostname(),
        n_items=spec.n_items,
        extra={**spec.extra, RunKey.OUT_DIR: str(directory)},
    ))
    return Run(store, spec, run_id, directory, lock, resumed=False, done=set())
