"""The results store: one DuckDB file that every evaluator writes and the publisher reads.

DuckDB lets one process at a time open a file for writing, so every write here
is a short transaction that attaches the file (`store.attachments`) and lets it
go after, retried with jittered backoff while another process holds the lock.
Evaluators batch their rows (see `runs.Run`), so two evaluator processes share
one results directory without stepping on each other. Readers attach the file
read-only, with the same retry.

The schema is versioned (`store.schema.MIGRATIONS`), and a store opened for
writing is brought up to the newest version first.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import os
import random
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.core.atomic import require_writable
from evaluators.core.contract import RunStatus
from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.store.attachments import ATTACHMENTS, AttachTimeout
from evaluators.store.records import AttemptRow, RunRow, ScoreRow, columns
from evaluators.store.rows import arrow_table, decode, to_json
from evaluators.store.schema import COLUMNS, KEYS, MIGRATIONS, POLICIES, RUN_TABLES, SCHEMA_VERSION

DB_NAME = "bananabench.duckdb"
ENV_RESULTS = "BANANABENCH_RESULTS"
class StoreBusy(EvaluationFailure):
    """Another process kept the database locked for longer than the lock timeout."""


def utcnow() -> dt.datetime:
    """Naive UTC timestamp, the only kind the store holds."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def results_dir(explicit: str | os.PathLike | None = None) -> Path:
    """`--results DIR`, else `$BANANABENCH_RESULTS`, else `./results`."""
    return Path(explicit or os.environ.get(ENV_RESULTS) or "results")


def writable_store(results: str | os.PathLike | None = None) -> Store:
    """The store an evaluator will write, refused (BadInput) before any work when its folder is read-only."""
    store = Store(results)
    require_writable(store.root, "--results")
    return store


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text or "conflicting" in text


@dataclass(frozen=True)
class Query:
    """Result of an ad-hoc query: column names and rows."""

    columns: list[str]
    rows: list[tuple]

    def dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


class Store:
    """A results directory: `bananabench.duckdb` plus `runs/<run_id>/` artifacts."""

    def __init__(self, root: str | os.PathLike | None = None, *, lock_timeout: float = 300.0):
        self.root = results_dir(root)
        self.path = self.root / DB_NAME
        self.lock_timeout = lock_timeout
        self._migrated = False

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    # -- connections -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _open(self, read_only: bool, timeout: float | None) -> Iterator[Any]:
        """A connection to the file, retried with jittered backoff while another process holds its lock."""
        import duckdb

        deadline = time.monotonic() + (self.lock_timeout if timeout is None else timeout)
        delay = 0.01
        while True:
            try:
                lease = ATTACHMENTS.join(self.path, read_only, deadline, self._creation_guard)
                break
            except AttachTimeout as exc:
                raise StoreBusy(f"{exc}; a write cannot wait for it") from exc
            except duckdb.IOException as exc:
                if not _is_lock_error(exc):
                    raise EvaluationFailure(f"{self.path}: cannot open the results database: {exc}") from exc
                if time.monotonic() >= deadline:
                    raise StoreBusy(f"{self.path}: database stayed locked by another process ({exc})") from exc
            except duckdb.Error as exc:
                raise EvaluationFailure(f"{self.path}: cannot open the results database: {exc}") from exc
            time.sleep(delay * random.uniform(0.5, 1.5))
            delay = min(delay * 2, 0.25)
        with lease as con:
            yield con

    @contextlib.contextmanager
    def _creation_guard(self) -> Iterator[None]:
        """Serialise the creation of the database file against other processes opening it.

        DuckDB creates the file before it writes its header, so a second process could open a
        half-created file ("not a valid DuckDB database file"). Whoever may create it holds an
        exclusive flock on a side file while connecting; everyone else holds a shared one.
        """
        exclusive = not self.path.exists()
        try:
            fh = open(self.path.with_name(f".{self.path.name}.lock"), "a")
        except OSError:  # a read-only results folder: nobody can be creating the file there
            yield
            return
        with fh:
            fcntl.flock(fh, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[Any]:
        """A writable connection to an up-to-date schema, outside any transaction."""
        self.root.mkdir(parents=True, exist_ok=True)
        with self._open(read_only=False, timeout=timeout) as con:
            if not self._migrated:
                self._migrate(con)
            yield con

    @contextlib.contextmanager
    def write(self, timeout: float | None = None) -> Iterator[Any]:
        """A connection inside one transaction; committed on success, rolled back on error."""
        with self.connection(timeout) as con:
            con.execute("BEGIN TRANSACTION")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    @contextlib.contextmanager
    def read(self, timeout: float | None = None) -> Iterator[Any]:
        """A read-only connection; a missing or outdated database is created/migrated first."""
        if not self._migrated and not self._current_schema(timeout):
            with self.write(timeout=timeout):
                pass
        with self._open(read_only=True, timeout=timeout) as con:
            yield con

    def _current_schema(self, timeout: float | None) -> bool:
        """True when the file exists at our schema version (so a read-only folder can be read)."""
        if not self.path.exists():
            return False
        with self._open(read_only=True, timeout=timeout) as con:
            row = con.execute(
                "SELECT max(version) FROM schema_migrations"
            ).fetchone() if con.execute(
                "SELECT count(*) FROM information_schema.tables "
                "WHERE table_catalog = current_database() AND table_name = 'schema_migrations'"
            ).fetchone()[0] else None
        self._migrated = bool(row) and row[0] == SCHEMA_VERSION
        return self._migrated

    # -- schema ------------------------------------------------------------------------------

    def _migrate(self, con) -> None:
        con.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, description VARCHAR, applied_at TIMESTAMP)"
        )
        current = con.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()[0]
        if current > SCHEMA_VERSION:
            raise BadInput(
                f"{self.path}: schema version {current} is newer than this bananabench "
                f"(knows up to {SCHEMA_VERSION}); upgrade bananabench"
            )
        for version, description, statements in MIGRATIONS:
            if version <= current:
                continue
            con.execute("BEGIN TRANSACTION")
            for statement in statements:
                con.execute(statement)
            con.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, ?)", [version, description, utcnow()]
            )
            con.execute("COMMIT")
        self._migrated = True

    def schema_version(self) -> int:
        with self.read() as con:
            return con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]

    # -- writes ------------------------------------------------------------------------------

    def ensure_benchmark(
        self,
        benchmark: str,
        evaluator: str,
        *,
        policy: str = "public",
        title: str | None = None,
        version: str | None = None,
        headline_metric: str | None = None,
        higher_is_better: bool = True,
        description: str | None = None,
        extra: dict | None = None,
        con=None,
    ) -> None:
        """Register (or update) a benchmark and its redistribution policy.

        Updating never loosens the policy (once `ids-only`, always `ids-only`: a caller that
        forgets the policy must not publish gated text) and never blanks a field it leaves out
        (title, version, headline metric, description, extra).
        """
        if policy not in POLICIES:
            raise BadInput(f"benchmark {benchmark}: policy must be one of {POLICIES}, not {policy!r}")
        sql = (
            "INSERT INTO benchmarks VALUES (?, ?, coalesce(?, ?), ?, ?, ?, ?, ?, ?) ON CONFLICT (benchmark) DO UPDATE SET "
            "evaluator = excluded.evaluator, title = coalesce(?, benchmarks.title), "
            "version = coalesce(excluded.version, benchmarks.version), "
            "policy = CASE WHEN benchmarks.policy = 'ids-only' THEN 'ids-only' ELSE excluded.policy END, "
            "headline_metric = coalesce(excluded.headline_metric, benchmarks.headline_metric), "
            "higher_is_better = excluded.higher_is_better, "
            "description = coalesce(excluded.description, benchmarks.description), "
            "extra = coalesce(excluded.extra, benchmarks.extra)"
        )
        params = [benchmark, evaluator, title, benchmark, version, policy, headline_metric,
                  higher_is_better, description, to_json(extra), title]
        if con is not None:
            con.execute(sql, params)
            return
        with self.write() as c:
            c.execute(sql, params)

    def ensure_model(self, name: str, *, description: str | None = None, con=None) -> None:
        sql = "INSERT INTO models (name, created_at, description) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
        if con is not None:
            con.execute(sql, [name, utcnow(), description])
            return
        with self.write() as c:
            c.execute(sql, [name, utcnow(), description])

    def insert_run(self, run: RunRow, con=None) -> None:
        """Create a run's row (and its model's row)."""
        row = columns(run)
        for key in ("artifact", "config", "extra"):
            row[key] = to_json(row.get(key))
        sql = f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})"

        def go(c):
            self.ensure_model(run.model_name, con=c)
            c.execute(sql, list(row.values()))

        if con is not None:
            go(con)
            return
        with self.write() as c:
            go(c)

    def update_run(self, run_id: str, con=None, **fields: Any) -> None:
        if not fields:
            return
        for key in ("artifact", "config", "extra"):
            if key in fields:
                fields[key] = to_json(fields[key])
        assignments = ", ".join(f"{k} = ?" for k in fields)
        sql = f"UPDATE runs SET {assignments} WHERE run_id = ?"
        params = [*fields.values(), run_id]
        if con is not None:
            con.execute(sql, params)
            return
        with self.write() as c:
            c.execute(sql, params)

    def upsert(self, table: str, rows: Sequence[dict[str, Any]], con=None) -> int:
        """Insert rows into a run-scoped table; a row with an existing key replaces it (idempotent)."""
        if table not in COLUMNS:
            raise ValueError(f"unknown table {table}")
        if not rows:
            return 0
        columns = COLUMNS[table]
        keys = KEYS[table]
        unique: dict[tuple, dict] = {}
        for row in rows:
            unknown = set(row) - set(columns)
            if unknown:
                raise ValueError(f"{table}: unknown columns {sorted(unknown)}")
            if "attempt" in columns and row.get("attempt") is None:
                row = {**row, "attempt": 1}
            unique[tuple(row.get(k) for k in keys)] = row
        arrow = arrow_table(table, columns, list(unique.values()))

        def go(c):
            c.register("incoming_rows", arrow)
            try:
                c.execute(f"INSERT OR REPLACE INTO {table} SELECT * FROM incoming_rows")
            finally:
                with contextlib.suppress(Exception):  # an aborted transaction must keep its own error
                    c.unregister("incoming_rows")

        if con is not None:
            go(con)
        else:
            with self.write() as c:
                go(c)
        return len(unique)

    def replace_scores(self, run_id: str, scores: Sequence[ScoreRow], con=None) -> None:
        """Replace every score row of a run at once (aggregates are recomputed, never patched)."""
        rows = [columns(s, run_id=run_id) for s in scores]

        def go(c):
            c.execute("DELETE FROM scores WHERE run_id = ?", [run_id])
            self.upsert("scores", rows, con=c)

        if con is not None:
            go(con)
            return
        with self.write() as c:
            go(c)

    def record_server_config(self, fingerprint: str, config: dict, con=None) -> None:
        now = utcnow()
        sql = (
            "INSERT INTO server_configs VALUES (?, ?, ?, ?) "
            "ON CONFLICT (fingerprint) DO UPDATE SET last_seen = excluded.last_seen"
        )
        if con is not None:
            con.execute(sql, [fingerprint, now, now, to_json(config)])
            return
        with self.write() as c:
            c.execute(sql, [fingerprint, now, now, to_json(config)])

    def add_grade(self, model_name: str, task: str, attempt: int, grade: int, *,
                  run_id: str | None = None, note: str | None = None) -> None:
        if not 0 <= int(grade) <= 5:
            raise BadInput(f"grade must be an integer from 0 to 5, not {grade}")
        with self.write() as c:
            c.execute(
                "INSERT OR REPLACE INTO grades VALUES (?, ?, ?, ?, ?, ?, ?)",
                [model_name, task, attempt, int(grade), utcnow(), run_id, note],
            )

    def record_review(self, run_id: str, item_id: str, attempt: int, decision: str, note: str | None, *,
                      status: str, score: float | None, correct: bool | None, extra: dict[str, Any]) -> None:
        """A person's decision on an attempt and the attempt's row as the decision leaves it, in one transaction."""
        with self.write() as c:
            c.execute("INSERT OR REPLACE INTO reviews VALUES (?, ?, ?, ?, ?, ?)",
                      [run_id, item_id, attempt, decision, note, utcnow()])
            c.execute("UPDATE attempts SET status = ?, score = ?, correct = ?, extra = ? "
                      "WHERE run_id = ? AND item_id = ? AND attempt = ?",
                      [status, score, correct, to_json(extra), run_id, item_id, attempt])

    def mark_interrupted(self, model_name: str, benchmark: str, split: str | None, *, con) -> None:
        """Mark the pair's `running` runs interrupted (called under the pair's run lock, so no process runs them)."""
        con.execute("UPDATE runs SET status = ? WHERE status = ? AND model_name = ? AND benchmark = ? "
                    "AND coalesce(split, '') = coalesce(?, '')",
                    [RunStatus.INTERRUPTED, RunStatus.RUNNING, model_name, benchmark, split])

    def set_hidden(self, run_id: str, hidden: bool) -> None:
        with self.write() as c:
            if not c.execute("SELECT 1 FROM runs WHERE run_id = ?", [run_id]).fetchone():
                raise BadInput(f"no run {run_id!r} in {self.path}")
            c.execute("UPDATE runs SET hidden = ? WHERE run_id = ?", [hidden, run_id])

    def rename_model(self, old: str, new: str) -> int:
        """Rename a model everywhere it appears; refuses to merge into an existing name."""
        with self.write() as c:
            if not c.execute("SELECT 1 FROM models WHERE name = ?", [old]).fetchone():
                raise BadInput(f"no model {old!r} in {self.path}")
            if c.execute("SELECT 1 FROM models WHERE name = ?", [new]).fetchone():
                raise BadInput(f"model {new!r} already exists; pick another name")
            created = c.execute("SELECT created_at, description, extra FROM models WHERE name = ?", [old]).fetchone()
            c.execute("INSERT INTO models VALUES (?, ?, ?, ?)", [new, *created])
            n = c.execute("SELECT count(*) FROM runs WHERE model_name = ?", [old]).fetchone()[0]
            c.execute("UPDATE runs SET model_name = ? WHERE model_name = ?", [new, old])
            c.execute("UPDATE grades SET model_name = ? WHERE model_name = ?", [new, old])
            c.execute("DELETE FROM models WHERE name = ?", [old])
        return n

    # -- reads -------------------------------------------------------------------------------

    def query(self, sql: str, params: Sequence[Any] | None = None) -> Query:
        """Run one SQL statement read-only."""
        import duckdb

        with self.read() as con:
            try:
                cur = con.execute(sql, list(params or []))
            except duckdb.Error as exc:
                raise BadInput(f"query failed: {exc}") from exc
            columns = [d[0] for d in cur.description] if cur.description else []
            return Query(columns, cur.fetchall() if columns else [])

    def run(self, run_id: str) -> RunRow | None:
        rows = self.query("SELECT * FROM runs WHERE run_id = ?", [run_id]).dicts()
        return RunRow(**decode(rows[0])) if rows else None

    def runs(self, *, model: str | None = None, benchmark: str | None = None, evaluator: str | None = None,
             status: str | None = None, include_hidden: bool = True) -> list[RunRow]:
        where, params = _filters(model_name=model, benchmark=benchmark, evaluator=evaluator, status=status)
        if not include_hidden:
            where.append("NOT hidden")
        sql = "SELECT * FROM runs" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY started_at, run_id"
        return [RunRow(**decode(r)) for r in self.query(sql, params).dicts()]

    def current_runs(self, *, benchmark: str | None = None, model: str | None = None) -> list[RunRow]:
        """The runs the leaderboard shows (see the `current_runs` view)."""
        where, params = _filters(model_name=model, benchmark=benchmark)
        sql = "SELECT * FROM current_runs" + (" WHERE " + " AND ".join(where) if where else "")
        rows = self.query(sql + " ORDER BY model_name, benchmark, split", params).dicts()
        return [RunRow(**decode(r)) for r in rows]

    def attempts(self, run_id: str) -> list[AttemptRow]:
        sql = "SELECT * EXCLUDE (run_id) FROM attempts WHERE run_id = ? ORDER BY item_id, attempt"
        return [AttemptRow(**decode(r)) for r in self.query(sql, [run_id]).dicts()]

    def scores(self, run_id: str) -> list[ScoreRow]:
        sql = "SELECT * EXCLUDE (run_id) FROM scores WHERE run_id = ? ORDER BY scope, key, metric"
        return [ScoreRow(**decode(r)) for r in self.query(sql, [run_id]).dicts()]

    def latest_run(self, model_name: str, benchmark: str, split: str | None = None, *,
                   unfinished: bool = False) -> RunRow | None:
        """The most recently started run of a model on a benchmark (and split), hidden or not;
        with `unfinished`, the latest one that has not finished (what `--resume` continues)."""
        if not self.path.exists():
            return None
        sql = ("SELECT * FROM runs WHERE model_name = ? AND benchmark = ? AND coalesce(split, '') = coalesce(?, '')"
               + (" AND status <> ?" if unfinished else "") + " ORDER BY started_at DESC, run_id DESC LIMIT 1")
        params = [model_name, benchmark, split] + ([RunStatus.FINISHED] if unfinished else [])
        rows = self.query(sql, params).dicts()
        return RunRow(**decode(rows[0])) if rows else None

    def done_items(self, run_id: str, exclude_statuses: Iterable[str] = ()) -> set[tuple[str, int]]:
        """(item_id, attempt) pairs already recorded for a run, minus those with a retryable status."""
        excluded = list(exclude_statuses)
        sql = "SELECT item_id, attempt FROM attempts WHERE run_id = ?"
        params: list[Any] = [run_id]
        if excluded:
            sql += " AND status NOT IN (SELECT unnest(?))"
            params.append(excluded)
        return {(r[0], r[1]) for r in self.query(sql, params).rows}

    def info(self) -> dict[str, Any]:
        with self.read() as con:
            counts = {
                t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("benchmarks", "models", "runs", *RUN_TABLES, "grades")
            }
            version = con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
            by_status = dict(con.execute("SELECT status, count(*) FROM runs GROUP BY status ORDER BY 1").fetchall())
        return {"path": str(self.path), "schema_version": version, "tables": counts, "runs_by_status": by_status}


def _filters(**conditions: Any) -> tuple[list[str], list[Any]]:
    where, params = [], []
    for column, value in conditions.items():
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    return where, params
