"""The Python API for scripts: everything the CLI does, as typed functions.

    from evaluators import api
    store = api.open_store("results")
    api.run_loglik(api.LoglikOptions(bench="base-bench", model="./my-model", name="my-model", results="results"))
    for run in api.current_runs(store, benchmark="base-bench"):
        print(run.model_name, api.scores(store, run.run_id))

Each evaluator takes one options dataclass, the same one its CLI builds from the flags
(`evaluators.core.cliargs.options`), so a flag means the same from the shell and from Python.
Importing this module is cheap (no torch): evaluators load their heavy parts when called.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from evaluators.agent.attempts.run import AgentRunOptions
from evaluators.chat.options import ChatOptions
from evaluators.loglik.options import LoglikOptions
from evaluators.models.backends.discovery import ServerOptions
from evaluators.modes.datasets import TaskSource
from evaluators.modes.generate import GenerateOptions, ModelSource
from evaluators.modes.run import EvaluateOptions, RunOptions
from evaluators.store.export import export_store
from evaluators.store.records import AttemptRow, RunRow, ScoreRow
from evaluators.store.store import Query, Store

if TYPE_CHECKING:
    from evaluators.chat.run import TaskResult
    from evaluators.modes.generate import GenerationSummary
    from evaluators.modes.run import EvaluationOutcome
    from evaluators.publish.builder import BuildResult

__all__ = [
    "Store", "Query", "RunRow", "AttemptRow", "ScoreRow", "open_store", "runs", "current_runs", "attempts", "scores", "query", "export",
    "ServerOptions", "LoglikOptions", "ChatOptions", "AgentRunOptions", "TaskSource", "ModelSource",
    "GenerateOptions", "EvaluateOptions", "RunOptions",
    "run_loglik", "run_chat", "run_agent", "evaluate_modes", "generate_modes", "run_modes", "publish_site", "report",
]


def open_store(results: str | os.PathLike | None = None) -> Store:
    """The results store in `results` (default `$BANANABENCH_RESULTS` or `./results`)."""
    return Store(results)


def _store(store: Store | str | os.PathLike | None) -> Store:
    return store if isinstance(store, Store) else Store(store)


def runs(store: Store | str | None = None, *, model: str | None = None, benchmark: str | None = None,
         evaluator: str | None = None, status: str | None = None,
         include_hidden: bool = True) -> list[RunRow]:
    """Runs in start order, optionally filtered."""
    return _store(store).runs(model=model, benchmark=benchmark, evaluator=evaluator, status=status,
                              include_hidden=include_hidden)


def current_runs(store: Store | str | None = None, *, benchmark: str | None = None,
                 model: str | None = None) -> list[RunRow]:
    """The run per (model, benchmark, split) that the leaderboard shows."""
    return _store(store).current_runs(benchmark=benchmark, model=model)


def attempts(store: Store | str | None, run_id: str) -> list[AttemptRow]:
    """Every attempt of a run, one record per (item, attempt), JSON `extra` decoded."""
    return _store(store).attempts(run_id)


def scores(store: Store | str | None, run_id: str) -> list[ScoreRow]:
    """Aggregated scores of a run: one record per (scope, key, metric)."""
    return _store(store).scores(run_id)


def query(store: Store | str | None, sql: str, params: list[Any] | None = None) -> Query:
    """Any read-only SQL over the store."""
    return _store(store).query(sql, params)


def export(store: Store | str | None, out_dir: str | os.PathLike, fmt: str = "parquet", *,
           private: bool = False, include_hidden: bool = False) -> list:
    """Write every table as Parquet/CSV, dropping ids-only item text unless `private` and hidden runs
    unless `include_hidden`."""
    return export_store(_store(store), out_dir, fmt, private=private, include_hidden=include_hidden)


def run_loglik(options: LoglikOptions) -> dict[str, Any]:
    """Score a model on a loglik benchmark (`options.backend`: "hf", "gguf" or "server").

    Returns {"benchmark", "runs": [{"run_id", "dir", "report"}...]} (plus a combined "report" for a
    benchmark with splits). Raises BadInput for bad data or flags (before any run exists).
    """
    from evaluators.loglik.run import run_loglik as _run

    return _run(options)


def run_chat(options: ChatOptions) -> list[TaskResult]:
    """Evaluate a served model on chat tasks; one run per task, one `TaskResult` each (run id, status,
    accuracy and the correct/wrong/unanswered/error counts)."""
    from evaluators.chat.run import run_chat as _run

    return _run(options)


def run_agent(options: AgentRunOptions) -> dict[str, Any]:
    """Run (or resume) the banana-benchmark for one model: `{"run_id", "dir", "scores"}` (or `{"dry_run": True}`)."""
    from evaluators.agent.attempts.run import run_agent_benchmark

    return run_agent_benchmark(options)


def evaluate_modes(options: EvaluateOptions) -> EvaluationOutcome:
    """Grade saved ModeBench responses with modebench and store every attempt."""
    from evaluators.modes.run import evaluate

    return evaluate(options)


def generate_modes(tasks: TaskSource, model: ModelSource, options: GenerateOptions) -> GenerationSummary:
    """Sample k draws x groups per ModeBench task into a responses file."""
    from evaluators.modes.run import generate_responses

    return generate_responses(tasks, model, options)


def run_modes(options: RunOptions) -> EvaluationOutcome:
    """Generate ModeBench responses, grade them with modebench and store them."""
    from evaluators.modes.run import generate_and_evaluate

    return generate_and_evaluate(options)


def publish_site(store: Store | str | os.PathLike | None = None, out: str | os.PathLike = "site", *,
                 private: bool = False, include_apps: bool = False, baselines: list[str] | tuple[str, ...] = (),
                 templates: str | os.PathLike | None = None) -> BuildResult:
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
