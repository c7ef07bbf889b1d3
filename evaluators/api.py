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
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from evaluators.core.export import export_store
from evaluators.core.store import Query, Store

if TYPE_CHECKING:
    from evaluators.chat.run import TaskResult

__all__ = [
    "Store", "Query", "open_store", "runs", "current_runs", "attempts", "scores", "query", "export",
    "run_chat",
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


def run_chat(tasks: Sequence[str], *, base_url: str, name: str | None = None, model_id: str | None = None,
             ctx: int | None = None, data: str | os.PathLike | None = None, limit: int | None = None,
             resume: bool = False, fold_system: bool | None = None, max_tokens: dict[str, int] | None = None,
             concurrency: int | None = None, extra_body: dict[str, Any] | None = None, stream: bool = True,
             retries: int = 5, retry_wait_s: float = 1.0, timeout_s: float = 600.0, api_key: str | None = None,
             results: Store | str | os.PathLike | None = None) -> list[TaskResult]:
    """Evaluate a served model on chat tasks (`arc`, `mmlu`, `gsm8k`); one run per task.

    Returns one `evaluators.chat.run.TaskResult` per task (run id, status, accuracy and the
    correct/wrong/unanswered/error counts). `fold_system=None` folds the system prompt into the
    user turn only when the server's chat template has no system role.
    """
    from evaluators.chat.run import run_chat as _run_chat
    from evaluators.core.backends.server import RetryPolicy

    return _run_chat(_store(results), list(tasks), base_url=base_url, name=name, model_id=model_id, ctx=ctx,
                     data=None if data is None else str(data), limit=limit, resume=resume, fold_system=fold_system,
                     max_tokens=max_tokens, concurrency=concurrency, extra_body=extra_body, stream=stream,
                     retry=RetryPolicy(attempts=retries, base_s=retry_wait_s, max_s=max(30.0, retry_wait_s)),
                     idle_timeout_s=timeout_s, api_key=api_key)
