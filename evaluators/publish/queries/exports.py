"""The site's downloads: the whole store as Parquet (zstd) and gzipped CSV, written incrementally.

The per-attempt tables (attempts, choices, attempt metrics) are split into one file per model, so a
publish after adding a run rewrites only that model's files; the small tables are rewritten every
time. Redaction and hidden runs follow `store.export` (the same SELECTs as `bananabench store export`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from evaluators.publish.incremental import Manifest
from evaluators.store.export import EXPORT_TABLES, select_sql

PER_MODEL = ("attempts", "choices", "attempt_metrics")
FORMATS = {"parquet": ("parquet", "FORMAT parquet, COMPRESSION zstd"),
           "csv": ("csv.gz", "FORMAT csv, HEADER true, COMPRESSION gzip")}


def paths(table: str, slug: str | None = None) -> dict[str, str]:
    """Site-relative files of a table (or of one model's part of a per-model table), per format."""
    name = table if slug is None else f"{table}/{slug}"
    return {fmt: f"data/{fmt}/{name}.{suffix}" for fmt, (suffix, _) in FORMATS.items()}


def write(con: Any, site: Path, manifest: Manifest, runs: list[dict[str, Any]], model_slug, private: bool) -> float:
    """Write every export file whose inputs changed; returns the seconds it took. `runs`: visible runs."""
    t0 = time.perf_counter()
    by_model: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        by_model.setdefault(run["model_name"], []).append(run)
    for table in EXPORT_TABLES:
        columns = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
        select = select_sql(table, columns, private, False)
        if table not in PER_MODEL:
            for fmt, path in paths(table).items():
                manifest.add(path)
                _copy(con, select, site / path, FORMATS[fmt][1])
            continue
        for model, model_runs in sorted(by_model.items()):
            identity = sorted((r["run_id"], r["status"], str(r["finished_at"]), r["benchmark"]) for r in model_runs)
            for fmt, path in paths(table, model_slug(model)).items():
                if manifest.fresh(site, path, table, identity, private):
                    ids = ", ".join("'" + r["run_id"].replace("'", "''") + "'" for r in model_runs)
                    _copy(con, f"SELECT * FROM ({select}) WHERE run_id IN ({ids})", site / path, FORMATS[fmt][1])
    return round(time.perf_counter() - t0, 3)


def table_counts(con: Any) -> list[tuple[str, int]]:
    """(table, rows) of every exported table, as the data page lists them."""
    return [(t, con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in EXPORT_TABLES]


def _copy(con: Any, select: str, target: Path, options: str) -> None:
    """COPY into a temporary file beside `target`, then rename (readers never see half a file)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    con.execute(f"COPY ({select}) TO '{str(tmp).replace(chr(39), chr(39) * 2)}' ({options})")
    tmp.replace(target)
