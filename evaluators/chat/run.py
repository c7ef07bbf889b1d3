"""One chat task against a served model: prompt every item, extract, record one attempt row each.

Prompts follow simple-evals MMLU: the question and lettered options, an instruction to end with
"The answer is X" (numbers: "#### N"), reasoning allowed first. Temperature 0, no stop
sequences (a stop on "\\n" would cut thinking short), a per-task token budget. With
`fold_system` the system text is folded into the user turn, for chat templates without a
system role. Rows are recorded as answers arrive; `--resume` continues an interrupted or
failed run and retries items that ended in an infrastructure error.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from evaluators.chat.datasets import TASKS, Item, TaskData, load_task, task_names
from evaluators.chat.extract import EXTRACTION_VERSION, grade
from evaluators.chat.metrics import score_rows, summary
from evaluators.chat.options import ChatOptions
from evaluators.core.backends.base import GenerationRequest, GenerationResult
from evaluators.core.backends.server import ServerBackend
from evaluators.core.backends.server_configs import note_server_change, record_server_config
from evaluators.core.errors import BadInput
from evaluators.core.progress import Progress
from evaluators.core.runs import RunSpec, finished_run, start_run
from evaluators.core.schema import COLUMNS
from evaluators.core.store import Store, writable_store

log = logging.getLogger("bananabench")

PROMPT_VERSION = "simple-evals-v1"
SYSTEM_PROMPTS = {
    "letter": ("Answer the multiple-choice question. You may reason step by step first. End your response "
               "with a line of the form \"The answer is X\", where X is the letter of the correct option."),
    "number": ("Solve the math problem. You may reason step by step first. End your response with a line "
               "of the form \"#### N\", where N is the final answer as a number."),
}


@dataclass
class TaskResult:
    task: str
    benchmark: str
    run_id: str
    status: str
    resumed: bool
    summary: dict[str, Any]


def user_prompt(item: Item, kind: str) -> str:
    if kind == "number":
        return item.question
    options = "\n".join(f"{letter}) {text}" for letter, text in zip(item.letters, item.options, strict=True))
    return f"{item.question}\n\n{options}\n\nAnswer with one of {', '.join(item.letters)}."


def messages_for(item: Item, kind: str, fold_system: bool) -> tuple[dict[str, str], ...]:
    system, user = SYSTEM_PROMPTS[kind], user_prompt(item, kind)
    if fold_system:
        return ({"role": "user", "content": f"{system}\n\n{user}"},)
    return ({"role": "system", "content": system}, {"role": "user", "content": user})


def attempt_row(item: Item, kind: str, result: GenerationResult, *, messages: Any, fingerprint: str,
                started_at: dt.datetime) -> tuple[dict[str, Any], dict[str, float]]:
    """The attempt row (and numeric metrics) for one answer; infrastructure errors stay errors."""
    extra: dict[str, Any] = {
        "messages": list(messages), "letters": item.letters or None, "content_hash": item.content_hash,
        "index": item.index, "server_fingerprint": fingerprint, "attempts": result.raw.get("attempts"),
    }
    if result.error is not None:
        status, answer = "error", None
        extra["error"] = result.error
    else:
        status, answer = grade(kind, result.text, item.letters, item.gold, result.finish_reason)
        extra.update({"raw": result.raw.get("content", result.text), "reasoning": result.reasoning,
                      "finish_reason": result.finish_reason})
        for key in ("tool_calls", "cached_tokens"):
            if key in result.raw:
                extra[key] = result.raw[key]
    row = {
        "item_id": item.item_id, "attempt": 1, "status": status,
        "correct": None if status == "error" else status == "correct",
        "score": None if status == "error" else float(status == "correct"),
        "prediction": answer, "reference": item.gold, "category": item.category,
        "started_at": started_at, "wall_s": result.timings.get("wall_s"),
        "tokens_in": result.tokens_in, "tokens_out": result.tokens_out, "extra": extra,
    }
    metrics = {"ttft_s": result.timings.get("ttft_s"), "prefill_tps": result.timings.get("prompt_per_second"),
               "decode_tps": result.timings.get("predicted_per_second")}
    return row, {k: v for k, v in metrics.items() if v is not None}


def run_task(store: Store, backend: ServerBackend, data: TaskData, *, name: str, options: ChatOptions,
             fold_system: bool) -> TaskResult:
    """Evaluate one task; returns when every item has a row (or raises when the server goes away)."""
    task, info = data.task, backend.info
    budget = options.max_tokens.get(task.name, task.max_tokens)
    if budget >= info.ctx:
        log.warning("%s: a token budget of %d does not fit the %d-token context of a slot (%s); long answers "
                    "will be cut or refused", task.name, budget, info.ctx, info.ctx_source)
    default_scoring = budget == task.max_tokens and not options.extra_body
    spec = RunSpec(
        evaluator="chat", benchmark=task.benchmark, model_name=name, benchmark_version=data.version,
        artifact=backend.identity.as_artifact(), backend="server", dataset_sha256=data.dataset_sha256,
        official=data.official_source and options.limit is None and default_scoring,
        scoring={"prompt_version": PROMPT_VERSION, "extraction": EXTRACTION_VERSION, "max_tokens": budget,
                 "temperature": 0.0, "stop": [], "fold_system": fold_system,
                 "extra_body": options.extra_body},
        options={"base_url": info.base_url, "concurrency": backend.concurrency, "stream": backend.stream},
        n_items=len(data.items), retry_statuses=("error",),
        extra={**info.run_extra(), "task": task.name, "kind": task.kind, "data_source": data.source,
               "prompt_version": PROMPT_VERSION, "extraction_version": EXTRACTION_VERSION},
    )
    if options.resume and (finished := finished_run(store, spec)) is not None:
        return TaskResult(task=task.name, benchmark=task.benchmark, run_id=finished["run_id"], status="finished",
                          resumed=True, summary=summary(store.attempts(finished["run_id"])))
    record_server_config(store, info)
    note_server_change(store, name, info)
    with start_run(store, spec, resume=options.resume, policy="public", benchmark_title=task.title,
                   headline_metric="accuracy") as run:
        todo = [item for item in data.items if not run.is_done(item.item_id)]
        if run.resumed:
            log.info("%s: resuming run %s, %d of %d items left", task.name, run.run_id, len(todo), len(data.items))
        else:
            log.info("%s: run %s, %d items", task.name, run.run_id, len(todo))
        msgs = [messages_for(item, task.kind, fold_system) for item in todo]
        requests = [GenerationRequest(messages=m, max_tokens=budget, temperature=0.0, extra=dict(options.extra_body))
                    for m in msgs]
        with Progress(len(data.items), task.name, initial=len(data.items) - len(todo)) as progress:
            for i, result in backend.generate(requests):
                when = _utcnow() - dt.timedelta(seconds=result.timings.get("wall_s", 0.0))
                row, metrics = attempt_row(todo[i], task.kind, result, messages=msgs[i],
                                           fingerprint=info.fingerprint, started_at=when)
                run.record(row, metrics=metrics)
                progress.update()
        run.flush()
        attempts = store.attempts(run.run_id)
        result_summary = summary(attempts)
        status = "finished" if result_summary["n_error"] == 0 else "failed"
        run.finish(score_rows(attempts), extra={**spec.extra, "summary": result_summary}, status=status)
        if status == "failed":
            store.update_run(run.run_id, error=f"{result_summary['n_error']} item(s) ended in infrastructure "
                                                "errors; run again with --resume to retry them")
    return TaskResult(task=task.name, benchmark=task.benchmark, run_id=run.run_id, status=status,
                      resumed=run.resumed, summary=result_summary)


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def run_chat(options: ChatOptions) -> list[TaskResult]:
    """Load every task's data (bad input stops here, before anything is written), find the model on
    the server, then evaluate the tasks one after the other."""
    options.server.check()
    store = writable_store(options.results)
    loaded = [load_task(task, data=options.data, limit=options.limit) for task in task_names(",".join(options.tasks))]
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
    return [run_task(store, backend, task_data, name=options.name or info.model_id, options=options,
                     fold_system=fold_system) for task_data in loaded]


def rescore_run(store: Store, run_id: str, *, dry_run: bool = False) -> dict[str, Any]:
    """Re-extract every stored raw response with the current rules; update verdicts and scores.

    The model is not called. Infrastructure errors stay errors (they have no response).
    """
    run = store.run(run_id)
    if run is None:
        raise BadInput(f"no run {run_id!r} in {store.path}")
    if run["evaluator"] != "chat":
        raise BadInput(f"run {run_id} is a {run['evaluator']} run, not a chat run")
    kind = (run.get("extra") or {}).get("kind") or _kind_of(run["benchmark"])
    attempts = store.attempts(run_id)
    changed, updated = [], []
    for attempt in attempts:
        if attempt["status"] == "error":
            updated.append(attempt)
            continue
        extra = attempt.get("extra") or {}
        status, answer = grade(kind, extra.get("raw"), extra.get("letters") or "ABCD", attempt["reference"],
                               extra.get("finish_reason"))
        if (status, answer) != (attempt["status"], attempt["prediction"]):
            changed.append({"item_id": attempt["item_id"], "before": [attempt["status"], attempt["prediction"]],
                            "after": [status, answer]})
        updated.append({**attempt, "status": status, "prediction": answer, "correct": status == "correct",
                        "score": float(status == "correct")})
    result = {"run_id": run_id, "n": len(attempts), "changed": changed, "summary": summary(updated),
              "extraction": EXTRACTION_VERSION}
    if dry_run or not changed:
        return result
    rows = [{k: a.get(k) for k in COLUMNS["attempts"]} for a in updated]
    extra = {**(run.get("extra") or {}), "summary": result["summary"],
             "rescored": {"extraction": EXTRACTION_VERSION, "at": _utcnow().isoformat(timespec="seconds") + "Z",
                          "changed": len(changed)}}
    with store.write() as con:
        store.upsert("attempts", rows, con=con)
        store.replace_scores(run_id, score_rows(updated), con=con)
        store.update_run(run_id, con=con, extra=extra)
    return result


def _kind_of(benchmark: str) -> str:
    for task in TASKS.values():
        if task.benchmark == benchmark:
            return task.kind
    raise BadInput(f"benchmark {benchmark!r} is not a chat task")
