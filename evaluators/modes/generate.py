"""Sample k draws per group, G groups per ModeBench task, and save them as a modebench-ready responses file.

Each draw gets its own seed (seed + draw index, draws counted from 0 across a prompt's groups), so
draws differ even on a server that would otherwise repeat itself. Prompts come only from
`modebench.api.make_prompt(task)`: the reference answer never reaches the model. Every raw response
is kept in draw order (failures, refusals and reasoning included); the text handed to grading is
the final answer content with reasoning removed.

Durability: each finished (prompt, group) is one fsynced line of `OUT.partial`, whose first line
records the configuration. A killed generation continues with `--resume` (a torn last line is cut,
finished groups are never asked again); when every group is done the final `OUT` and its modebench
run metadata (`OUT` with `.run.json` for `.jsonl`) are published atomically and the partial file is removed.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.core import atomic
from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.core.text import split_reasoning
from evaluators.models.backends.base import Backend, GenerationRequest, GenerationResult
from evaluators.models.backends.discovery import ServerOptions
from evaluators.runs.progress import Progress
from evaluators.runs.runs import canonical_json, sha256_bytes, signature_diff

log = logging.getLogger("bananabench")

SCHEMA = "bananabench-modes-generation-v1"
SEED_RULE = "seed + draw index; draws are counted from 0 across all groups of a prompt"
FAILED_DRAW_POLICIES = ("stop", "empty")


def final_answer(text: str | None) -> str:
    """The graded text: answer content with `<think>` blocks removed (core's rule, as servers' replies get it)."""
    return split_reasoning(text)[0]


@dataclass
class GenerateOptions:
    """What `bananabench modes generate` takes (see its --help)."""

    out: str | os.PathLike | None
    name: str | None = None
    k: int = 8
    groups: int = 4
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 192
    seed: int = 0
    prompt_condition: str = "registered_hints_v1"
    on_draw_error: str = "stop"
    resume: bool = False


@dataclass
class GenerationSummary:
    out: Path
    run_metadata: Path
    prompts: int
    groups: int
    draws: int
    failed_draws: int
    resumed_groups: int = 0


@dataclass
class ModelSource:
    """Where draws come from: an OpenAI-compatible server (`server.base_url`) or a local transformers model."""

    server: ServerOptions = field(default_factory=ServerOptions)
    model: str | None = None
    device: str | None = None
    dtype: str | None = None

    def describe(self) -> dict[str, Any]:
        if not self.server.base_url:
            return {"model": str(self.model)}
        urls = self.server.urls()  # one server is described as before, so earlier generations files are found
        return {"base_url": urls[0] if len(urls) == 1 else urls, "model_id": self.server.model_id}


def open_backend(source: ModelSource, name: str | None) -> tuple[Backend, dict[str, Any], str]:
    """(backend, model {id, revision, artifact}, backend kind) for `source`; `name` defaults from the model."""
    if bool(source.server.base_url) == bool(source.model):
        raise BadInput("give either --base-url (a server) or --model (a local transformers model)")
    if source.server.base_url:
        from evaluators.models.backends.server import ServerBackend

        backend = ServerBackend(source.server.discover(name), api_key=source.server.key(),
                                concurrency=source.server.concurrency)
        log.info("%s", backend.info.startup_line())
        identity = backend.identity
        revision = f"server-config-{backend.info.fingerprint}"
        kind = "server"
    else:
        from evaluators.models.backends.hf import HFBackend

        options = {k: v for k, v in (("device", source.device), ("dtype", source.dtype)) if v is not None}
        backend = HFBackend(source.model, **options)
        identity = backend.identity
        revision = identity.revision or (f"sha256-{identity.weights_sha256}" if identity.weights_sha256 else "local")
        kind = "hf"
    model = {"id": name or Path(identity.source.rstrip("/")).name or identity.source, "revision": revision,
             "artifact": identity.as_artifact()}
    return backend, model, kind


def paths(out: str | os.PathLike) -> tuple[Path, Path, Path]:
    """(responses file, its partial journal, its modebench run metadata file)."""
    out = Path(out)
    return out, out.with_name(out.name + ".partial"), out.with_suffix(".run.json")


def task_record(task: Any) -> dict[str, Any]:
    """The modebench input fields of a task: custom tasks carry their reference, frozen ones their hash."""
    record: dict[str, Any] = {"id": task.id, "level": task.level, "domain": task.domain, "problem": task.problem}
    if task.dataset_sha256:
        record["dataset_sha256"] = task.dataset_sha256
    else:
        record["answer"] = dict(task.answer)
    return record


def run_metadata(opts: GenerateOptions, model: dict[str, Any], backend_kind: str,
                 failed_draws: int | None = None) -> dict[str, Any]:
    """modebench's run metadata: model {id, revision}, generation settings, prompt condition."""
    generation: dict[str, Any] = {
        "backend": backend_kind,
        "temperature": opts.temperature,
        "top_p": opts.top_p,
        "max_tokens": opts.max_tokens,
        "seed": opts.seed,
        "seed_rule": SEED_RULE,
        "draws_per_prompt": opts.k,
        "groups": opts.groups,
        "failed_draw_policy": "stop-and-retry-on-resume" if opts.on_draw_error == "stop"
        else "failed-draw-kept-as-empty-response",
        "graded_text": "final answer content; reasoning fields and <think> blocks removed (kept in draws)",
        "artifact": model.get("artifact", {}),
    }
    if failed_draws is not None:
        generation["failed_draws"] = failed_draws
    return {"model": {"id": model["id"], "revision": model["revision"]}, "generation": generation,
            "prompt_condition": opts.prompt_condition}


def _header(opts: GenerateOptions, tasks: Sequence[Any], meta: dict[str, Any]) -> dict[str, Any]:
    return {"schema": SCHEMA, "run": meta,
            "tasks_sha256": sha256_bytes(canonical_json([task_record(t) for t in tasks]).encode())}


def _read_partial(partial: Path, header: dict[str, Any]) -> dict[tuple[str, int], dict[str, Any]]:
    """Finished (prompt, group) lines of an interrupted generation; cuts a torn last line."""
    done: dict[tuple[str, int], dict[str, Any]] = {}
    good_end = 0
    with open(partial, "rb") as fh:
        first = fh.readline()
        try:
            old = json.loads(first)
        except ValueError:
            old = None
        if not isinstance(old, dict) or old.get("schema") != SCHEMA:
            raise BadInput(f"{partial}: not a bananabench modes generation journal; delete it to start over")
        diffs = signature_diff(old, header)
        if diffs:
            raise BadInput(f"cannot resume {partial}: its configuration differs in " + "; ".join(diffs)
                           + " (delete it to start over)")
        good_end = fh.tell()
        for line in fh:
            try:
                record = json.loads(line)
            except ValueError:
                break  # a line torn by a kill: everything after it is discarded
            if not line.endswith(b"\n"):
                break
            done.setdefault((record["id"], record["group"]), record)
            good_end = fh.tell()
    if good_end < partial.stat().st_size:
        log.warning("%s: cutting a torn last line left by an interrupted run", partial)
        with open(partial, "r+b") as fh:
            fh.truncate(good_end)
    return done


def _draw(result: GenerationResult, number: int, seed: int) -> dict[str, Any]:
    raw = result.raw or {}
    content = raw.get("content") if isinstance(raw.get("content"), str) else result.text
    draw = {"draw": number, "seed": seed, "content": content, "reasoning": result.reasoning,
            "finish_reason": result.finish_reason, "error": result.error,
            "tokens_in": result.tokens_in, "tokens_out": result.tokens_out}
    for key in ("refusal", "replica"):  # replica: which server drew it, when several share the work
        if raw.get(key):
            draw[key] = raw[key]
    if result.timings.get("wall_s") is not None:
        draw["wall_s"] = result.timings["wall_s"]
    return {k: v for k, v in draw.items() if v is not None}


def generate(tasks: Sequence[Any], backend: Backend, model: dict[str, Any], backend_kind: str,
             opts: GenerateOptions) -> GenerationSummary:
    """Generate every missing group, journal each as it completes, publish the responses file at the end."""
    from modebench.api import make_prompt

    if opts.out is None:
        raise BadInput("--out is required")
    out, partial, run_path = paths(opts.out)
    if out.exists():
        raise BadInput(f"{out}: already exists; refusing to overwrite it (choose another --out)")
    if opts.on_draw_error not in FAILED_DRAW_POLICIES:
        raise BadInput(f"--on-draw-error must be one of {FAILED_DRAW_POLICIES}")
    meta = run_metadata(opts, model, backend_kind)
    header = _header(opts, tasks, meta)
    if partial.exists():
        if not opts.resume:
            raise BadInput(f"{partial}: an interrupted generation; pass --resume to continue it "
                           "(or delete it to start over)")
        done = _read_partial(partial, header)
    else:
        partial.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(partial, json.dumps(header, ensure_ascii=False) + "\n")
        done = {}
    resumed = len(done)
    todo = [(i, g) for i, t in enumerate(tasks) for g in range(1, opts.groups + 1) if (t.id, g) not in done]
    prompts = {i: tuple(make_prompt(tasks[i], opts.prompt_condition)) for i in {i for i, _g in todo}}
    requests, owners = [], []
    for i, g in todo:
        for d in range(opts.k):
            index = (g - 1) * opts.k + d
            requests.append(GenerationRequest(messages=prompts[i], max_tokens=opts.max_tokens,
                                              temperature=opts.temperature, top_p=opts.top_p,
                                              seed=opts.seed + index))
            owners.append((i, g, d))
    log.info("modes generate: %d prompts x %d groups x %d draws; %d groups already done, %d requests to send",
             len(tasks), opts.groups, opts.k, resumed, len(requests))
    pending: dict[tuple[int, int], dict[int, GenerationResult]] = {}
    failures: list[str] = []
    with open(partial, "ab") as journal, Progress(len(requests), "modes generate") as bar:
        for index, result in backend.generate(requests):
            i, g, d = owners[index]
            bar.update()
            slot = pending.setdefault((i, g), {})
            slot[d] = result
            if len(slot) < opts.k:
                continue
            del pending[(i, g)]
            draws = [slot[n] for n in range(opts.k)]
            errors = [r.error for r in draws if r.error]
            if errors and opts.on_draw_error == "stop":
                failures.append(f"{tasks[i].id} group {g}: {errors[0]}")
                continue
            record = {**task_record(tasks[i]), "group": g,
                      "responses": [final_answer(r.text) if not r.error else "" for r in draws],
                      "draws": [_draw(r, (g - 1) * opts.k + n + 1, opts.seed + (g - 1) * opts.k + n)
                                for n, r in enumerate(draws)]}
            journal.write(json.dumps(record, ensure_ascii=False).encode() + b"\n")
            journal.flush()
            os.fsync(journal.fileno())
            done[(tasks[i].id, g)] = record
    if failures:
        raise EvaluationFailure(
            f"{len(failures)} prompt group(s) had draws that failed to generate (first: {failures[0]}); "
            f"finished groups are kept in {partial}: rerun with --resume to retry the rest "
            "(or --on-draw-error empty to keep failed draws as empty responses)")
    missing = [(t.id, g) for t in tasks for g in range(1, opts.groups + 1) if (t.id, g) not in done]
    if missing:
        raise EvaluationFailure(f"the backend returned no result for {len(missing)} group(s) "
                                f"(first: {missing[0][0]} group {missing[0][1]}); rerun with --resume")
    failed_draws = sum(1 for r in done.values() for d in r["draws"] if d.get("error"))
    lines = [json.dumps(done[(t.id, g)], ensure_ascii=False) for t in tasks for g in range(1, opts.groups + 1)]
    meta = run_metadata(opts, model, backend_kind, failed_draws=failed_draws)
    meta["generation"]["finished_at"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    atomic.write_json(run_path, meta, overwrite=True)
    atomic.write_text(out, "\n".join(lines) + "\n")
    partial.unlink()
    return GenerationSummary(out=out, run_metadata=run_path, prompts=len(tasks), groups=opts.groups,
                             draws=len(tasks) * opts.groups * opts.k, failed_draws=failed_draws,
                             resumed_groups=resumed)
