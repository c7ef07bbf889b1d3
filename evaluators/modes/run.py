"""Evaluate saved responses with modebench and ingest its receipts and journals into the store.

The order keeps modebench's contract and the store's: grade every unit first (in a staging folder,
resumable), and only then open a store run, move the graded units into the run's folder and record
one attempt row per response and one score row per cell and metric. A failed modebench evaluation
(any unscorable attempt) keeps its attempts, stores no aggregate numbers and says why (exit 3).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.core.atomic import require_writable
from evaluators.core.contract import AttemptKey, RunStatus
from evaluators.core.errors import BadInput
from evaluators.modes import (
    BENCHMARK,
    CUSTOM_BENCHMARK,
    HEADLINE_METRIC,
    PRESENTATION,
    AttemptExtra,
    datasets,
    grading,
    metrics,
)
from evaluators.modes.generate import (
    GenerateOptions,
    GenerationSummary,
    ModelSource,
    generate,
    open_backend,
    paths,
)
from evaluators.runs.progress import Progress
from evaluators.runs.runs import RunSpec, canonical_json, run_dir, sha256_bytes, sha256_file, slug, start_run
from evaluators.store.records import AttemptRow
from evaluators.store.store import Store, writable_store

log = logging.getLogger("bananabench")

STAGING = "modes-staging"
GENERATIONS = "modes-generations"
ARTIFACTS = "modebench"
# Unscorable statuses: modebench's evaluator failures (they void every aggregate of the evaluation).
UNSCORABLE = ("timeout", "invalid_reference", "worker_failure", "resource_limit")


@dataclass
class EvaluateOptions:
    """What `bananabench modes evaluate` (and `evaluators.api.evaluate_modes`) takes (see its --help)."""

    inputs: Sequence[str | os.PathLike]
    name: str | None = None
    results: str | os.PathLike | None = None
    configs: Sequence[str] = ()
    split: str = "eval"
    data_root: str | os.PathLike | None = None
    cache_dir: str | os.PathLike | None = None
    offline: bool = False
    allow_partial: bool = False
    run_metadata: str | os.PathLike | None = None
    min_defined_prompts: int = 30
    workers: int = 1
    resume: bool = False
    benchmark_name: str | None = None  # custom tasks: the name shown (default: the first input file's stem)


@dataclass
class EvaluationOutcome:
    run_id: str
    status: str  # modebench's: "completed" or "failed"
    cells: list[metrics.Cell]
    attempts: int
    run_dir: Path
    reason: str | None = None
    status_counts: dict[str, int] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return 0 if self.status == "completed" else 3


def read_run_metadata(opts: EvaluateOptions) -> tuple[dict[str, Any] | None, Path | None]:
    """`--run RUN.json`, else `<input stem>.run.json` beside a single input (what `generate` writes)."""
    path = Path(opts.run_metadata) if opts.run_metadata else None
    if path is None and len(opts.inputs) == 1:
        sibling = Path(opts.inputs[0]).with_suffix(".run.json")
        if sibling.is_file():
            path = sibling
            log.info("run metadata: %s", sibling)
    if path is None:
        return None, None
    try:
        value = datasets.parse_line(path.read_bytes())
    except OSError as exc:
        raise BadInput(f"{path}: cannot read run metadata: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: invalid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise BadInput(f"{path}: run metadata must be a JSON object (model, generation, prompt_condition)")
    return value, path


def _data_roots(opts: EvaluateOptions) -> dict[str, Path]:
    from modebench.api import InputError
    from modebench.dataset_cache import fetch

    roots = {}
    for config in opts.configs:
        if opts.data_root is not None:
            roots[config] = Path(opts.data_root)
            continue
        try:
            roots[config] = fetch(config, opts.split, cache_dir=opts.cache_dir, offline=opts.offline)
        except InputError as exc:
            raise BadInput(f"frozen configuration {config}/{opts.split}: {exc}") from None
    return roots


def _spec(opts: EvaluateOptions, responses: datasets.ResponseSet, run_meta: dict[str, Any] | None,
          inputs_sha256: list[str]) -> RunSpec:
    model = (run_meta or {}).get("model") if isinstance((run_meta or {}).get("model"), dict) else {}
    name = opts.name or model.get("id")
    if not name:
        raise BadInput("--name is required: no run metadata names the model")
    configs = list(opts.configs)
    if configs:
        records = [datasets.frozen_split_record(c, opts.split) for c in configs]
        dataset_sha = records[0]["parquet_sha256"] if len(records) == 1 else sha256_bytes(
            canonical_json([r["parquet_sha256"] for r in records]).encode())
        split = f"{'+'.join(configs)}/{opts.split}"
    else:
        # Custom tasks: the task set (ids and references) names the split, so runs of different models
        # on the same records line up on the leaderboard whatever their response files are called.
        tasks = sorted((p.id, p.level, p.domain, p.record.get("answer")) for p in responses.groups[1])
        # The split reads as the user named the task set (`--benchmark`, else the file's stem); the task
        # set's hash stays in the run's dataset_sha256 and so in its signature.
        dataset_sha = sha256_bytes(canonical_json(tasks).encode())
        split = custom_name(opts.benchmark_name or Path(opts.inputs[0]).stem)
    generation = (run_meta or {}).get("generation") if isinstance((run_meta or {}).get("generation"), dict) else {}
    from modebench import __version__ as modebench_version

    return RunSpec(
        evaluator="modes",
        benchmark=BENCHMARK if configs else CUSTOM_BENCHMARK,
        model_name=name,
        benchmark_version=f"modebench-{modebench_version}",
        split=split,
        artifact={**({"model": model} if model else {}), "identity": model or {"id": name}},
        backend=generation.get("backend"),
        dataset_sha256=dataset_sha,
        official=bool(configs) and not opts.allow_partial and opts.min_defined_prompts == 30,
        scoring={"min_defined_prompts": opts.min_defined_prompts, "groups": responses.n_groups,
                 "inputs_sha256": inputs_sha256, "run_metadata": run_meta,
                 "aggregation": "pooled", "weighting": metrics.WEIGHTING},
        options={"workers": opts.workers, "inputs": [str(p) for p in opts.inputs]},
        n_items=len(responses.prompt_ids),
    )


def custom_name(text: str) -> str:
    """A readable benchmark (split) name for custom tasks: letters, digits, `.`, `_` and `-` only."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", text):
        raise BadInput(f"--benchmark {text!r}: use 1-64 letters, digits, '.', '_' or '-' (starting with a letter "
                       "or digit)")
    return text


def _resumable_artifacts(store: Store, spec: RunSpec) -> Path | None:
    """The graded units of an unfinished run of the same evaluation (killed while it was being stored)."""
    run = store.latest_run(spec.model_name, spec.benchmark, spec.split, unfinished=True)
    if run is None or run.signature != spec.signature():
        return None
    folder = run_dir(store, run) / ARTIFACTS
    return folder if folder.is_dir() else None


def _cells(units: list[grading.Unit], responses: datasets.ResponseSet, threshold: int,
           failed: bool) -> list[metrics.Cell]:
    """Receipt cells for one group; groups combined (metrics.combine_groups) for several."""
    by_cell: dict[tuple, dict[str, list[dict[str, Any]]]] = {}
    shapes: dict[tuple, tuple[int, str, int, str | None, list[str]]] = {}
    notes: dict[tuple[str | None, int, str], list[str]] = {}
    for unit in units:
        for cell in unit.receipt["cells"]:
            notes[(unit.config, cell["level"], cell["domain"])] = list(cell.get("protocol_notes", []))
        for prompt, result in zip(unit.prompts, unit.results, strict=True):
            key = (unit.config, prompt.level, prompt.domain, prompt.k)
            shapes[key] = (prompt.level, prompt.domain, prompt.k, unit.config,
                           notes.get((unit.config, prompt.level, prompt.domain), []))
            by_cell.setdefault(key, {}).setdefault(prompt.id, []).append(result)
    if responses.n_groups == 1 and not failed:
        return [metrics.from_receipt(cell, unit.config) for unit in units for cell in unit.receipt["cells"]]
    cells = []
    for key in sorted(by_cell, key=lambda k: (k[1], k[2], k[0] or "", k[3])):
        level, domain, k, config, cell_notes = shapes[key]
        if failed:
            cells.append(metrics.failed_cell(level, domain, k, config, responses.n_groups, cell_notes))
            continue
        cells.append(metrics.combine_groups(list(by_cell[key].values()), level=level, domain=domain, k=k,
                                            config=config, min_defined_prompts=threshold,
                                            protocol_notes=cell_notes))
    return cells


def _attempt_row(unit: grading.Unit, prompt: datasets.PromptGroup, result: dict[str, Any], index: int,
                 cell_key: str) -> AttemptRow:
    grade = result["draws"][0]["attempts"][index]
    response = prompt.record["responses"][index]
    draw = (prompt.draws or [None] * prompt.k)[index] or {}
    extra: AttemptExtra = {
        AttemptKey.GROUP: unit.group, "draw": index + 1, "k": prompt.k, "level": prompt.level, "domain": prompt.domain,
        "config": unit.config, "cell": cell_key, "canonical_key": grade["canonical_key"],
        "detail": grade.get("detail"), "prompt_sha256": result.get("prompt_sha256"),
        "reference_sha256": result.get("reference_sha256"),
    }
    if response != grade["graded_text"]:
        extra["response"] = response
    for name in ("seed", "content", "reasoning", "finish_reason", "error", "refusal"):
        if draw.get(name) is not None:
            extra["raw" if name == "content" else name] = draw[name]
    if unit.group == 1 and index == 0 and isinstance(prompt.record.get("problem"), str):
        extra["problem"] = prompt.record["problem"]
    return AttemptRow(
        item_id=prompt.id,
        attempt=(unit.group - 1) * prompt.k + index + 1,
        status=grade["status"],
        correct=grade["verified"],
        score=1.0 if grade["verified"] else 0.0,
        prediction=grade["graded_text"],
        category=prompt.domain,
        difficulty=f"level{prompt.level}",
        tokens_in=draw.get("tokens_in"),
        tokens_out=draw.get("tokens_out"),
        wall_s=draw.get("wall_s"),
        extra=extra,
    )


def evaluate(opts: EvaluateOptions) -> EvaluationOutcome:
    """Grade `opts.inputs` with modebench, then store every attempt and (if it completed) every score."""
    store = writable_store(opts.results)
    if not opts.inputs:
        raise BadInput("no input files")
    responses = datasets.read_responses(list(opts.inputs), configs=list(opts.configs), split=opts.split)
    run_meta, run_path = read_run_metadata(opts)
    inputs_sha256 = [sha256_file(p) for p in opts.inputs]
    spec = _spec(opts, responses, run_meta, inputs_sha256)
    staging = _resumable_artifacts(store, spec) if opts.resume else None
    staging = staging or store.root / STAGING / sha256_bytes(canonical_json(spec.signature_fields()).encode())[:20]
    units = grading.plan_units(responses)
    options = {"min_defined_prompts": opts.min_defined_prompts, "run": run_meta, "split": opts.split,
               "allow_partial": opts.allow_partial}
    total = sum(len(u.prompts) for u in units)
    with Progress(total, "modes grading") as bar:
        grading.evaluate_units(units, staging, options=options, data_roots=_data_roots(opts),
                               workers=opts.workers, resume=opts.resume, progress=bar.update)
    status_counts: dict[str, int] = {}
    for unit in units:
        for status, count in unit.receipt["evaluation"]["status_counts"].items():
            status_counts[status] = status_counts.get(status, 0) + count
    failed = any(u.status != "completed" for u in units)
    reason = None
    if failed:
        unscorable = {s: n for s, n in sorted(status_counts.items()) if s in UNSCORABLE}
        reason = (f"modebench evaluation failed: {sum(unscorable.values())} unscorable attempt(s) "
                  f"({', '.join(f'{s}: {n}' for s, n in unscorable.items())}); its policy voids every "
                  "aggregate, so no scores are stored")
    cells = _cells(units, responses, opts.min_defined_prompts, failed)
    keys = {(u.config, p.level, p.domain, p.k): metrics.cell_key(u.config, p.level, p.domain, p.k)
            for u in units for p in u.prompts}

    with start_run(store, spec, resume=opts.resume, policy="public", benchmark_title="ModeBench",
                   headline_metric=HEADLINE_METRIC, presentation=PRESENTATION) as run:
        artifacts = grading.move_staging(staging, run.dir / ARTIFACTS)
        # Every row comes from modebench's durable journal (a crash here is redone by --resume), so the
        # rows reach the store in one transaction at the end rather than in timed batches.
        run.flush_every_s = float("inf")
        recorded = 0
        for unit in units:
            for prompt, result in zip(unit.prompts, unit.results, strict=True):
                key = keys[(unit.config, prompt.level, prompt.domain, prompt.k)]
                for index in range(prompt.k):
                    row = _attempt_row(unit, prompt, result, index, key)
                    recorded += 1
                    if not run.is_done(row.item_id, row.attempt):
                        run.record(row)
        run.flush()
        extra = _run_extra(store, units, artifacts, opts, run_meta, run_path, inputs_sha256, status_counts, reason)
        if failed:
            run.store.update_run(run.run_id, error=reason)
            run.finish([], extra=extra, status=RunStatus.FAILED)
        else:
            run.finish(metrics.score_rows(cells), extra=extra)
        outcome = EvaluationOutcome(run_id=run.run_id, status="failed" if failed else "completed", cells=cells,
                                    attempts=recorded, run_dir=run.dir, reason=reason, status_counts=status_counts)
    return outcome


def _run_extra(store: Store, units: list[grading.Unit], artifacts: Path, opts: EvaluateOptions,
               run_meta: dict[str, Any] | None, run_path: Path | None, inputs_sha256: list[str],
               status_counts: dict[str, int], reason: str | None) -> dict[str, Any]:
    """What a reader needs to trust the numbers: receipts, identities, policy, status counts."""
    def rel(path: Path) -> str:
        return os.path.relpath(path, store.root)

    first = units[0].receipt
    return {
        "modebench": {
            "version": first["software"]["modebench_version"],
            "verifier_contract": first["software"]["verifier_contract"],
            "package_source_sha256": first["software"]["package_source_sha256"],
            "scoring_policy": first["evaluation"]["scoring_policy"],
            "aggregation": first["evaluation"]["aggregation"],
        },
        "evaluation": {"status": "failed" if reason else "completed", "status_counts": status_counts,
                       "reason": reason, "groups": max(u.group for u in units),
                       "min_defined_prompts": opts.min_defined_prompts, "weighting": metrics.WEIGHTING},
        "units": [{
            "group": u.group, "config": u.config, "status": u.status,
            "receipt": rel(artifacts / u.name / grading.RECEIPT),
            "input_sha256": u.receipt["input_sha256"], "records_sha256": u.receipt["records_sha256"],
            "status_counts": u.receipt["evaluation"]["status_counts"], "dataset": u.receipt["dataset"],
        } for u in units],
        "inputs": [{"path": str(p), "sha256": s} for p, s in zip(opts.inputs, inputs_sha256, strict=True)],
        "run_metadata": run_meta,
        "run_metadata_path": str(run_path) if run_path else None,
        "generation_metadata_status": first.get("generation_metadata_status"),
    }


# -- generation, and generation + evaluation ------------------------------------------------------


def generate_responses(tasks: datasets.TaskSource, source: ModelSource, opts: GenerateOptions) -> GenerationSummary:
    """`bananabench modes generate`: load the tasks, open the model, write the responses file."""
    if opts.out is not None:
        require_writable(Path(opts.out).parent, "--out")
    task_list = tasks.load()
    backend, model, kind = open_backend(source, opts.name)
    with backend:
        return generate(task_list, backend, model, kind, opts)


def default_out(store: Store, name: str, tasks: datasets.TaskSource, source: ModelSource,
                opts: GenerateOptions) -> Path:
    """`RESULTS/modes-generations/<name>-<hash>.jsonl`: the same command finds the same file on --resume."""
    identity = {"tasks": tasks.describe(), "model": source.describe(), "name": name,
                "sampling": {k: getattr(opts, k) for k in ("k", "groups", "temperature", "top_p", "max_tokens",
                                                           "seed", "prompt_condition", "on_draw_error")}}
    digest = sha256_bytes(canonical_json(identity).encode())[:12]
    return store.root / GENERATIONS / f"{slug(name)}-{digest}.jsonl"


@dataclass
class RunOptions:
    """What `bananabench modes run` (and `evaluators.api.run_modes`) takes: generation, then evaluation."""

    tasks: datasets.TaskSource
    model: ModelSource
    generation: GenerateOptions
    results: str | os.PathLike | None = None
    min_defined_prompts: int = 30
    workers: int = 1
    allow_partial: bool = False
    benchmark_name: str | None = None  # custom tasks: the name shown (default: the tasks file's stem)


def generate_and_evaluate(opts: RunOptions) -> EvaluationOutcome:
    """`bananabench modes run`: generate (or, under --resume, continue or reuse) and then evaluate."""
    tasks, source, generation = opts.tasks, opts.model, opts.generation
    store = writable_store(opts.results)
    if generation.out is not None:
        require_writable(Path(generation.out).parent, "--out")
    task_list = tasks.load()
    backend = None
    try:
        name = generation.name
        if name is None:
            backend, model, kind = open_backend(source, None)
            name = model["id"]
        out = Path(generation.out) if generation.out else default_out(store, name, tasks, source, generation)
        if out.exists() and generation.resume:
            log.info("responses already generated: %s", out)
        elif out.exists() and not generation.out:
            raise BadInput(f"responses for exactly this configuration already exist: {out}; pass --resume to "
                           "evaluate them, or --out FILE to sample again")
        else:
            if backend is None:
                backend, model, kind = open_backend(source, name)
            generate(task_list, backend, model, kind, dataclasses.replace(generation, out=out, name=name))
    finally:
        if backend is not None:
            backend.close()
    configs = list(tasks.configs or [])
    return evaluate(EvaluateOptions(
        inputs=[out], name=name, results=opts.results, configs=configs, split=tasks.split, data_root=tasks.data_root,
        cache_dir=tasks.cache_dir, offline=tasks.offline,
        allow_partial=opts.allow_partial or bool(configs and tasks.limit), run_metadata=paths(out)[2],
        min_defined_prompts=opts.min_defined_prompts, workers=opts.workers, resume=generation.resume,
        benchmark_name=opts.benchmark_name or (Path(tasks.input).stem if tasks.input else None)))
