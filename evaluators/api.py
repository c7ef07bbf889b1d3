"""The Python API for scripts: everything the CLI does, as typed functions.

    from evaluators import api
    store = api.open_store("results")
    for run in api.current_runs(store, benchmark="base-bench"):
        print(run["model_name"], api.scores(store, run["run_id"]))

The CLI is a thin layer over these functions; each evaluator adds its `run_<evaluator>` here.
Importing this module is cheap (no torch): evaluators load their heavy parts when called.
"""

from __future__ import annotations

import os
from typing import Any

from evaluators.core.export import export_store
from evaluators.core.store import Query, Store

__all__ = [
    "Store", "Query", "open_store", "runs", "current_runs", "attempts", "scores", "query", "export",
    "run_loglik",
]


def open_store(results: str | os.PathLike | None = None) -> Store:
    """The results store in `results` (default `$BANANABENCH_RESULTS` or `./results`)."""
    return Store(results)


def _store(store: Store | str | os.PathLike | None) -> Store:
    return store if isinstance(store, Store) else Store(store)


def runs(store: Store | str | None = None, *, model: str | None = None, benchmark: str | None = None,
         evaluator: str | None = None, status: str | None = None,
         include_hidden: bool = True) -> list[dict[str, Any]]:
    """Runs in start order, optionally filtered."""
    return _store(store).runs(model=model, benchmark=benchmark, evaluator=evaluator, status=status,
                              include_hidden=include_hidden)


def current_runs(store: Store | str | None = None, *, benchmark: str | None = None,
                 model: str | None = None) -> list[dict[str, Any]]:
    """The run per (model, benchmark, split) that the leaderboard shows."""
    return _store(store).current_runs(benchmark=benchmark, model=model)


def attempts(store: Store | str | None, run_id: str) -> list[dict[str, Any]]:
    """Every attempt row of a run (JSON `extra` decoded)."""
    return _store(store).attempts(run_id)


def scores(store: Store | str | None, run_id: str) -> list[dict[str, Any]]:
    """Aggregated scores of a run: one row per (scope, key, metric)."""
    return _store(store).scores(run_id)


def query(store: Store | str | None, sql: str, params: list[Any] | None = None) -> Query:
    """Any read-only SQL over the store."""
    return _store(store).query(sql, params)


def export(store: Store | str | None, out_dir: str | os.PathLike, fmt: str = "parquet", *,
           private: bool = False) -> list:
    """Write every table as Parquet/CSV, dropping ids-only item text unless `private`."""
    return export_store(_store(store), out_dir, fmt, private=private)


def run_loglik(*, bench: str, model: str, name: str | None = None, results: str | os.PathLike | None = None,
               data: str | None = None, data_revision: str | None = None, revision: str | None = None,
               backend: str = "hf", device: str = "auto", dtype: str = "auto", threads: int | None = None,
               batch_size: int | None = 8, max_batch_tokens: int | None = None, add_bos: bool = False,
               out_dir: str | os.PathLike | None = None, resume: bool = False,
               limit: int | None = None) -> dict[str, Any]:
    """Score `model` on Base Bench 1.1 (`bench="base-bench"`) or base-evals splits (`"base-evals[:A,B]"`).

    Returns {"benchmark", "runs": [{"run_id", "dir", "report"}...]} (plus a combined "report" for
    base-evals). Raises BadInput for bad data or flags (before any run exists).
    """
    from evaluators.loglik.run import LoglikOptions
    from evaluators.loglik.run import run_loglik as _run

    return _run(LoglikOptions(
        bench=bench, model=str(model), name=name, results=None if results is None else str(results), data=data,
        data_revision=data_revision, revision=revision, backend=backend, device=device, dtype=dtype,
        threads=threads, batch_size=batch_size, max_batch_tokens=max_batch_tokens, add_bos=add_bos,
        out_dir=None if out_dir is None else str(out_dir), resume=resume, limit=limit))
