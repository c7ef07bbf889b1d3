"""`bananabench lm-eval`: lm-eval's task pipeline on our engine, its output folder, and the store, in one run.

Order, so that bad input leaves nothing behind: the options and the task names are checked and the model
is loaded before anything is written; lm-eval then runs its tasks (few-shot, filters, groups, metrics)
on `BackendLM`, every answer journalled in the output folder (`--resume` continues a killed run from
it); lm-eval writes its own results and samples files; the store import reads them back (see
`store_import`). The journal is removed once the store holds the runs.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from pathlib import Path
from typing import Any

from evaluators.core import lmeval
from evaluators.core.errors import EvaluationFailure
from evaluators.lmeval.journal import Journal
from evaluators.lmeval.options import LmEvalOptions, generator, open_scorer
from evaluators.lmeval.store_import import RunContext, import_run
from evaluators.lmeval.tasks import task_files_sha256, task_manager, task_specs
from evaluators.runs.runs import slug
from evaluators.store.store import Store, writable_store

log = logging.getLogger("bananabench")


def default_name(opts: LmEvalOptions, source: str) -> str:
    path = Path(opts.model or source)
    return path.name.removesuffix(".gguf") if path.exists() else str(opts.model or source).strip("/")


def official_reasons(opts: LmEvalOptions, add_bos: bool, default_bos: bool, backend_reasons: list[str]) -> list[str]:
    """Why the runs are not the tasks as lm-eval defines them, on an exact engine."""
    reasons = list(backend_reasons)
    if opts.limit is not None:
        reasons.append(f"--limit {opts.limit:g}")
    if opts.num_fewshot is not None:
        reasons.append(f"--num_fewshot {opts.num_fewshot} (the task's own few-shot setting overridden)")
    if add_bos != default_bos:
        reasons.append(f"--{'add' if add_bos else 'no-add'}-bos (lm-eval's HFLM would "
                       f"{'add' if default_bos else 'not add'} BOS for this model)")
    return reasons


def run_lm_eval(opts: LmEvalOptions) -> dict[str, Any]:
    """Run the tasks and store them; returns {"output_path", "results" and "samples" (lm-eval's), "runs":
    [ImportResult...], "official_reasons", "add_bos"}."""
    opts.check()
    names = opts.task_names()
    manager = task_manager(names, opts.include_path)
    specs = task_specs(manager, names, opts.include_path)
    store = writable_store(opts.results)
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker

    scorer = open_scorer(opts)
    try:
        return _run(opts, store, names, manager, specs, scorer, simple_evaluate, EvaluationTracker)
    finally:
        scorer.close()


def _run(opts, store: Store, names, manager, specs, scorer, simple_evaluate, tracker_class) -> dict[str, Any]:
    from evaluators.lmeval.model import BackendLM

    name = opts.name or default_name(opts, scorer.identity.source)
    output = Path(opts.output_path) if opts.output_path else store.root / "lm-eval" / slug(name)
    default_bos = scorer.adds_bos
    add_bos = default_bos if opts.add_bos is None else opts.add_bos
    scoring = {"source": "lm-eval", "add_bos": add_bos, "limit": opts.limit, "num_fewshot": opts.num_fewshot,
               "fewshot_seed": opts.fewshot_seed, "max_length": scorer.max_length}
    journal = Journal(output, {"model": scorer.identity.signature(), "tasks": names, **scoring,
                               "task_files_sha256": task_files_sha256(opts.include_path)}, resume=opts.resume)
    lm = BackendLM(scorer, journal, add_bos=add_bos, label=name, generator=generator(opts, scorer))
    tracker = tracker_class(output_path=str(output))
    started = time.monotonic()
    try:
        with contextlib.redirect_stdout(sys.stderr):  # lm-eval prints progress; stdout is our summary
            results = simple_evaluate(
                model=lm, model_args={"model": name, "backend": opts.backend}, tasks=specs,
                num_fewshot=opts.num_fewshot, limit=opts.limit, task_manager=manager, log_samples=True,
                evaluation_tracker=tracker, fewshot_random_seed=opts.fewshot_seed, bootstrap_iters=100000)
    finally:
        lm.close()
        journal.close()
    if results is None:
        raise EvaluationFailure("lm-eval returned no results")
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=samples[task])
    folder = lmeval.read_folder(output, stamp=tracker.date_id)
    ctx = RunContext(name=name, backend_name=opts.backend, backend=scorer,
                     options={"output_path": str(output), "include_path": opts.include_path, "device": opts.device,
                              "threads": opts.threads, "wall_s": round(time.monotonic() - started, 3)},
                     scoring=scoring, reasons=official_reasons(opts, add_bos, default_bos, scorer.official_reasons),
                     token_counts=lm.token_counts)
    imported = import_run(store, folder, ctx)
    journal.remove()
    return {"output_path": str(output), "results": results, "samples": samples, "runs": imported,
            "official_reasons": ctx.reasons, "add_bos": add_bos}
