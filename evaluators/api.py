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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluators.core.atomic import require_writable
from evaluators.core.export import export_store
from evaluators.core.store import Query, Store

if TYPE_CHECKING:
    from evaluators.chat.run import TaskResult

__all__ = [
    "Store", "Query", "open_store", "runs", "current_runs", "attempts", "scores", "query", "export",
    "run_chat", "evaluate_modes", "generate_modes", "run_modes", "run_agent",
    "run_loglik", "publish_site", "report",
]


def open_store(results: str | os.PathLike | None = None) -> Store:
    """The results store in `results` (default `$BANANABENCH_RESULTS` or `./results`)."""
    return Store(results)


def _store(store: Store | str | os.PathLike | None) -> Store:
    return store if isinstance(store, Store) else Store(store)


def _writable_store(store: Store | str | os.PathLike | None) -> Store:
    """The store an evaluator will write, refused (BadInput) before any work when its folder is read-only."""
    opened = _store(store)
    require_writable(opened.root, "--results")
    return opened


def _writable_out(out: str | os.PathLike | None) -> None:
    if out is not None:
        require_writable(Path(out).parent, "--out")


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
           private: bool = False, include_hidden: bool = False) -> list:
    """Write every table as Parquet/CSV, dropping ids-only item text unless `private` and hidden runs
    unless `include_hidden`."""
    return export_store(_store(store), out_dir, fmt, private=private, include_hidden=include_hidden)


def run_loglik(*, bench: str, model: str | os.PathLike | None, name: str | None = None,
               results: Store | str | os.PathLike | None = None,
               data: str | None = None, data_revision: str | None = None, revision: str | None = None,
               backend: str = "hf", device: str = "auto", dtype: str = "auto", threads: int | None = None,
               batch_size: int | None = 8, max_batch_tokens: int | None = None, add_bos: bool = False,
               out_dir: str | os.PathLike | None = None, resume: bool = False,
               limit: int | None = None, n_gpu_layers: int = 0, n_ctx: int | None = None,
               base_url: str | None = None, concurrency: int | None = None,
               api_key: str | None = None, device_map: str | None = None) -> dict[str, Any]:
    """Score `model` on Base Bench 1.1 (`bench="base-bench"`) or base-evals splits (`"base-evals[:A,B]"`).

    `backend` is "hf" (transformers), "gguf" (`model` is a GGUF file, llama.cpp in-process) or "server"
    (`base_url`; `model` is the served model id, default the server's only or loaded one).

    Returns {"benchmark", "runs": [{"run_id", "dir", "report"}...]} (plus a combined "report" for
    base-evals). Raises BadInput for bad data or flags (before any run exists).
    """
    from evaluators.loglik.run import LoglikOptions
    from evaluators.loglik.run import run_loglik as _run

    results = _writable_store(results)
    if out_dir is not None:
        require_writable(out_dir, "--out-dir")
    return _run(LoglikOptions(
        bench=bench, model=None if model is None else str(model), name=name, data=data,
        results=str(results.root),
        data_revision=data_revision, revision=revision, backend=backend, device=device, dtype=dtype,
        threads=threads, batch_size=batch_size, max_batch_tokens=max_batch_tokens, add_bos=add_bos,
        out_dir=None if out_dir is None else str(out_dir), resume=resume, limit=limit, n_gpu_layers=n_gpu_layers,
        n_ctx=n_ctx, base_url=base_url, concurrency=concurrency, api_key=api_key, device_map=device_map))


def run_agent(*, name: str, base_url: str, results: str | os.PathLike | None = None, **options: Any) -> dict[str, Any]:
    """Run (or resume) the banana-benchmark for one model on an OpenAI-compatible server.

    `options` are the fields of `evaluators.agent.run.AgentRunOptions` (model_id, ctx, tasks_dir, only,
    exclude, categories, tags, attempts, parallel, thinking, reasoning, max_tokens, keep_workspaces,
    timeout_s, idle_s, max_tool_calls, workspace_mb, rerun, dry_run, config, image, memory, pids, cpus,
    api_key). Returns
    `{"run_id", "dir", "scores"}` (or `{"dry_run": True}`).
    """
    from evaluators.agent.run import AgentRunOptions, run_agent_benchmark

    opts = AgentRunOptions(name=name, base_url=base_url, **options)
    return run_agent_benchmark(_store(results) if opts.dry_run else _writable_store(results), opts)


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

    return _run_chat(_writable_store(results), list(tasks), base_url=base_url, name=name, model_id=model_id, ctx=ctx,
                     data=None if data is None else str(data), limit=limit, resume=resume, fold_system=fold_system,
                     max_tokens=max_tokens, concurrency=concurrency, extra_body=extra_body, stream=stream,
                     retry=RetryPolicy(attempts=retries, base_s=retry_wait_s, max_s=max(30.0, retry_wait_s)),
                     idle_timeout_s=timeout_s, api_key=api_key)


def evaluate_modes(inputs: list[str | os.PathLike], *, name: str | None = None,
                   results: Store | str | os.PathLike | None = None, configs: list[str] | None = None,
                   split: str = "eval", data_root: str | os.PathLike | None = None,
                   cache_dir: str | os.PathLike | None = None, offline: bool = False, allow_partial: bool = False,
                   run_metadata: str | os.PathLike | None = None, min_defined_prompts: int = 30,
                   workers: int = 1, resume: bool = False):
    """Grade saved ModeBench responses with modebench and store every attempt (returns an EvaluationOutcome).

    `inputs`: one `bananabench modes generate` file, or plain modebench response files (one per group).
    """
    from evaluators.modes.run import EvaluateOptions, evaluate

    opts = EvaluateOptions(inputs=list(inputs), name=name, configs=list(configs or []), split=split,
                           data_root=data_root, cache_dir=cache_dir, offline=offline, allow_partial=allow_partial,
                           run_metadata=run_metadata, min_defined_prompts=min_defined_prompts, workers=workers,
                           resume=resume)
    return evaluate(_writable_store(results), opts)


def _modes_sources(configs, input, split, data_root, cache_dir, offline, limit, base_url, model, model_id,
                   api_key_env, ctx, concurrency, device, dtype):
    from evaluators.modes.datasets import TaskSource
    from evaluators.modes.generate import ModelSource

    return (TaskSource(configs=configs, input=input, split=split, data_root=data_root, cache_dir=cache_dir,
                       offline=offline, limit=limit),
            ModelSource(base_url=base_url, model=model, model_id=model_id, api_key_env=api_key_env, ctx=ctx,
                        concurrency=concurrency, device=device, dtype=dtype))


def generate_modes(*, out: str | os.PathLike | None, configs: list[str] | None = None,
                   input: str | os.PathLike | None = None, base_url: str | None = None, model: str | None = None,
                   name: str | None = None, model_id: str | None = None, api_key_env: str | None = None,
                   ctx: int | None = None, concurrency: int = 4, device: str | None = None, dtype: str | None = None,
                   k: int = 8, groups: int = 4, temperature: float = 1.0, top_p: float = 1.0, max_tokens: int = 192,
                   seed: int = 0, prompt_condition: str = "registered_hints_v1", on_draw_error: str = "stop",
                   limit: int | None = None, split: str = "eval", data_root: str | os.PathLike | None = None,
                   cache_dir: str | os.PathLike | None = None, offline: bool = False, resume: bool = False):
    """Sample k draws x groups per ModeBench task into a responses file (returns a GenerationSummary)."""
    from evaluators.modes.generate import GenerateOptions
    from evaluators.modes.run import generate_responses

    _writable_out(out)
    tasks, source = _modes_sources(configs, input, split, data_root, cache_dir, offline, limit, base_url, model,
                                   model_id, api_key_env, ctx, concurrency, device, dtype)
    opts = GenerateOptions(out=out, name=name, k=k, groups=groups, temperature=temperature, top_p=top_p,
                           max_tokens=max_tokens, seed=seed, prompt_condition=prompt_condition,
                           on_draw_error=on_draw_error, resume=resume)
    return generate_responses(tasks, source, opts)


def run_modes(*, out: str | os.PathLike | None = None, results: Store | str | os.PathLike | None = None,
              configs: list[str] | None = None, input: str | os.PathLike | None = None,
              base_url: str | None = None, model: str | None = None, name: str | None = None,
              model_id: str | None = None, api_key_env: str | None = None, ctx: int | None = None,
              concurrency: int = 4, device: str | None = None, dtype: str | None = None, k: int = 8,
              groups: int = 4, temperature: float = 1.0, top_p: float = 1.0, max_tokens: int = 192, seed: int = 0,
              prompt_condition: str = "registered_hints_v1", on_draw_error: str = "stop", limit: int | None = None,
              split: str = "eval", data_root: str | os.PathLike | None = None,
              cache_dir: str | os.PathLike | None = None, offline: bool = False, allow_partial: bool = False,
              min_defined_prompts: int = 30, workers: int = 1, resume: bool = False):
    """Generate ModeBench responses, grade them with modebench and store them (returns an EvaluationOutcome)."""
    from evaluators.modes.generate import GenerateOptions
    from evaluators.modes.run import generate_and_evaluate

    store = _writable_store(results)
    _writable_out(out)
    tasks, source = _modes_sources(configs, input, split, data_root, cache_dir, offline, limit, base_url, model,
                                   model_id, api_key_env, ctx, concurrency, device, dtype)
    opts = GenerateOptions(out=out, name=name, k=k, groups=groups, temperature=temperature, top_p=top_p,
                           max_tokens=max_tokens, seed=seed, prompt_condition=prompt_condition,
                           on_draw_error=on_draw_error, resume=resume)
    return generate_and_evaluate(store, tasks, source, opts, min_defined_prompts=min_defined_prompts,
                                 workers=workers, allow_partial=allow_partial)


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
