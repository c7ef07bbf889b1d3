"""The results store: one DuckDB file that every evaluator writes and the publisher reads.

DuckDB lets one process at a time open a file for writing, so every write here
is a short transaction on a fresh connection, retried with jittered backoff
while another process holds the lock. Evaluators batch their rows (see
`runs.Run`), so two evaluator processes share one results directory without
stepping on each other. Readers open the file read-only, with the same retry.

The schema is versioned: `MIGRATIONS` lists every change in order, and a
store opened for writing is brought up to the newest version first.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import random
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.core.secrets import scrub

DB_NAME = "bananabench.duckdb"
ENV_RESULTS = "BANANABENCH_RESULTS"
POLICIES = ("public", "ids-only")
RUN_STATUSES = ("running", "interrupted", "failed", "finished")

MIGRATIONS: list[tuple[int, str, list[str]]] = [
    (
        1,
        "initial schema: benchmarks, models, runs, attempts, choices, scores, grades",
        [
            """CREATE TABLE benchmarks (
                benchmark VARCHAR PRIMARY KEY,
                evaluator VARCHAR NOT NULL,
                title VARCHAR,
                version VARCHAR,
                policy VARCHAR NOT NULL DEFAULT 'public' CHECK (policy IN ('public', 'ids-only')),
                headline_metric VARCHAR,
                higher_is_better BOOLEAN NOT NULL DEFAULT TRUE,
                description VARCHAR,
                extra JSON
            )""",
            """CREATE TABLE models (
                name VARCHAR PRIMARY KEY,
                created_at TIMESTAMP NOT NULL,
                description VARCHAR,
                extra JSON
            )""",
            """CREATE TABLE runs (
                run_id VARCHAR PRIMARY KEY,
                evaluator VARCHAR NOT NULL,
                benchmark VARCHAR NOT NULL,
                benchmark_version VARCHAR,
                split VARCHAR,
                model_name VARCHAR NOT NULL,
                artifact JSON,
                backend VARCHAR,
                config JSON,
                signature VARCHAR,
                dataset_sha256 VARCHAR,
                official BOOLEAN NOT NULL DEFAULT FALSE,
                status VARCHAR NOT NULL,
                started_at TIMESTAMP NOT NULL,
                finished_at TIMESTAMP,
                software_version VARCHAR,
                host VARCHAR,
                hidden BOOLEAN NOT NULL DEFAULT FALSE,
                n_items INTEGER,
                error VARCHAR,
                extra JSON
            )""",
            """CREATE TABLE attempts (
                run_id VARCHAR NOT NULL,
                item_id VARCHAR NOT NULL,
                attempt INTEGER NOT NULL CHECK (attempt >= 1),
                status VARCHAR NOT NULL,
                correct BOOLEAN,
                score DOUBLE,
                prediction VARCHAR,
                reference VARCHAR,
                category VARCHAR,
                difficulty VARCHAR,
                weight DOUBLE,
                started_at TIMESTAMP,
                wall_s DOUBLE,
                tokens_in BIGINT,
                tokens_out BIGINT,
                extra JSON,
                PRIMARY KEY (run_id, item_id, attempt)
            )""",
            """CREATE TABLE choices (
                run_id VARCHAR NOT NULL,
                item_id VARCHAR NOT NULL,
                idx INTEGER NOT NULL,
                logprob_sum DOUBLE,
                n_tokens INTEGER,
                mean_logprob DOUBLE,
                extra JSON,
                PRIMARY KEY (run_id, item_id, idx)
            )""",
            """CREATE TABLE scores (
                run_id VARCHAR NOT NULL,
                scope VARCHAR NOT NULL,
                key VARCHAR NOT NULL,
                metric VARCHAR NOT NULL,
                value DOUBLE,
                ci_low DOUBLE,
                ci_high DOUBLE,
                n INTEGER,
                extra JSON,
                PRIMARY KEY (run_id, scope, key, metric)
            )""",
            """CREATE TABLE grades (
                model_name VARCHAR NOT NULL,
                task VARCHAR NOT NULL,
                attempt INTEGER NOT NULL,
                grade INTEGER NOT NULL CHECK (grade BETWEEN 0 AND 5),
                graded_at TIMESTAMP NOT NULL,
                run_id VARCHAR,
                note VARCHAR,
                PRIMARY KEY (model_name, task, attempt)
            )""",
        ],
    ),
    (
        2,
        "attempt_metrics side table, server configurations, current_runs view",
        [
            """CREATE TABLE attempt_metrics (
                run_id VARCHAR NOT NULL,
                item_id VARCHAR NOT NULL,
                attempt INTEGER NOT NULL,
                metric VARCHAR NOT NULL,
                value DOUBLE,
                PRIMARY KEY (run_id, item_id, attempt, metric)
            )""",
            """CREATE TABLE server_configs (
                fingerprint VARCHAR PRIMARY KEY,
                first_seen TIMESTAMP NOT NULL,
                last_seen TIMESTAMP NOT NULL,
                config JSON
            )""",
            # Which run counts on the leaderboard: the latest finished, non-hidden run per
            # (model, benchmark, split), official runs preferred over non-official ones.
            """CREATE VIEW current_runs AS
                SELECT * EXCLUDE (rank_) FROM (
                    SELECT r.*, row_number() OVER (
                        PARTITION BY model_name, benchmark, coalesce(split, '')
                        ORDER BY official DESC, finished_at DESC, run_id DESC) AS rank_
                    FROM runs r WHERE status = 'finished' AND NOT hidden
                ) WHERE rank_ = 1""",
        ],
    ),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]

# Column lists define the write contract; rows are dicts with (a subset of) these keys.
COLUMNS: dict[str, tuple[str, ...]] = {
    "attempts": (
        "run_id", "item_id", "attempt", "status", "correct", "score", "prediction", "reference",
        "category", "difficulty", "weight", "started_at", "wall_s", "tokens_in", "tokens_out", "extra",
    ),
    "choices": ("run_id", "item_id", "idx", "logprob_sum", "n_tokens", "mean_logprob", "extra"),
    "scores": ("run_id", "scope", "key", "metric", "value", "ci_low", "ci_high", "n", "extra"),
    "attempt_metrics": ("run_id", "item_id", "attempt", "metric", "value"),
}
KEYS: dict[str, tuple[str, ...]] = {
    "attempts": ("run_id", "item_id", "attempt"),
    "choices": ("run_id", "item_id", "idx"),
    "scores": ("run_id", "scope", "key", "metric"),
    "attempt_metrics": ("run_id", "item_id", "attempt", "metric"),
}
JSON_COLUMNS = {"extra", "artifact", "config"}
# Run-scoped tables, in the order a merge or delete must visit them.
RUN_TABLES = ("attempts", "choices", "scores", "attempt_metrics")


class StoreBusy(EvaluationFailure):
    """Another process kept the database locked for longer than the lock timeout."""


def utcnow() -> dt.datetime:
    """Naive UTC timestamp, the only kind the store holds."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def results_dir(explicit: str | os.PathLike | None = None) -> Path:
    """`--results DIR`, else `$BANANABENCH_RESULTS`, else `./results`."""
    return Path(explicit or os.environ.get(ENV_RESULTS) or "results")


def _json(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(scrub(value), sort_keys=True, default=str, allow_nan=False)


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

    def _open(self, read_only: bool, timeout: float | None):
        import duckdb

        deadline = time.monotonic() + (self.lock_timeout if timeout is None else timeout)
        delay = 0.01
        while True:
            try:
                with self._creation_guard():
                    con = duckdb.connect(str(self.path), read_only=read_only)
                con.execute("SET enable_progress_bar = false")  # no bars in our logs or output
                return con
            except duckdb.IOException as exc:
                if not _is_lock_error(exc):
                    raise EvaluationFailure(f"{self.path}: cannot open the results database: {exc}") from exc
                if time.monotonic() >= deadline:
                    raise StoreBusy(f"{self.path}: database stayed locked by another process ({exc})") from exc
            except duckdb.Error as exc:
                raise EvaluationFailure(f"{self.path}: cannot open the results database: {exc}") from exc
            time.sleep(delay * random.uniform(0.5, 1.5))
            delay = min(delay * 2, 0.25)

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
        con = self._open(read_only=False, timeout=timeout)
        try:
            if not self._migrated:
                self._migrate(con)
            yield con
        finally:
            con.close()

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
        con = self._open(read_only=True, timeout=timeout)
        try:
            yield con
        finally:
            con.close()

    def _current_schema(self, timeout: float | None) -> bool:
        """True when the file exists at our schema version (so a read-only folder can be read)."""
        if not self.path.exists():
            return False
        con = self._open(read_only=True, timeout=timeout)
        try:
            row = con.execute(
                "SELECT max(version) FROM schema_migrations"
            ).fetchone() if con.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_migrations'"
            ).fetchone()[0] else None
        finally:
            con.close()
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
                  higher_is_better, description, _json(extra), title]
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

    def insert_run(self, row: dict[str, Any], con=None) -> None:
        """Create a run row (and its model row). `row` holds `runs` columns."""
        row = dict(row)
        for key in ("artifact", "config", "extra"):
            row[key] = _json(row.get(key))
        columns = list(row)
        sql = f"INSERT INTO runs ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"

        def go(c):
            self.ensure_model(row["model_name"], con=c)
            c.execute(sql, [row[k] for k in columns])

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
                fields[key] = _json(fields[key])
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
        arrow = _arrow_table(table, columns, list(unique.values()))

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

    def replace_scores(self, run_id: str, rows: Sequence[dict[str, Any]], con=None) -> None:
        """Replace every score row of a run at once (aggregates are recomputed, never patched)."""
        rows = [{**r, "run_id": run_id} for r in rows]

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
            con.execute(sql, [fingerprint, now, now, _json(config)])
            return
        with self.write() as c:
            c.execute(sql, [fingerprint, now, now, _json(config)])

    def add_grade(self, model_name: str, task: str, attempt: int, grade: int, *,
                  run_id: str | None = None, note: str | None = None) -> None:
        if not 0 <= int(grade) <= 5:
            raise BadInput(f"grade must be an integer from 0 to 5, not {grade}")
        with self.write() as c:
            c.execute(
                "INSERT OR REPLACE INTO grades VALUES (?, ?, ?, ?, ?, ?, ?)",
                [model_name, task, attempt, int(grade), utcnow(), run_id, note],
            )

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

    def merge(self, other: str | os.PathLike) -> dict[str, int]:
        """Bring runs from another results directory or database file; never duplicates a row.

        Runs already present (same run_id) are refreshed only if the incoming copy is further
        along (finished beats unfinished); their rows are upserted by key, so merging twice is
        a no-op. From a results directory the runs' artifact folders come too.
        """
        other_path = Path(other)
        if other_path.is_dir():
            other_path = other_path / DB_NAME
        if not other_path.is_file():
            raise BadInput(f"{other}: no results database to merge")
        if other_path.resolve() == self.path.resolve():
            raise BadInput(f"{other}: cannot merge a store into itself")
        with tempfile.TemporaryDirectory(prefix="bananabench-merge-") as tmp:
            # Work on a copy brought to our schema version: the source is never modified.
            copy = Store(tmp)
            shutil.copy2(other_path, copy.path)
            wal = other_path.with_name(other_path.name + ".wal")
            if wal.exists():
                shutil.copy2(wal, copy.path.with_name(copy.path.name + ".wal"))
            with copy.write():
                pass
            counts = self._merge_from(copy.path)
        counts["artifact_files"] = self._merge_artifacts(other_path.parent / "runs")
        return counts

    def _merge_artifacts(self, other_runs: Path) -> int:
        """Copy the run folders (`runs/<run_id>/`) of the runs this store now holds from another results
        directory: files missing here are copied, none is overwritten, links are copied as links. The site's
        attempt pages, diffs and screenshots point into these folders."""
        if not other_runs.is_dir() or other_runs.resolve() == (self.root / "runs").resolve():
            return 0
        known = {row[0] for row in self.query("SELECT run_id FROM runs").rows}
        copied = 0
        for source in sorted(p for p in other_runs.iterdir() if p.name in known and p.is_dir()
                             and not p.is_symlink()):
            for current, dirs, files in os.walk(source):
                target = self.root / "runs" / Path(current).relative_to(other_runs)
                target.mkdir(parents=True, exist_ok=True)
                for name in files + [d for d in dirs if (Path(current) / d).is_symlink()]:
                    if not os.path.lexists(target / name):
                        shutil.copy2(Path(current) / name, target / name, follow_symlinks=False)
                        copied += 1
        return copied

    def _merge_from(self, other_path: Path) -> dict[str, int]:
        counts: dict[str, int] = {}
        with self.connection() as c:
            c.execute(f"ATTACH '{_sql_str(other_path)}' AS other (READ_ONLY)")
            c.execute("BEGIN TRANSACTION")
            try:
                for table in ("benchmarks", "models"):
                    key = "benchmark" if table == "benchmarks" else "name"
                    counts[table] = c.execute(
                        f"INSERT INTO {table} SELECT * FROM other.{table} o "
                        f"WHERE o.{key} NOT IN (SELECT {key} FROM {table})"
                    ).fetchone()[0]
                incoming = [r[0] for r in c.execute(
                    "SELECT o.run_id FROM other.runs o LEFT JOIN runs r USING (run_id) "
                    "WHERE r.run_id IS NULL OR (r.status <> 'finished' AND o.status = 'finished')"
                ).fetchall()]
                counts["runs"] = len(incoming)
                if incoming:
                    c.execute("CREATE TEMP TABLE merge_ids AS SELECT unnest(?) AS run_id", [incoming])
                    c.execute("DELETE FROM runs WHERE run_id IN (SELECT run_id FROM merge_ids)")
                    c.execute("INSERT INTO runs SELECT * FROM other.runs WHERE run_id IN (SELECT run_id FROM merge_ids)")
                    for table in RUN_TABLES:
                        counts[table] = c.execute(
                            f"INSERT OR REPLACE INTO {table} SELECT * FROM other.{table} "
                            f"WHERE run_id IN (SELECT run_id FROM merge_ids)"
                        ).fetchone()[0]
                    c.execute("DROP TABLE merge_ids")
                counts["grades"] = c.execute(
                    "INSERT INTO grades SELECT * FROM other.grades o WHERE NOT EXISTS (SELECT 1 FROM grades g "
                    "WHERE g.model_name = o.model_name AND g.task = o.task AND g.attempt = o.attempt)"
                ).fetchone()[0]
                c.execute(
                    "INSERT INTO server_configs SELECT * FROM other.server_configs o "
                    "WHERE o.fingerprint NOT IN (SELECT fingerprint FROM server_configs)"
                )
            except BaseException:
                c.execute("ROLLBACK")
                raise
            c.execute("COMMIT")
            c.execute("DETACH other")
        return counts

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

    def run(self, run_id: str) -> dict[str, Any] | None:
        rows = self.query("SELECT * FROM runs WHERE run_id = ?", [run_id]).dicts()
        return _decode(rows[0]) if rows else None

    def runs(self, *, model: str | None = None, benchmark: str | None = None, evaluator: str | None = None,
             status: str | None = None, include_hidden: bool = True) -> list[dict[str, Any]]:
        where, params = _filters(model_name=model, benchmark=benchmark, evaluator=evaluator, status=status)
        if not include_hidden:
            where.append("NOT hidden")
        sql = "SELECT * FROM runs" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY started_at, run_id"
        return [_decode(r) for r in self.query(sql, params).dicts()]

    def current_runs(self, *, benchmark: str | None = None, model: str | None = None) -> list[dict[str, Any]]:
        """The runs the leaderboard shows (see the `current_runs` view)."""
        where, params = _filters(model_name=model, benchmark=benchmark)
        sql = "SELECT * FROM current_runs" + (" WHERE " + " AND ".join(where) if where else "")
        return [_decode(r) for r in self.query(sql + " ORDER BY model_name, benchmark, split", params).dicts()]

    def attempts(self, run_id: str) -> list[dict[str, Any]]:
        sql = "SELECT * FROM attempts WHERE run_id = ? ORDER BY item_id, attempt"
        return [_decode(r) for r in self.query(sql, [run_id]).dicts()]

    def scores(self, run_id: str) -> list[dict[str, Any]]:
        sql = "SELECT * FROM scores WHERE run_id = ? ORDER BY scope, key, metric"
        return [_decode(r) for r in self.query(sql, [run_id]).dicts()]

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


def _sql_str(path: Path) -> str:
    return str(path).replace("'", "''")


def _filters(**conditions: Any) -> tuple[list[str], list[Any]]:
    where, params = [], []
    for column, value in conditions.items():
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    return where, params


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    """Parse JSON columns back into Python objects."""
    for key in JSON_COLUMNS:
        if isinstance(row.get(key), str):
            row[key] = json.loads(row[key])
    return row


_ARROW_TYPES = {
    "attempt": "int32", "idx": "int32", "n_tokens": "int32", "n": "int64",
    "correct": "bool", "score": "float64", "weight": "float64", "wall_s": "float64",
    "tokens_in": "int64", "tokens_out": "int64", "logprob_sum": "float64", "mean_logprob": "float64",
    "value": "float64", "ci_low": "float64", "ci_high": "float64", "started_at": "timestamp[us]",
}


def _arrow_table(table: str, columns: Sequence[str], rows: list[dict[str, Any]]):
    """Rows as a typed Arrow table in the column order of `table` (fast bulk insert)."""
    import pyarrow as pa

    arrays = []
    for column in columns:
        values = [r.get(column) for r in rows]
        if column in JSON_COLUMNS:
            values = [_json(v) for v in values]
            arrays.append(pa.array(values, type=pa.string()))
            continue
        kind = _ARROW_TYPES.get(column, "string")
        if kind == "string":
            values = [None if v is None else str(v) for v in values]
        if kind == "bool":
            values = [None if v is None else bool(v) for v in values]
        if kind.startswith("timestamp"):  # journal lines carry timestamps as ISO text
            values = [dt.datetime.fromisoformat(v) if isinstance(v, str) else v for v in values]
        try:
            arrays.append(pa.array(values, type=pa.type_for_alias(kind)))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as exc:
            raise ValueError(f"{table}.{column}: {exc}") from exc
    return pa.Table.from_arrays(arrays, names=list(columns))
