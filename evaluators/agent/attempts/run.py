"""The banana-benchmark runner: select tasks, find the server, run attempts in parallel, record rows.

The same command resumes an interrupted run (finished attempts are kept, infrastructure errors
are retried); `--rerun` starts a new run. Attempts run on this machine's podman or on several podman
hosts (`--podman-connection`, see `hosts`), each with its own slots. A lock per model keeps two runs apart, and containers
left by a crashed run of the same model are removed at start. SIGINT/SIGTERM kill the running
containers and discard the unfinished attempts.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import logging
import os
import shutil
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from evaluators.agent import PRESENTATION
from evaluators.agent.attempts import metrics
from evaluators.agent.attempts.attempt import AttemptResult, Cancelled, Upstream, run_attempt
from evaluators.agent.corpus import datasets, repos
from evaluators.agent.sandbox import hosts, volumes
from evaluators.agent.sandbox.containers import Resources
from evaluators.agent.sandbox.limits import BenchConfig, load_config, merged
from evaluators.agent.sandbox.pi import THINKING_LEVELS, PiOptions
from evaluators.core.contract import ERROR, AttemptKey, Metric, RunKey, RunStatus
from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.models.backends.discovery import ServerOptions
from evaluators.models.backends.replicas import ReplicaSet
from evaluators.runs import runs as core_runs
from evaluators.runs.progress import Progress
from evaluators.runs.runs import RunSpec, start_run
from evaluators.store.records import AttemptRow, RunRow
from evaluators.store.store import Store, utcnow, writable_store

log = logging.getLogger("bananabench")

BENCHMARK = "banana-benchmark"
BENCHMARK_VERSION = "1"
MAX_CONSECUTIVE_ERRORS = 3


@dataclass
class AgentRunOptions:
    """Everything `agent run` (and `evaluators.api.run_agent`) accepts (see its --help)."""

    name: str
    server: ServerOptions = field(default_factory=ServerOptions)
    results: str | None = None
    limit: int | None = None  # the first N selected tasks
    tasks_dir: str | None = None
    only: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    attempts: int = 1
    parallel: int | None = None
    thinking: str | None = None
    reasoning: bool = False
    max_tokens: int | None = None
    keep_workspaces: bool = False
    timeout_s: float | None = None
    idle_s: float | None = None
    max_tool_calls: int | None = None
    workspace_mb: int | None = None
    rerun: bool = False
    dry_run: bool = False
    config: str | None = None
    image: str | None = None
    memory: str = "4g"
    pids: int = 512
    cpus: float = 2.0
    podman_connection: str | None = None  # NAME[=N][,NAME...]: podman hosts (`local` is this machine)
    reference: str | None = None  # a reference run (not a model's work): what it is, shown on the site


def select_tasks(opts: AgentRunOptions) -> list[datasets.Task]:
    root = datasets.tasks_root(opts.tasks_dir)
    tasks = datasets.select(datasets.load_tasks(root), only=opts.only, exclude=opts.exclude,
                            categories=opts.categories, tags=opts.tags)
    if not tasks:
        raise BadInput(f"no task under {root} matches the selection")
    return tasks[:opts.limit] if opts.limit else tasks


def _validate(opts: AgentRunOptions) -> None:
    if opts.thinking is not None and opts.thinking not in THINKING_LEVELS:
        raise BadInput(f"--thinking must be one of {', '.join(THINKING_LEVELS)}, not {opts.thinking!r}")
    if opts.attempts < 1:
        raise BadInput("--attempts must be at least 1")
    if opts.workspace_mb is not None and opts.workspace_mb < 0:
        raise BadInput("--workspace-mb must be 0 (no limit) or a size in MiB")


def dry_run(opts: AgentRunOptions, config: BenchConfig, out=None) -> int:
    """Print the attempts a run would make, with their limits, without touching podman or the server.
    `out` defaults to the `sys.stdout` of the call, not of the import (a caller may have redirected it)."""
    out = out or sys.stdout
    tasks = select_tasks(opts)
    cli = _cli_limits(opts)
    print(f"{len(tasks)} task(s) x {opts.attempts} attempt(s) = {len(tasks) * opts.attempts} attempt(s) "
          f"for model {opts.name} at {', '.join(opts.server.urls()) if opts.server.base_url else None}", file=out)
    for task in tasks:
        lim = merged(config.limits, task.agent, cli)
        flags = " manual" if task.manual else ""
        print(f"  {task.id}  [{','.join(task.tags)}]{flags}  timeout {lim.timeout_s:g}s idle {lim.idle_s:g}s "
              f"max-tool-calls {lim.max_tool_calls} workspace {lim.workspace_mb} MiB  attempts 1..{opts.attempts}",
              file=out)
    return 0


def _cli_limits(opts: AgentRunOptions) -> dict[str, Any]:
    return {"timeout_s": opts.timeout_s, "idle_s": opts.idle_s, "max_tool_calls": opts.max_tool_calls,
            "workspace_mb": opts.workspace_mb}


def run_agent_benchmark(opts: AgentRunOptions) -> dict[str, Any]:
    """Run (or resume) the benchmark for one model; returns a summary with the run id and scores."""
    _validate(opts)
    config = load_config(opts.config)
    if opts.dry_run:
        dry_run(opts, config)
        return {"dry_run": True}
    store = writable_store(opts.results)
    tasks = select_tasks(opts)
    cli_limits = _cli_limits(opts)
    workspace_mb = max(merged(config.limits, t.agent, cli_limits).workspace_mb for t in tasks)
    wanted = hosts.parse_connections(opts.podman_connection, opts.parallel)
    if any(name == hosts.LOCAL for name, _ in wanted):
        volumes.require_root(workspace_mb)

    info = opts.server.discover(opts.name)
    log.info("%s", info.startup_line())
    owner = core_runs.slug(opts.name)
    resources = Resources(memory=opts.memory, pids=opts.pids, cpus=opts.cpus)
    slots = hosts.share(wanted, info.n_slots or 1)
    opened: list[hosts.Host] = []
    try:
        for (host_name, _), n in zip(wanted, slots, strict=True):
            opened.append(hosts.open_host(host_name, n, image_name=opts.image, owner=owner, resources=resources,
                                          workspace_mb=workspace_mb))
        return _run(store, opts, config, tasks, info, opened)
    finally:
        for host in opened:
            host.close()


def _run(store: Store, opts: AgentRunOptions, config: BenchConfig, tasks: list[datasets.Task], info: Any,
         opened: list[hosts.Host]) -> dict[str, Any]:
    from evaluators.models.backends import server_configs
    cli_limits = _cli_limits(opts)
    versions = {h.name: h.sandbox.image.pi_version for h in opened}
    if len(set(versions.values())) > 1:
        raise BadInput(f"the podman hosts run different Pi versions ({versions}): every attempt of a run must use "
                       "the same agent; build the same image on each")
    img = opened[0].sandbox.image
    parallel = sum(h.slots for h in opened)
    host_list = [{"host": h.name, "slots": h.slots, "image": h.sandbox.image.identity()} for h in opened]
    spec = RunSpec(
        evaluator="agent", benchmark=BENCHMARK, model_name=opts.name, benchmark_version=BENCHMARK_VERSION,
        artifact={"identity": {"kind": "server", "model_id": info.model_id},
                  "base_url": info.base_url, "replicas": info.urls, "server_fingerprint": info.fingerprint, "model_path": info.model_path},
        backend="server",
        scoring={"limits": {k: v for k, v in {**config.limits.as_dict(), **cli_limits}.items() if v is not None},
                 "thinking": opts.thinking, "reasoning": opts.reasoning, "max_tokens": opts.max_tokens,
                 "attempts": opts.attempts, "pi_version": img.pi_version, "pi_settings": config.pi_settings},
        options={"parallel": parallel, "keep_workspaces": opts.keep_workspaces, "image": img.identity(),
                 "hosts": host_list, "tasks": [t.id for t in tasks]},
        n_items=len(tasks) * opts.attempts,
        official=not (opts.only or opts.exclude or opts.categories or opts.tags or opts.limit),
        retry_statuses=(ERROR,),
        extra={**info.run_extra(), "image": img.identity(), "hosts": host_list, "pi_version": img.pi_version,
               "context_window": info.ctx, "config_file": config.source,
               **({RunKey.REFERENCE_RUN: opts.reference} if opts.reference else {})},
    )
    server_configs.record_server_config(store, info)
    server_configs.note_server_change(store, opts.name, info)
    if not opts.rerun and (finished := _already_done(store, spec, tasks, opts.attempts)):
        log.info("every selected attempt is already done in run %s; --rerun repeats them", finished.run_id)
        return {"run_id": finished.run_id, "dir": str(core_runs.run_dir(store, finished)),
                "scores": store.scores(finished.run_id), "already_done": True}
    with start_run(store, spec, resume=not opts.rerun, policy="public", benchmark_title="banana-benchmark",
                   headline_metric=Metric.SCORE, presentation=PRESENTATION) as run:
        volumes.unmount_below(run.dir)  # file systems a crashed run of this model left mounted (the lock is ours)
        pi_options = PiOptions(model_id=info.model_id, context_window=info.ctx, max_tokens=opts.max_tokens,
                               reasoning=opts.reasoning, thinking=opts.thinking, settings=config.pi_settings)
        upstream = Upstream(ReplicaSet(info.urls, slots=info.n_slots, api_key=opts.server.key()), info.model_id)
        todo = [(t, n) for t in tasks for n in range(1, opts.attempts + 1) if not run.is_done(t.id, n)]
        log.info("run %s: %d attempt(s) to do, %d done, %d in parallel on %s", run.run_id, len(todo),
                 len(tasks) * opts.attempts - len(todo), parallel, ", ".join(h.name for h in opened))
        _execute(run, opened, todo, upstream=upstream, pi_options=pi_options, config=config, cli_limits=cli_limits,
                 keep=opts.keep_workspaces, fingerprint=info.fingerprint)
        run.flush()
        scores = metrics.compute_scores(store, run.run_id)
        errors = [a for a in store.attempts(run.run_id) if a.status == ERROR]
        extra = {**spec.extra, "tasks": {t.id: t.hash for t in tasks}}
        if errors:
            # Incomplete: not on the leaderboard until the same command has retried the errors.
            run.finish(scores, extra=extra, status=RunStatus.FAILED)
            raise EvaluationFailure(
                f"{len(errors)} attempt(s) hit infrastructure errors (first: {errors[0].item_id}: "
                f"{(errors[0].extra or {}).get('error')}); they are not counted as failures. "
                "Fix the cause and run the same command again to retry them")
        run.finish(scores, extra=extra)
        return {"run_id": run.run_id, "dir": str(run.dir), "scores": scores}


def _already_done(store: Store, spec: RunSpec, tasks: list[datasets.Task], attempts: int) -> RunRow | None:
    """The run that finished with this configuration (`runs.runs.finished_run`) if it holds every selected attempt."""
    run = core_runs.finished_run(store, spec)
    if run is None:
        return None
    done = store.done_items(run.run_id, exclude_statuses=spec.retry_statuses)
    wanted = {(t.id, n) for t in tasks for n in range(1, attempts + 1)}
    return run if wanted <= done else None


def _start_dirs(run_dir: Path, tasks: list[datasets.Task]) -> dict[str, Path]:
    """The start state of each task: its workspace/ as is, or a prepared checkout for [repo] tasks."""
    starts = {}
    for task in tasks:
        if task.repo is None:
            starts[task.id] = task.workspace_dir.resolve()
        else:
            starts[task.id] = repos.materialize(task, run_dir / ".start" / task.id)
    return starts


def _execute(run: core_runs.Run, opened: list[hosts.Host], todo: list[tuple[datasets.Task, int]], *,
             upstream: Upstream, pi_options: PiOptions, config: BenchConfig, cli_limits: dict[str, Any], keep: bool,
             fingerprint: str) -> None:
    """Attempts in order, each on the first host with a free slot."""
    if not todo:
        return
    starts = _start_dirs(run.dir, sorted({t.id: t for t, _ in todo}.values(), key=lambda t: t.id))
    cancel = threading.Event()
    consecutive_errors = 0
    free = [host for host in opened for _ in range(host.slots)]
    parallel = len(free)

    def work(host: hosts.Host, task: datasets.Task, n: int) -> tuple[hosts.Host, datasets.Task, int, AttemptResult,
                                                                      str]:
        attempt_dir = run.dir / task.id / f"attempt-{n}"
        began = utcnow()
        limits = merged(config.limits, task.agent, cli_limits)
        t0 = time.monotonic()
        try:
            result = run_attempt(host, task, starts[task.id], attempt_dir, upstream=upstream,
                                 pi_options=pi_options, limits=limits, keep_workspace=keep, cancel=cancel)
        except Cancelled:
            raise
        except (EvaluationFailure, OSError) as exc:
            if cancel.is_set():
                raise Cancelled() from exc
            result = AttemptResult(status=ERROR, score=None, correct=None, wall_s=time.monotonic() - t0,
                                   error=f"{type(exc).__name__}: {exc}")
        result.extra[AttemptKey.HOST] = host.name
        return host, task, n, result, began

    pool = cf.ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="attempt")
    pending: set[cf.Future] = set()
    queue_ = list(todo)
    try:
        with Progress(len(todo), "agent attempts") as progress:
            while queue_ or pending:
                while queue_ and free:
                    task, n = queue_.pop(0)
                    pending.add(pool.submit(work, free.pop(0), task, n))
                done, pending = cf.wait(pending, timeout=0.5, return_when=cf.FIRST_COMPLETED)
                for future in done:
                    host, task, n, result, began = future.result()
                    free.append(host)
                    _record(run, task, n, result, began, fingerprint)
                    progress.update()
                    log.info("%s attempt %d on %s: %s%s (%.1f s)", task.id, n, host.name, result.status,
                             f" ({result.stuck_reason})" if result.stuck_reason else
                             f" ({result.error})" if result.error else "", result.wall_s)
                    consecutive_errors = consecutive_errors + 1 if result.status == ERROR else 0
                    if consecutive_errors >= MAX_CONSECUTIVE_ERRORS:
                        raise EvaluationFailure(
                            f"{consecutive_errors} infrastructure errors in a row (last: {result.error}); "
                            "stopping. Fix the cause and run the same command again to resume")
    except BaseException:
        cancel.set()
        for host in opened:
            host.sandbox.kill_all()
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _rel(path: Path, root: Path) -> str:
    return os.path.relpath(path, root)


def _record(run: core_runs.Run, task: datasets.Task, n: int, result: AttemptResult, began, fingerprint: str) -> None:
    root = run.store.root
    attempt_dir = run.dir / task.id / f"attempt-{n}"
    extra: dict[str, Any] = {
        AttemptKey.TASK_HASH: task.hash, AttemptKey.TITLE: task.title, AttemptKey.TAGS: list(task.tags),
        AttemptKey.STUCK_REASON: result.stuck_reason,
        AttemptKey.TOOL_CALLS_BY_NAME: result.extra.get(AttemptKey.TOOL_CALLS_BY_NAME, {}),
        AttemptKey.ARTIFACTS: _rel(attempt_dir, root), AttemptKey.SERVER_FINGERPRINT: fingerprint,
        AttemptKey.ERROR: result.error, "manual": task.manual,
        **{k: v for k, v in result.extra.items()
           if k not in (AttemptKey.TOOL_CALLS_BY_NAME, AttemptKey.SCREENSHOTS, AttemptKey.WORKSPACE)},
    }
    extra = bounded(extra)
    shots = result.extra.get(AttemptKey.SCREENSHOTS) or {}
    if shots:
        extra[AttemptKey.SCREENSHOTS] = {view: _rel(attempt_dir / name, root) for view, name in shots.items()}
    if result.extra.get(AttemptKey.WORKSPACE):
        extra[AttemptKey.WORKSPACE] = _rel(attempt_dir / "workspace", root)
    if task.checklist is not None and attempt_dir.is_dir():
        shutil.copyfile(task.checklist, attempt_dir / "checklist.md")
        extra[AttemptKey.CHECKLIST] = _rel(attempt_dir / "checklist.md", root)
    if attempt_dir.is_dir():
        summary = bounded({"task": task.id, "attempt": n, "status": result.status, "score": result.score,
                           "wall_s": result.wall_s, **asdict(result), "extra": extra})
        (attempt_dir / "attempt.json").write_text(_json(summary))
    prediction = result.status if result.score is None or result.status != "failed" else f"score {result.score:g}"
    m = result.metrics
    run.record(AttemptRow(
        item_id=task.id, attempt=n, status=result.status, correct=result.correct, score=result.score,
        prediction=prediction, category=task.category, difficulty="hard" if "hard" in task.tags else None,
        started_at=began, wall_s=result.wall_s,
        tokens_in=_int((m.get("tokens_input") or 0) + (m.get("tokens_cache") or 0)) if m else None,
        tokens_out=_int(m.get("tokens_output")) if m else None, extra=extra,
    ), metrics={k: float(v) for k, v in m.items() if isinstance(v, (int, float)) and not isinstance(v, bool)})
    run.flush(block=False)


MAX_LIST = 200            # items of one list in an attempt's record
MAX_TEXT = 20_000         # characters of one string in it


def bounded(value: Any) -> Any:
    """The attempt record with every list and string cut to a bound, and a note of what was dropped: whatever
    the agent provokes (refused requests, odd file names, long messages), the record stays small."""
    if isinstance(value, dict):
        return {str(k)[:MAX_TEXT]: bounded(v) for k, v in list(value.items())[:MAX_LIST]} | (
            {"dropped_keys": len(value) - MAX_LIST} if len(value) > MAX_LIST else {})
    if isinstance(value, (list, tuple)):
        kept = [bounded(v) for v in value[:MAX_LIST]]
        return kept + ([f"... {len(value) - MAX_LIST} more not kept"] if len(value) > MAX_LIST else [])
    if isinstance(value, str) and len(value) > MAX_TEXT:
        return value[:MAX_TEXT] + f"... [{len(value) - MAX_TEXT} more characters not kept]"
    return value


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _json(obj: Any) -> str:
    return json.dumps(obj, indent=2, default=str, ensure_ascii=False) + "\n"

