"""Score a loglik benchmark: validated items in, resumable attempt rows out.

The benchmark is a spec (built in, or the user's file): where its data is, how a record maps to an
item, how choices are scored. One run per benchmark, or per split for a benchmark whose data is a
manifest of splits (benchmark = the spec's id, split = the split's name, so the leaderboard keeps one
current run per split). Data is validated and the model loaded before any run exists, so bad input
never leaves a half-made run behind.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from evaluators.core.atomic import require_writable
from evaluators.core.errors import BadInput
from evaluators.loglik import PRESENTATION, perplexity, report
from evaluators.loglik.backends import (
    default_model_name,
    model_info,
    open_backend,
    options_record,
    scorer_info,
)
from evaluators.loglik.metrics import score_rows, summarize
from evaluators.loglik.options import LoglikOptions, check_backend_options, check_data_parallel
from evaluators.loglik.prepare import RULES, Prepared, prepare, prepare_documents
from evaluators.loglik.score import finished_twin, report_item, score_run, score_windows
from evaluators.loglik.spec import Benchmark, Items, load_benchmark, official_reasons, read_items
from evaluators.models.backends.base import Backend
from evaluators.models.backends.data_parallel import DataParallelBackend, serve
from evaluators.runs import distributed
from evaluators.runs.runs import Run, RunSpec, start_run
from evaluators.specs.spec import is_spec_path
from evaluators.specs.spec_data import DataFile, locate
from evaluators.store.store import Store, writable_store


def parse_bench(text: str) -> tuple[str, list[str] | None]:
    """`ID_OR_FILE` or `ID_OR_FILE:SPLIT,...` → (benchmark, splits or None for all)."""
    name, splits = text, None
    if not is_spec_path(text) or ":" in Path(text).name:
        head, sep, rest = text.rpartition(":")
        if sep:
            name = head
            splits = list(dict.fromkeys(s.strip() for s in rest.split(",") if s.strip()))
            if not splits:
                raise BadInput(f"--bench {text!r}: empty split list")
    if not name:
        raise BadInput(f"--bench {text!r}: name a benchmark")
    return name, splits


def run_one(opts: LoglikOptions, store: Store, bench: Benchmark, data: DataFile, loaded: Items, backend: Backend,
            *, out_dir: str | None) -> dict[str, Any]:
    """One run: the benchmark over one data file (one split)."""
    spec, scoring = bench.spec, bench.scoring
    name = opts.name or default_model_name(opts.model or backend.identity.source)
    items = loaded.items[:opts.limit] if opts.limit else loaded.items
    if scoring.rolling:
        if opts.add_bos:
            raise BadInput("--add-bos: a rolling benchmark always conditions a document's first token on BOS")
        prepared = prepare_documents(backend, items)
    else:
        prepared = prepare(backend, items, scoring.tokenization, opts.add_bos, delimiter=scoring.target_delimiter,
                           prefix=loaded.prefix)
    reasons = official_reasons(bench, loaded.items, data)
    if opts.limit is not None and opts.limit < len(loaded.items):
        reasons.append(f"--limit {opts.limit}")
    if opts.add_bos:
        reasons.append("--add-bos (the benchmark's scoring adds no BOS)")
    reasons += backend.official_reasons
    rejected = [p for p in prepared if p.reject]
    if rejected and spec.official.all_scored:
        reasons.append(f"{len(rejected)} examples cannot be scored (first: {rejected[0].id}: {rejected[0].reject})")
    official = not reasons
    dataset = {"path": str(data.path.resolve()), "source": data.describe()}
    if data.manifest_sha256:
        dataset["manifest_sha256"] = data.manifest_sha256
    signature = bench.signature()
    if scoring.rolling:  # the window size changes the numbers
        signature["max_length"] = backend.max_length
    if loaded.fewshot_source:
        dataset["fewshot"] = loaded.fewshot_source
        signature["fewshot"] = {**signature["fewshot"], "sha256": loaded.fewshot_source["sha256"]}
    run_spec = RunSpec(
        evaluator="loglik", benchmark=spec.id, benchmark_version=spec.version, split=data.split, model_name=name,
        artifact=backend.identity.as_artifact(), backend=opts.backend, dataset_sha256=data.sha256, official=official,
        scoring={**signature, "add_bos": opts.add_bos, "limit": opts.limit},
        options=options_record(opts), n_items=len(items), extra={"official_reasons": reasons, "dataset": dataset},
    )
    if opts.resume and (twin := finished_twin(store, run_spec)):
        return {**twin, "split": twin["report"]["splits"][data.split]} if data.split else twin
    with start_run(store, run_spec, resume=opts.resume, out_dir=out_dir, policy=spec.policy,
                   benchmark_title=spec.title, headline_metric=spec.headline, description=spec.description,
                   presentation=PRESENTATION) as run:
        label = f"{name} {data.split or spec.id}"
        rep: dict[str, Any] = {
            "benchmark": spec.id, "benchmark_title": spec.title, "version": spec.version,
            **({"split": data.split} if data.split else {}),
            "official": official, "official_reasons": reasons, "run_id": run.run_id, "model_name": name,
            "model": model_info(backend, name),
            "config": {"add_bos": opts.add_bos, "scoring": signature,
                       "tokenization": RULES[scoring.tokenization], "backend": opts.backend, "device": opts.device,
                       "dtype": opts.dtype, "threads": opts.threads, "batch_size": opts.batch_size,
                       "max_batch_tokens": opts.max_batch_tokens, "limit": opts.limit,
                       "scorer": scorer_info(backend), "signature_sha256": run_spec.signature()},
            "dataset": {**dataset, "sha256": data.sha256,
                        **({"official_sha256": spec.data.sha256} if spec.data.sha256 else {}), "n_items": len(items)},
            "n_items": len(items), "rejected": [{"id": p.id, "reason": p.reject} for p in rejected],
        }
        finish = _finish_rolling if scoring.rolling else _finish_choices
        rep, rows, entry = finish(run, backend, bench, prepared, loaded, rep, label)
        rep["config"]["scorer"] = scorer = scorer_info(backend)  # as scoring left it (a replica lost mid-run)
        report.write_report(run.path(report.REPORT), rep)
        run.finish(rows, extra={"official_reasons": reasons, "scorer": scorer, "timing": rep["timing"],
                                "report": os.path.relpath(run.path(report.REPORT), store.root)})
        return {"run_id": run.run_id, "dir": str(run.dir), "report": rep, **({"split": entry} if data.split else {})}


def _finish_choices(run: Run, backend: Backend, bench: Benchmark, prepared: list[Prepared], loaded: Items,
                    rep: dict[str, Any], label: str) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """Score a multiple-choice run: the report (with predictions.md beside it), its score rows, its split entry."""
    spec, scoring, official = bench.spec, bench.scoring, rep["official"]
    outcomes, timing = score_run(run, backend, bench, prepared, official, label)
    agg = scoring.aggregates("category" in spec.record)
    summary = summarize([o.verdict(bench) for o in outcomes if o.scored], agg, len(rep["rejected"]))
    metrics = list(scoring.metrics)
    rep.update(timing=timing, n_scored=summary["n"],
               **report.numbers(summary, metrics, weighted=scoring.weighted, elo=scoring.elo is not None,
                                category_rows=loaded.category_rows if spec.categories else None),
               **({"elo": vars(scoring.elo)} if scoring.elo else {}))
    entry = report.split_entry(summary, metrics, run_id=run.run_id, official=official)
    if rep.get("split"):
        rep["splits"] = {rep["split"]: entry}
    rep["items"] = [report_item(bench, o, official) for o in outcomes]
    items = [p.item for p in prepared]
    texts = {i.id: {"context": loaded.prefix(i.id) + i.context,
                    "choices": [i.context_of(k) + scoring.target_delimiter + c if i.contexts
                                else scoring.target_delimiter + c for k, c in enumerate(i.choices)]} for i in items}
    report.write_markdown(run.path(report.PREDICTIONS), report.markdown(rep, metrics, texts))
    return rep, score_rows(summary, agg, rep.get("split")), entry


def _finish_rolling(run: Run, backend: Backend, bench: Benchmark, prepared: list[Prepared], loaded: Items,
                    rep: dict[str, Any], label: str) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """Score a rolling run: every document's windows, then lm-eval's perplexities over all documents."""
    windows, timing = score_windows(run, backend, prepared, label)
    scored = [(p, windows[p.id]) for p in prepared if p.reject is None]
    summary = perplexity.summarize(scored, len(rep["rejected"]), "category" in bench.spec.record)
    entry = {"n": summary["n"], **{m: summary.get(m) for m in bench.metrics}, "rejected": summary["rejected"],
             "run_id": run.run_id, "official": rep["official"]}
    rep.update(timing=timing, n_scored=summary["n"], **{m: summary.get(m) for m in bench.metrics},
               totals=summary.get("totals"),
               **({"categories": summary["categories"]} if "categories" in summary else {}))
    if rep.get("split"):
        rep["splits"] = {rep["split"]: entry}
    rep["items"] = [perplexity.report_item(p, windows.get(p.id)) for p in prepared]
    return rep, perplexity.score_rows(summary, rep.get("split")), entry


def run_loglik(opts: LoglikOptions) -> dict[str, Any]:
    """Validate the spec and data, load the model, run; returns {"benchmark", "runs": [...]} and, for a
    benchmark with splits, the combined "report" ({split: entry}).

    Under torchrun with several processes rank 0 does all of this while the others only load the model
    and score what it hands out (`models.backends.data_parallel`); they return {"runs": [], "rank": N}.
    """
    name, splits = parse_bench(opts.bench)
    check_backend_options(opts)  # before any data download or model load
    if distributed.launched_world() > 1:
        check_data_parallel(opts)
    with distributed.join(opts.device if opts.backend == "hf" else "cpu") as ranks:
        opts = _for_rank(opts, ranks)
        if not ranks.writer:
            with ranks.start(lambda: open_backend(opts), _identity) as backend:
                serve(backend, ranks)
            return {"benchmark": name, "runs": [], "rank": ranks.rank}

        def prepare() -> tuple[Store, Benchmark, list[tuple[DataFile, Items]], Backend]:
            store = writable_store(opts.results)
            if opts.out_dir is not None:
                require_writable(opts.out_dir, "--out-dir")
            bench = load_benchmark(name)
            files = locate(bench.spec, opts.data, opts.data_revision, splits)
            return store, bench, [(data, read_items(bench, data)) for data in files], open_backend(opts)

        store, bench, loaded, backend = ranks.start(prepare, lambda prepared: _identity(prepared[3]))
        results = []
        with _shared(backend, ranks) as scorer:
            for data, items in loaded:
                out_dir = str(Path(opts.out_dir) / data.split) if opts.out_dir and data.split else opts.out_dir
                results.append(run_one(opts, store, bench, data, items, scorer, out_dir=out_dir))
    out: dict[str, Any] = {"benchmark": bench.spec.id, "runs": results}
    if bench.spec.data.manifest:
        out["report"] = {"benchmark": bench.spec.id, "model_name": results[0]["report"]["model_name"],
                         "official": all(r["report"]["official"] for r in results),
                         "splits": {r["report"]["split"]: r["split"] for r in results}}
        if opts.out_dir:
            report.write_report(Path(opts.out_dir) / report.REPORT, out["report"])
    return out


# -- several processes (torchrun) ---------------------------------------------------------------------

def _for_rank(opts: LoglikOptions, ranks: distributed.Ranks) -> LoglikOptions:
    """Each rank on its own GPU, or on its share of the CPU cores."""
    if not ranks.parallel:
        return opts
    if ranks.device.startswith("cuda"):
        return replace(opts, device=ranks.device)
    return replace(opts, device="cpu" if opts.backend == "hf" else opts.device,
                   threads=opts.threads or distributed.cpu_threads_per_rank())


def _identity(backend: Backend) -> dict[str, Any]:
    """What every rank must have loaded alike."""
    return backend.identity.signature()


def _shared(backend: Backend, ranks: distributed.Ranks) -> Backend:
    """The writer's backend: as is in one process, else one whose scoring is shared among the ranks."""
    return DataParallelBackend(backend, ranks) if ranks.parallel else backend
