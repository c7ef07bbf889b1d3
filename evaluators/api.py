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
    "publish_site", "report",
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


def publish_site(store: Store | str | os.PathLike | None = None, out: str | os.PathLike = "site", *,
                 private: bool = False, include_apps: bool = False, baselines: list[str] | tuple[str, ...] = (),
                 templates: str | os.PathLike | None = None) -> Any:
    """Render the store into a static site in `out` (see `bananabench publish`); returns a BuildResult."""
    from evaluators.publish.builder import publish

    return publish(_store(store), out, private=private, include_apps=include_apps, baselines=baselines,
                   templates=templates)


def report(store: Store | str | os.PathLike | None = None, *, model: str | None = None,
           baselines: list[str] | tuple[str, ...] = (), compare: bool = False, markdown: bool = False,
           private: bool = False) -> str:
    """The text of `bananabench report`: leaderboard, a model's report, baseline diffs or the comparison."""
    from evaluators.publish.queries import Queries
    from evaluators.publish.report import build_report

    with Queries.open(_store(store), private=private) as q:
        return build_report(q, model=model, baselines=baselines, compare_all=compare, markdown=markdown)
