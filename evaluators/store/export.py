"""Export the store as Parquet or CSV files, honouring each benchmark's redistribution policy.

For an `ids-only` benchmark (gated or licensed content such as Base Bench 1.1) the item
text — predictions, references, raw outputs in `extra` — is dropped; ids, categories and
correctness stay. `private=True` keeps everything, for sites that are not published.
Hidden runs (`store hide`) stay out of an export unless `include_hidden=True`.
"""

from __future__ import annotations

import os
from pathlib import Path

from evaluators.core import atomic
from evaluators.core.errors import BadInput
from evaluators.store.schema import RUN_TABLES
from evaluators.store.store import Store

FORMATS = ("parquet", "csv")

# Columns that may carry item text, per table.
_TEXT_COLUMNS = {
    "attempts": ("prediction", "reference", "extra"),
    "choices": ("extra",),
}


def select_sql(table: str, columns: list[str], private: bool, include_hidden: bool) -> str:
    """The SELECT that exports one table: item text of ids-only benchmarks nulled, hidden runs left out."""
    if table == "runs":
        return "SELECT * FROM runs" + ("" if include_hidden else " WHERE NOT hidden")
    if table == "models" and not include_hidden:
        return "SELECT * FROM models WHERE name IN (SELECT model_name FROM runs WHERE NOT hidden)"
    if table not in RUN_TABLES:
        return f"SELECT * FROM {table}"
    text = set() if private else set(_TEXT_COLUMNS.get(table, ()))
    exprs = [
        f"CASE WHEN p.policy = 'ids-only' THEN NULL ELSE t.{c} END AS {c}" if c in text else f"t.{c}"
        for c in columns
    ]
    return (
        f"SELECT {', '.join(exprs)} FROM {table} t JOIN runs r ON r.run_id = t.run_id "
        f"LEFT JOIN benchmarks p ON p.benchmark = r.benchmark" + ("" if include_hidden else " WHERE NOT r.hidden")
    )


EXPORT_TABLES = ("benchmarks", "models", "runs", "attempts", "choices", "scores", "attempt_metrics", "reviews", "grades",
                 "server_configs")


def export_store(store: Store, out_dir: str | os.PathLike, fmt: str = "parquet", *, private: bool = False,
                 overwrite: bool = False, include_hidden: bool = False) -> list[Path]:
    """Write one file per table into `out_dir` (atomically: all files appear together)."""
    if fmt not in FORMATS:
        raise BadInput(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise BadInput(f"{out}: export directory is not empty; choose another")
    written = []
    with atomic.staged_directory(out) as tmp, store.read() as con:
        for table in EXPORT_TABLES:
            columns = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
            target = tmp / f"{table}.{fmt}"
            options = "FORMAT parquet, COMPRESSION zstd" if fmt == "parquet" else "FORMAT csv, HEADER true"
            path_sql = str(target).replace("'", "''")
            con.execute(f"COPY ({select_sql(table, columns, private, include_hidden)}) TO '{path_sql}' ({options})")
            written.append(out / target.name)
    return written
