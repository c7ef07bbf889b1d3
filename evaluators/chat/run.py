"""Chat benchmarks against a served model: prompt every item, extract, record one attempt row each.

Each benchmark is a spec (`evaluators/specs/*.toml`, or the user's file): its system prompt and user
template (by default, in the style of simple-evals MMLU: the question and lettered options, and an
instruction to end with "The answer is X" or "#### N", reasoning allowed first), its answer kind and
token budget. Temperature 0, no stop sequences (a stop on "\\n" would cut thinking short). With
`fold_system` the system text is folded into the user turn, for chat templates without a system role.
Rows are recorded as answers arrive; `--resume` continues an interrupted or failed run, retries items
that ended in an infrastructure error, and keeps a task whose latest run finished with this configuration.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from evaluators.chat import PRESENTATION, AttemptExtra
from evaluators.chat import spec as chat_spec
from evaluators.chat.extract import EXTRACTION_VERSION, grade
from evaluators.chat.metrics import score_rows, summary
from evaluators.chat.options import ChatOptions
from evaluators.chat.spec import Item, Task
from evaluators.core.contract import ERROR, AttemptKey, RunStatus
from evaluators.core.errors import BadInput
from evaluators.models.backends.base import GenerationRequest, GenerationResult
from evaluators.models.backends.server import ServerBackend
from evaluators.models.backends.server_configs import note_server_change, record_server_config
from evaluators.runs.progress import Progress
from evaluators.runs.runs import RunSpec, finished_run, start_run
from evaluators.specs.spec import builtin_specs
from evaluators.specs.spec_data import DataFile, locate
from evaluators.store.records import AttemptRow, RunRow, columns
from evaluators.store.store import Store, writable_store

log = logging.getLogger("bananabench")

ALL = "all"  # `--task all`: every built-in chat benchmark
EVERY_TASK = "*"  # the `--max-tokens N` key for every task


@dataclass
class TaskResult:
    task: str
    benchmark: str
    run_id: str
    status: str
    resumed: bool
    summary: dict[str, Any]


@dataclass
class Loaded:
    """A task with its data and selected items, read before anything is written."""

    task: Task
    data: DataFile
    items: list[Item]


def resolve_tasks(names: list[str]) -> list[Task]:
    """Built-in chat benchmarks by id or short name (`all`: every one), or spec files; each once."""
    if not names:
        raise BadInput("--task: name at least one task")
    specs = [s for s in builtin_specs() if s.evaluator == "chat"] if names == [ALL] else None
    tasks = [chat_spec.parse(s) for s in specs] if specs is not None else [chat_spec.load_task(n) for n in names]
    return list({t.spec.id: t for t in tasks}.values())


def budget(task: Task, max_tokens: dict[str, int]) -> int:
    """The token budget: `--max-tokens NAME=N` by any of the task's names, else `--max-tokens N`, else the spec's."""
    for name in task.spec.names:
        if name in max_tokens:
            return max_tokens[name]
    return max_tokens.get(EVERY_TASK, task.scoring.max_tokens)


def messages_for(task: Task, item: Item, fold_system: bool) -> tuple[dict[str, str], ...]:
    """The system prompt, each few-shot example as a user turn and the assistant's reply, then the question;
    with `fold_system` the system text opens the first user turn instead."""
    turns = [m for ex in item.examples for m in ({"role": "user", "content": task.render(ex)},
                                                 {"role": "assistant", "content": task.reply(ex)})]
    turns.append({"role": "user", "content": task.render(item)})
    system = task.scoring.system
    if fold_system:
        return ({"role": "user", "content": f"{system}\n\n{turns[0]['content']}"}, *turns[1:])
    return ({"role": "system", "content": system}, *turns)


def attempt_row(task: Task, item: Item, result: GenerationResult, *, messages: Any, fingerprint: str,
                started_at: dt.datetime) -> tuple[AttemptRow, dict[str, float]]:
    """The attempt row (and numeric metrics) for one answer; infrastructure errors stay errors."""
    extra: AttemptExtra = {
        "messages": list(messages), "letters": item.letters or None, "content_hash": item.content_hash,
        "index": item.index, AttemptKey.SERVER_FINGERPRINT: fingerprint, "attempts": result.raw.get("attempts"),
        **({AttemptKey.ACCEPTED: list(item.accepted)} if item.accepted else {}),
    }
    if result.error is not None:
        status, answer = ERROR, None
        extra[AttemptKey.ERROR] = result.error
    else:
        status, answer = grade(task.scoring.answer, result.text, item.letters, item.golds, result.finish_reason,
                               task.scoring.pattern)
        extra.update({AttemptKey.RAW: result.raw.get("content", result.text), AttemptKey.REASONING: result.reasoning,
                      "finish_reason": result.finish_reason})
        for key in ("tool_calls", "cached_tokens", "replica", "moved"):
            if key in result.raw:
                extra[key] = result.raw[key]
    row = AttemptRow(
        item_id=item.item_id, attempt=1, status=status,
        correct=None if status == ERROR else status == "correct",
        score=None if status == ERROR else float(status == "correct"),
        prediction=answer, reference=item.gold, category=item.category,
        started_at=started_at, wall_s=result.timings.get("wall_s"),
        tokens_in=result.tokens_in, tokens_out=result.tokens_out, extra=extra,
    )
    metrics = {"ttft_s": result.timings.get("ttft_s"), "prefill_tps": result.timings.get("prompt_per_second"),
               "decode_tps": result.timings.get("predicted_per_second")}
    return row, {k: v for k, v in metrics.items() if v is not None}


def run_task(store: Store, backend: ServerBackend, loaded: Loaded, *, name: str, options: ChatOptions,
             fold_system: bool) -> TaskResult:
    """Evaluate one task; returns when every item has a row (or raises when the server goes away)."""
    task, data, items, info = loaded.task, loaded.data, loaded.items, backend.info
    spec, scoring = task.spec, task.scoring
    tokens = budget(task, options.max_tokens)
    if tokens >= info.ctx:
        log.warning("%s: a token budget of %d does not fit the %d-token context of a slot (%s); long answers "
                    "will be cut or refused", task.name, tokens, info.ctx, info.ctx_source)
    default_scoring = tokens == scoring.max_tokens and not options.extra_body
    run_spec = RunSpec(
        evaluator="chat", benchmark=spec.id, model_name=name, benchmark_version=spec.version,
        artifact=backend.identity.as_artifact(), backend="server", dataset_sha256=chat_spec.dataset_sha256(items),
        official=data.pinned and options.limit is None and default_scoring,
        scoring={**task.signature(), "extraction": EXTRACTION_VERSION, "max_tokens": tokens,
                 "temperature": 0.0, "stop": [], "fold_system": fold_system, "extra_body": options.extra_body},
        options={"base_url": info.base_url, "replicas": info.urls, "concurrency": backend.concurrency, "stream": backend.stream},
        n_items=len(items), retry_statuses=(ERROR,),
        extra={**info.run_extra(), "task": task.name, "kind": scoring.answer, "pattern": scoring.pattern,
               "data_source": {**data.source, "sha256": data.sha256}, "extraction_version": EXTRACTION_VERSION},
    )
    if options.resume and (finished := finished_run(store, run_spec)) is not None:
        return TaskResult(task=task.name, benchmark=spec.id, run_id=finished.run_id, status=RunStatus.FINISHED,
                          resumed=True, summary=summary(store.attempts(finished.run_id)))
    record_server_config(store, info)
    note_server_change(store, name, info)
    with start_run(store, run_spec, resume=options.resume, policy=spec.policy, benchmark_title=spec.title,
                   headline_metric=spec.headline, description=spec.description, presentation=PRESENTATION) as run:
        todo = [item for item in items if not run.is_done(item.item_id)]
        if run.resumed:
            log.info("%s: resuming run %s, %d of %d items left", task.name, run.run_id, len(todo), len(items))
        else:
            log.info("%s: run %s, %d items", task.name, run.run_id, len(todo))
        msgs = [messages_for(task, item, fold_system) for item in todo]
        requests = [GenerationRequest(messages=m, max_tokens=tokens, temperature=0.0, extra=dict(options.extra_body))
                    for m in msgs]
        with Progress(len(items), task.name, initial=len(items) - len(todo)) as progress:
            for i, result in backend.generate(requests):
                when = _utcnow() - dt.timedelta(seconds=result.timings.get("wall_s", 0.0))
                row, metrics = attempt_row(task, todo[i], result, messages=msgs[i], fingerprint=info.fingerprint,
                                           started_at=when)
                run.record(row, metrics=metrics)
                progress.update()
        run.flush()
        attempts = store.attempts(run.run_id)
        result_summary = summary(attempts)
        status = RunStatus.FINISHED if result_summary["n_error"] == 0 else RunStatus.FAILED
        run.finish(score_rows(attempts), extra={**run_spec.extra, "summary": result_summary}, status=status)
        if status == RunStatus.FAILED:
            store.update_run(run.run_id, error=f"{result_summary['n_error']} item(s) ended in infrastructure "
                                                "errors; run again with --resume to retry them")
    return TaskResult(task=task.name, benchmark=spec.id, run_id=run.run_id, status=status,
                      resumed=run.resumed, summary=result_summary)


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def load(task: Task, options: ChatOptions) -> Loaded:
    """The task's data and selected items (`--data` overrides the spec's location; `--limit` applies last)."""
    (data,) = locate(task.spec, options.data)
    items = chat_spec.read_items(task, data)
    if options.limit:
        items = items[:options.limit]
    if not items:
        raise BadInput(f"{data.path}: no items selected for {task.spec.id}")
    return Loaded(task, data, items)


def run_chat(options: ChatOptions) -> list[TaskResult]:
    """Load every task's data (bad input stops here, before anything is written), find the model on
    the server, then evaluate the tasks one after the other."""
    options.server.check()
    store = writable_store(options.results)
    tasks = resolve_tasks(options.tasks)
    names = {n for t in tasks for n in t.spec.names} | {EVERY_TASK}
    unknown = sorted(set(options.max_tokens) - names)
    if unknown:
        raise BadInput(f"--max-tokens: {unknown[0]!r} is not one of the tasks run ({', '.join(t.name for t in tasks)})")
    loaded = [load(task, options) for task in tasks]
    info = options.server.discover(options.name)
    log.info(info.startup_line())
    fold_system = options.fold_system
    if fold_system is None:
        caps = (info.props or {}).get("chat_template_caps") or {}
        fold_system = caps.get("supports_system_role") is False
        if fold_system:
            log.info("the chat template has no system role: folding the system text into the user turn")
    backend = ServerBackend(info, api_key=options.server.key(), concurrency=options.server.concurrency,
                            stream=options.stream, retry=options.retry_policy(), idle_timeout_s=options.timeout)
    return [run_task(store, backend, one, name=options.name or info.model_id, options=options,
                     fold_system=fold_system) for one in loaded]


def _answer_rule(run: RunRow) -> tuple[str, str | None]:
    """(answer kind, pattern) a stored run was graded with: its own record, else its benchmark's spec."""
    extra = run.extra or {}
    if extra.get("kind"):
        return extra["kind"], extra.get("pattern")
    spec = next((s for s in builtin_specs() if s.id == run.benchmark and s.evaluator == "chat"), None)
    if spec is None:
        raise BadInput(f"run {run.run_id}: benchmark {run.benchmark!r} records no answer kind")
    task = chat_spec.parse(spec)
    return task.scoring.answer, task.scoring.pattern


def rescore_run(store: Store, run_id: str, *, dry_run: bool = False) -> dict[str, Any]:
    """Re-extract every stored raw response with the current rules; update verdicts and scores.

    The model is not called. Infrastructure errors stay errors (they have no response).
    """
    run = store.run(run_id)
    if run is None:
        raise BadInput(f"no run {run_id!r} in {store.path}")
    if run.evaluator != "chat":
        raise BadInput(f"run {run_id} is a {run.evaluator} run, not a chat run")
    kind, pattern = _answer_rule(run)
    attempts = store.attempts(run_id)
    changed, updated = [], []
    for attempt in attempts:
        if attempt.status == ERROR:
            updated.append(attempt)
            continue
        extra = attempt.extra or {}
        status, answer = grade(kind, extra.get(AttemptKey.RAW), extra.get("letters") or "ABCD",
                               extra.get(AttemptKey.ACCEPTED) or attempt.reference,
                               extra.get("finish_reason"), pattern)
        if (status, answer) != (attempt.status, attempt.prediction):
            changed.append({"item_id": attempt.item_id, "before": [attempt.status, attempt.prediction],
                            "after": [status, answer]})
        updated.append(dataclasses.replace(attempt, status=status, prediction=answer, correct=status == "correct",
                                           score=float(status == "correct")))
    result = {"run_id": run_id, "n": len(attempts), "changed": changed, "summary": summary(updated),
              "extraction": EXTRACTION_VERSION}
    if dry_run or not changed:
        return result
    rows = [columns(a, run_id=run_id) for a in updated]
    extra = {**(run.extra or {}), "summary": result["summary"],
             "rescored": {"extraction": EXTRACTION_VERSION, "at": _utcnow().isoformat(timespec="seconds") + "Z",
                          "changed": len(changed)}}
    with store.write() as con:
        store.upsert("attempts", rows, con=con)
        store.replace_scores(run_id, score_rows(updated), con=con)
        store.update_run(run_id, con=con, extra=extra)
    return result
