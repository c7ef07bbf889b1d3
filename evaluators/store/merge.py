"""`bananabench store merge`: bring runs made elsewhere (another results folder or .duckdb file) into a store.

Never duplicates a row: a run already present (same run_id) is refreshed only when the incoming copy
is further along (finished beats unfinished), and rows are upserted by key, so merging twice is a
no-op. The source is never modified: it is copied and brought to our schema version first. From a
results directory the merged runs' artifact folders come too.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from evaluators.core.contract import RunStatus
from evaluators.core.errors import BadInput
from evaluators.store.schema import RUN_TABLES
from evaluators.store.store import DB_NAME, Store


def merge_store(store: Store, other: str | os.PathLike) -> dict[str, int]:
    """Merge `other` into `store`; returns the number of rows brought in per table."""
    other_path = Path(other)
    if other_path.is_dir():
        other_path = other_path / DB_NAME
    if not other_path.is_file():
        raise BadInput(f"{other}: no results database to merge")
    if other_path.resolve() == store.path.resolve():
        raise BadInput(f"{other}: cannot merge a store into itself")
    with tempfile.TemporaryDirectory(prefix="bananabench-merge-") as tmp:
        copy = Store(tmp)
        shutil.copy2(other_path, copy.path)
        wal = other_path.with_name(other_path.name + ".wal")
        if wal.exists():
            shutil.copy2(wal, copy.path.with_name(copy.path.name + ".wal"))
        with copy.write():
            pass
        counts = _merge_from(store, copy.path)
    counts["artifact_files"] = _merge_artifacts(store, other_path.parent / "runs")
    return counts


def _merge_artifacts(store: Store, other_runs: Path) -> int:
    """Copy the run folders (`runs/<run_id>/`) of the runs the store now holds from another results directory:
    files missing here are copied, none is overwritten, links are copied as links. The site's attempt pages,
    diffs and screenshots point into these folders."""
    if not other_runs.is_dir() or other_runs.resolve() == (store.root / "runs").resolve():
        return 0
    known = {row[0] for row in store.query("SELECT run_id FROM runs").rows}
    copied = 0
    for source in sorted(p for p in other_runs.iterdir() if p.name in known and p.is_dir() and not p.is_symlink()):
        for current, dirs, files in os.walk(source):
            target = store.root / "runs" / Path(current).relative_to(other_runs)
            target.mkdir(parents=True, exist_ok=True)
            for name in files + [d for d in dirs if (Path(current) / d).is_symlink()]:
                if not os.path.lexists(target / name):
                    shutil.copy2(Path(current) / name, target / name, follow_symlinks=False)
                    copied += 1
    return copied


def _merge_from(store: Store, other_path: Path) -> dict[str, int]:
    with store.connection() as c:
        # The process's DuckDB instance outlives this connection, so the source is detached whatever happens.
        c.execute(f"ATTACH '{_sql_str(other_path)}' AS other (READ_ONLY)")
        try:
            c.execute("BEGIN TRANSACTION")
            try:
                counts = _copy_rows(c)
            except BaseException:
                c.execute("ROLLBACK")
                raise
            c.execute("COMMIT")
        finally:
            c.execute("DETACH other")
    return counts


def _copy_rows(c) -> dict[str, int]:
    """Bring in what `other` has and the store lacks (or holds less far along); returns rows per table."""
    counts: dict[str, int] = {}
    finished = RunStatus.FINISHED
    for table in ("benchmarks", "models"):
        key = "benchmark" if table == "benchmarks" else "name"
        counts[table] = c.execute(
            f"INSERT INTO {table} SELECT * FROM other.{table} o "
            f"WHERE o.{key} NOT IN (SELECT {key} FROM {table})"
        ).fetchone()[0]
    incoming = [r[0] for r in c.execute(
        "SELECT o.run_id FROM other.runs o LEFT JOIN runs r USING (run_id) "
        "WHERE r.run_id IS NULL OR (r.status <> ? AND o.status = ?)", [finished, finished]
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
    return counts


def _sql_str(path: Path) -> str:
    return str(path).replace("'", "''")
