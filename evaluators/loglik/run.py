"""Score Base Bench 1.1 and base-evals splits: validated items in, resumable attempt rows out.

One run per benchmark (Base Bench) or per split (base-evals: benchmark `base-evals`, split = the
split name, so the leaderboard keeps one current run per split). Data is validated and the model
loaded before any run exists, so bad input never leaves a half-made run behind.

The model is reached only through the backend interface (`tokenize`, `bos_token_id`,
`max_length`, `loglikelihood(requests)`, `identity`); `BACKENDS` maps `--backend` names to
openers, so other backends plug in without touching the scoring code.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from evaluators.core import distributed
from evaluators.core.backends.base import Backend, LoglikRequest
from evaluators.core.backends.data_parallel import DataParallelBackend, serve
from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.core.progress import Progress
from evaluators.core.runs import Run, RunSpec, start_run
from evaluators.core.store import Store
from evaluators.loglik import datasets as ds
from evaluators.loglik import metrics, report

log = logging.getLogger("bananabench")

SCORING_RULE = "separate tokenization, add_special_tokens=False; mean log-prob over continuation tokens; ties → first"
EVALS_RULE = ("tokens of context + choice, continuation = tokens after the context's; acc = max sum, "
              "acc_norm = max mean log-prob; ties → first; ambiguous boundaries and overlength rejected")


@dataclass
class LoglikOptions:
    """Everything `bananabench loglik run` accepts (see its --help)."""

    bench: str
    model: str | None  # hf: hub id or folder; gguf: the file; server: the served model id (None: discover)
    name: str | None = None
    backend: str = "hf"
    device: str = "auto"
    device_map: str | None = None  # hf: "auto" spreads one model over every visible GPU (accelerate)
    dtype: str = "auto"
    threads: int | None = None
    batch_size: int | None = 8
    max_batch_tokens: int | None = None
    add_bos: bool = False
    data: str | None = None
    out_dir: str | None = None
    resume: bool = False
    limit: int | None = None
    results: str | None = None
    revision: str | None = None
    data_revision: str | None = None
    n_gpu_layers: int = 0
    n_ctx: int | None = None
    base_url: str | None = None
    concurrency: int | None = None
    api_key: str | None = field(default=None, repr=False)  # sent to the server, never stored


# -- backends ------------------------------------------------------------------------------------

def _open_hf(opts: LoglikOptions) -> Backend:
    from evaluators.core.backends.hf import HFBackend

    dtype = opts.dtype
    if dtype == "auto":
        import torch

        cuda = opts.device.startswith("cuda") or (opts.device == "auto" and torch.cuda.is_available())
        dtype = "bfloat16" if cuda else "float32"
    backend = HFBackend(opts.model, revision=opts.revision, device=opts.device, dtype=dtype, threads=opts.threads,
                        device_map=opts.device_map)
    backend.configure_loglik(max_contexts=opts.batch_size, token_budget=opts.max_batch_tokens)
    return backend


def _open_gguf(opts: LoglikOptions) -> Backend:
    from evaluators.core.backends.gguf import GGUFBackend

    return GGUFBackend(opts.model, threads=opts.threads, n_gpu_layers=opts.n_gpu_layers, n_ctx=opts.n_ctx)


def _open_server(opts: LoglikOptions) -> Backend:
    from evaluators.core.backends.server_loglik import ServerLoglikBackend

    backend = ServerLoglikBackend.connect(opts.base_url, model_id=opts.model, name=opts.name, ctx=opts.n_ctx,
                                          api_key=opts.api_key, concurrency=opts.concurrency)
    log.info("%s; log-likelihoods by %s", backend.info.startup_line(), backend.method.replace("_", " "))
    opts.model = backend.info.model_id  # the default model name when --model was not given
    return backend


BACKENDS: dict[str, Callable[[LoglikOptions], Backend]] = {"hf": _open_hf, "gguf": _open_gguf,
                                                           "server": _open_server}
# Flags that mean something to some backends only: given to another one, they are an error, not ignored.
BACKEND_FLAGS = {"device": ("hf",), "device_map": ("hf",), "dtype": ("hf",), "revision": ("hf",), "batch_size": ("hf",),
                 "max_batch_tokens": ("hf",), "n_gpu_layers": ("gguf",), "base_url": ("server",),
                 "concurrency": ("server",)}


def check_backend_options(opts: LoglikOptions) -> None:
    """BadInput for an unknown backend, a flag it would ignore, or a missing --model / --base-url."""
    if opts.backend not in BACKENDS:
        raise BadInput(f"--backend must be one of {', '.join(BACKENDS)}, not {opts.backend!r}")
    defaults = LoglikOptions(bench="", model=None)
    for name, backends in BACKEND_FLAGS.items():
        if opts.backend not in backends and getattr(opts, name) != getattr(defaults, name):
            raise BadInput(f"--{name.replace('_', '-')} applies to --backend {' or '.join(backends)}, "
                           f"not {opts.backend}")
    if opts.backend == "server" and not opts.base_url:
        raise BadInput("--backend server needs --base-url (the server, e.g. http://127.0.0.1:8080)")
    if opts.backend != "server" and not opts.model:
        raise BadInput(f"--backend {opts.backend} needs --model")
    if opts.device_map not in (None, "auto"):
        raise BadInput(f"--device-map takes auto, not {opts.device_map!r}")


def check_data_parallel(opts: LoglikOptions) -> None:
    """Under torchrun with several processes: what cannot be shared out is refused (BadInput) on every rank."""
    if opts.backend == "server":
        raise BadInput("--backend server does not run under torchrun: the server does the work; give it more "
                       "slots, or give --base-url several times (several servers)")
    if opts.device_map:
        raise BadInput("--device-map auto spreads one model over all GPUs in one process; torchrun runs one copy "
                       "per GPU. Use one or the other (README: Scaling out)")
    if opts.n_gpu_layers:
        raise BadInput("--n-gpu-layers under torchrun: the gguf backend's ranks run on CPU (each gets a share of "
                       "the cores); use --backend hf for one model copy per GPU")


def open_backend(opts: LoglikOptions) -> Backend:
    check_backend_options(opts)
    return BACKENDS[opts.backend](opts)


def default_model_name(model: str) -> str:
    """A leaderboard name from a local folder/file (its name) or a hub id (the id)."""
    path = Path(model)
    if path.exists():
        return path.resolve().name.removesuffix(".gguf")
    return model.strip("/")


# -- preparation ------------------------------------------------------------------------------------

@dataclass
class Prepared:
    """One item, tokenized: what the scorer needs, or why it cannot be scored."""

    id: str
    context: tuple[int, ...]
    continuations: list[tuple[int, ...]]
    label: int
    reject: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def _bos_prefix(backend: Backend, add_bos: bool) -> tuple[int, ...]:
    if not add_bos:
        return ()
    if backend.bos_token_id is None:
        raise BadInput("--add-bos: this model's tokenizer has no BOS token")
    return (backend.bos_token_id,)


def _overlength(backend: Backend, context: tuple[int, ...], conts: list[tuple[int, ...]]) -> str | None:
    limit = backend.max_length
    if limit is None or not conts:
        return None
    longest = len(context) + max(len(c) for c in conts)
    if longest > limit:
        return f"longer than the model's context ({longest} > {limit} tokens)"
    return None


def prepare_base_bench(backend: Backend, items: list[ds.BaseBenchItem], add_bos: bool) -> list[Prepared]:
    """The seed's tokenization: context and each continuation separately, no special tokens."""
    bos = _bos_prefix(backend, add_bos)
    out = []
    for item in items:
        context = bos + tuple(backend.tokenize(item.context))
        conts = [tuple(backend.tokenize(c)) for c in item.continuations]
        reject = None
        if len(context) == 0:
            reject = "the context tokenizes to nothing"
        elif any(not c for c in conts):
            reject = f"continuation {next(k for k, c in enumerate(conts) if not c)} tokenizes to nothing"
        else:
            reject = _overlength(backend, context, conts)
        out.append(Prepared(item.id, context, conts, item.label, reject, meta={
            "category": item.category, "difficulty": item.difficulty, "item_elo": item.item_elo,
            "point_weight": item.point_weight}))
    return out


def prepare_choices(backend: Backend, items: list[ds.ChoiceItem], add_bos: bool) -> list[Prepared]:
    """base-evals: continuation = tokens of context + choice after the context's own tokens.

    An item whose context tokens are not a prefix of some context + choice tokens has an
    ambiguous boundary and is rejected, as is one longer than the model's context.
    """
    bos = _bos_prefix(backend, add_bos)
    out = []
    for item in items:
        ctx = tuple(backend.tokenize(item.context))
        conts: list[tuple[int, ...]] = []
        reject = None
        for k, choice in enumerate(item.choices):
            full = tuple(backend.tokenize(item.context + choice))
            if full[:len(ctx)] != ctx:
                reject = f"ambiguous token boundary: the context's tokens are not a prefix of context + choice {k}"
                break
            if len(full) == len(ctx):
                reject = f"choice {k} adds no tokens"
                break
            conts.append(full[len(ctx):])
        context = bos + ctx
        if reject is None and not context:
            reject = "the context tokenizes to nothing"
        if reject is None:
            reject = _overlength(backend, context, conts)
        out.append(Prepared(item.id, context, conts if reject is None else [], item.label, reject,
                            meta={"chars": [len(c) for c in item.choices]}))
    return out


# -- scoring ----------------------------------------------------------------------------------------

def score_prepared(run: Run, backend: Backend, prepared: list[Prepared],
                   on_done: Callable[[Prepared, list[metrics.ChoiceScore] | None], None],
                   make_row: Callable[[Prepared, list[metrics.ChoiceScore] | None], dict[str, Any]],
                   desc: str) -> dict[str, int]:
    """Score every item the run has not done yet; record each one as soon as its last choice is in.

    Returns which rank scored each item when ranks shared the work (else nothing)."""
    todo = [p for p in prepared if not run.is_done(p.id)]
    with Progress(len(prepared), desc, initial=len(prepared) - len(todo)) as bar:
        for p in todo:
            if p.reject is not None:
                run.record(make_row(p, None))
                on_done(p, None)
                bar.update()
        scorable = [p for p in todo if p.reject is None]
        requests: list[LoglikRequest] = []
        owner: list[tuple[int, int]] = []
        for i, p in enumerate(scorable):
            for k, cont in enumerate(p.continuations):
                requests.append(LoglikRequest(p.context, cont))
                owner.append((i, k))
        filled: list[list[metrics.ChoiceScore | None]] = [[None] * len(p.continuations) for p in scorable]
        remaining = [len(p.continuations) for p in scorable]
        greedy: list[list[bool | None]] = [[None] * len(p.continuations) for p in scorable]
        ranks: dict[str, int] = {}
        results = backend.loglikelihood(requests)
        try:
            for index, result in results:
                i, k = owner[index]
                if filled[i][k] is not None:
                    continue
                filled[i][k] = metrics.ChoiceScore(float(result.logprob_sum), int(result.n_tokens))
                greedy[i][k] = result.is_greedy
                remaining[i] -= 1
                if remaining[i] == 0:
                    p = scorable[i]
                    choices = [c for c in filled[i] if c is not None]
                    row = make_row(p, choices)
                    scored_by = getattr(backend, "scored_by", None)
                    if scored_by:  # data-parallel: the rank that scored it
                        row["extra"] = {**row.get("extra", {}), "rank": scored_by[index]}
                        ranks[p.id] = scored_by[index]
                    run.record(row, choices=[{**c.as_dict(), "idx": k2, "extra": {
                        "is_greedy": greedy[i][k2]}} for k2, c in enumerate(choices)])
                    on_done(p, choices)
                    bar.update()
        finally:
            close = getattr(results, "close", None)
            if callable(close):
                close()  # a data-parallel backend stopped early tells the other ranks
        missing = [scorable[i].id for i, r in enumerate(remaining) if r]
        if missing:
            raise EvaluationFailure(f"the backend returned no result for {len(missing)} items (first: {missing[0]})")
    return ranks


def finished_twin(store: Store, spec: RunSpec) -> dict[str, Any] | None:
    """On `--resume`: the latest run of this model/benchmark/split when it already finished with this signature.

    Resuming a multi-split command after an interruption must not redo (or trip over) the splits
    that finished; their report is taken as is.
    """
    rows = store.query(
        "SELECT run_id, status, signature, extra FROM runs WHERE model_name = ? AND benchmark = ? "
        "AND coalesce(split, '') = coalesce(?, '') ORDER BY started_at DESC LIMIT 1",
        [spec.model_name, spec.benchmark, spec.split]).dicts() if store.path.exists() else []
    if not rows or rows[0]["status"] != "finished" or rows[0]["signature"] != spec.signature():
        return None
    extra = json.loads(rows[0]["extra"] or "{}")
    folder = Path(extra.get("out_dir") or store.root / "runs" / rows[0]["run_id"])
    if not (folder / report.REPORT).is_file():
        return None
    log.info("%s%s already finished in run %s; keeping it", spec.benchmark, f" {spec.split}" if spec.split else "",
             rows[0]["run_id"])
    return {"run_id": rows[0]["run_id"], "dir": str(folder),
            "report": json.loads((folder / report.REPORT).read_text(encoding="utf-8"))}


def _stored_choices(store: Store, run_id: str) -> dict[str, list[metrics.ChoiceScore]]:
    rows = store.query("SELECT item_id, idx, logprob_sum, n_tokens FROM choices WHERE run_id = ? "
                       "ORDER BY item_id, idx", [run_id]).rows
    out: dict[str, list[metrics.ChoiceScore]] = {}
    for item_id, _idx, lp, n in rows:
        out.setdefault(item_id, []).append(metrics.ChoiceScore(lp, n))
    return out


ItemFn = Callable[[Prepared, "list[metrics.ChoiceScore] | None"], dict[str, Any]]


def score_run(run: Run, backend: Backend, prepared: list[Prepared], item: ItemFn, row: ItemFn,
              desc: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Score what the run still lacks, keeping partial_results.jsonl in step.

    Returns the report items in data order and this session's timing. On resume the partial file is
    first rewritten from the store (the record of what is done).
    """
    stored = _stored_choices(run.store, run.run_id) if run.resumed else {}
    previous = [item(p, stored.get(p.id)) for p in prepared if run.is_done(p.id) and (p.reject or p.id in stored)]
    todo = sum(1 for p in prepared if not run.is_done(p.id) and not p.reject)
    started = time.monotonic()
    with report.PartialResults(run.path(report.PARTIAL), previous) as partial:
        ranks = score_prepared(run, backend, prepared, lambda p, choices: partial.append(item(p, choices)), row,
                               desc)
    elapsed = time.monotonic() - started
    run.flush()
    stored = _stored_choices(run.store, run.run_id)
    timing: dict[str, Any] = {"scored_this_session": todo, "score_s": round(elapsed, 3),
                              "items_per_s": round(todo / elapsed, 3) if todo and elapsed > 0 else None}
    if ranks:
        timing["shards"] = _shards(backend, ranks)
    return [item(p, None if p.reject else stored.get(p.id)) for p in prepared], timing


def _shards(backend: Backend, ranks: dict[str, int]) -> list[dict[str, Any]]:
    """This session's data-parallel shards: each rank (host, device) with the items it scored."""
    members = {m["rank"]: m for m in backend.describe_loglik()["data_parallel"]["ranks"]}
    by_rank: dict[int, list[str]] = {}
    for item_id, rank in ranks.items():
        by_rank.setdefault(rank, []).append(item_id)
    return [{**members[rank], "n_items": len(by_rank.get(rank, [])), "items": sorted(by_rank.get(rank, []))}
            for rank in sorted(members)]


# -- Base Bench ----------------------------------------------------------------------------------------

def _bb_row(p: Prepared, choices: list[metrics.ChoiceScore] | None) -> dict[str, Any]:
    meta = p.meta
    row: dict[str, Any] = {"item_id": p.id, "category": meta["category"], "difficulty": meta["difficulty"],
                           "weight": meta["point_weight"], "reference": str(p.label), "tokens_in": len(p.context),
                           "extra": {"item_elo": meta["item_elo"], "point_weight": meta["point_weight"]}}
    if choices is None:
        row.update(status="rejected", correct=None, score=None, prediction=None)
        row["extra"]["reason"] = p.reject
        return row
    pred = metrics.predict_mean(choices)
    row.update(status="ok", correct=pred == p.label, score=float(pred == p.label), prediction=str(pred))
    return row


def _bb_item(p: Prepared, choices: list[metrics.ChoiceScore] | None, official: bool) -> dict[str, Any]:
    """One `items[]` entry of report.json, also the line format of partial_results.jsonl."""
    base = {"id": p.id, "category": p.meta["category"], "difficulty": p.meta["difficulty"], "label": p.label}
    if choices is None:
        return {**base, "status": "rejected", "reason": p.reject, "prediction": None, "correct": None,
                "choices": [], "official": official}
    pred = metrics.predict_mean(choices)
    return {**base, "status": "ok", "prediction": pred, "correct": pred == p.label,
            "choices": [c.as_dict() for c in choices], "official": official}


def _model_info(backend: Backend, name: str) -> dict[str, Any]:
    identity = asdict(backend.identity)
    return {"name": name, "source": identity["source"], "revision": identity.get("revision"),
            "dtype": identity.get("dtype"), "weights_sha256": backend.identity.weights_sha256,
            "kind": identity["kind"]}


def _scorer_info(backend: Backend) -> dict[str, Any]:
    describe = getattr(backend, "describe_loglik", None)
    return describe() if callable(describe) else {}


def run_base_bench(opts: LoglikOptions, store: Store, data: ds.BaseBenchData, backend: Backend) -> dict[str, Any]:
    name = opts.name or default_model_name(opts.model)
    items = data.items[:opts.limit] if opts.limit else data.items
    prepared = prepare_base_bench(backend, items, opts.add_bos)
    reasons = data.official_reasons(opts.limit)
    if opts.add_bos:
        reasons.append("--add-bos (a diagnostic scoring configuration)")
    rejected = [p for p in prepared if p.reject]
    if rejected:
        reasons.append(f"{len(rejected)} examples cannot be scored (first: {rejected[0].id}: {rejected[0].reject})")
    official = not reasons
    spec = RunSpec(
        evaluator="loglik", benchmark=ds.BASE_BENCH, benchmark_version=ds.BASE_BENCH_VERSION, model_name=name,
        artifact=backend.identity.as_artifact(), backend=opts.backend, dataset_sha256=data.sha256,
        official=official,
        scoring={"score_mode": "mean_logprob", "add_bos": opts.add_bos, "tokenization": SCORING_RULE,
                 "limit": opts.limit},
        options={"device": opts.device, "dtype": opts.dtype, "threads": opts.threads, "batch_size": opts.batch_size,
                 "max_batch_tokens": opts.max_batch_tokens, "n_gpu_layers": opts.n_gpu_layers, "n_ctx": opts.n_ctx,
                 "base_url": opts.base_url, "concurrency": opts.concurrency},
        n_items=len(items),
        extra={"official_reasons": reasons, "dataset": {"path": str(data.path.resolve()), "source": data.source}},
    )
    if opts.resume and (twin := finished_twin(store, spec)):
        return twin
    with start_run(store, spec, resume=opts.resume, out_dir=opts.out_dir, policy="ids-only",
                   benchmark_title=ds.BASE_BENCH_TITLE, headline_metric="elo") as run:
        by_id = {p.id: p for p in prepared}
        report_items, timing = score_run(run, backend, prepared, lambda p, c: _bb_item(p, c, official), _bb_row,
                                         f"{name} base-bench")
        scored = [{**i, "item_elo": by_id[i["id"]].meta["item_elo"],
                   "point_weight": by_id[i["id"]].meta["point_weight"]} for i in report_items if i["status"] == "ok"]
        summary = metrics.base_bench_summary(scored)
        cats = summary.get("categories", {})
        rep = {
            "benchmark": ds.BASE_BENCH, "benchmark_title": ds.BASE_BENCH_TITLE, "version": ds.BASE_BENCH_VERSION,
            "official": official, "official_reasons": reasons, "run_id": run.run_id, "model_name": name,
            "model": _model_info(backend, name),
            "config": {"add_bos": opts.add_bos, "score_mode": "mean_logprob", "tokenization": SCORING_RULE,
                       "backend": opts.backend, "device": opts.device, "dtype": opts.dtype, "threads": opts.threads,
                       "batch_size": opts.batch_size, "max_batch_tokens": opts.max_batch_tokens, "limit": opts.limit,
                       "scorer": _scorer_info(backend), "signature_sha256": spec.signature()},
            "timing": timing,
            "dataset": {"path": str(data.path.resolve()), "source": data.source, "sha256": data.sha256,
                        "official_sha256": ds.OFFICIAL_SHA256, "n_items": len(items)},
            "overall_elo": summary["elo"]["value"] if scored else None,
            "overall_elo_ci": [summary["elo"]["ci_low"], summary["elo"]["ci_high"]] if scored else None,
            "elo_ci_method": summary["elo"]["method"] if scored else None,
            "category_elo": {c: v["elo"]["value"] for c, v in cats.items()},
            "category_elo_ci": {c: [v["elo"]["ci_low"], v["elo"]["ci_high"]] for c, v in cats.items()},
            "category_accuracy": {c: v["accuracy"]["value"] for c, v in cats.items()},
            "category_weighted_accuracy": {c: v["weighted_accuracy"] for c, v in cats.items()},
            "category_n": {c: v["n"] for c, v in cats.items()},
            "category_table_rows": data.category_rows,
            "accuracy": summary["accuracy"]["value"] if scored else None,
            "accuracy_ci": [summary["accuracy"]["ci_low"], summary["accuracy"]["ci_high"]] if scored else None,
            "weighted_accuracy": summary.get("weighted_accuracy"),
            "n_items": len(items), "n_scored": len(scored),
            "rejected": [{"id": p.id, "reason": p.reject} for p in rejected],
            "elo": {"prior_rating": metrics.PRIOR_RATING, "prior_weight": metrics.PRIOR_WEIGHT,
                    "scale": metrics.ELO_SCALE},
            "items": report_items,
        }
        report.write_report(run.path(report.REPORT), rep)
        texts = {i.id: {"continuations": list(i.continuations)} for i in items}
        report.write_markdown(run.path(report.PREDICTIONS), report.base_bench_markdown(rep, texts))
        run.finish(metrics.base_bench_scores(summary, len(rejected)),
                   extra={"official_reasons": reasons, "scorer": _scorer_info(backend), "timing": timing,
                          "report": os.path.relpath(run.path(report.REPORT), store.root)})
        return {"run_id": run.run_id, "dir": str(run.dir), "report": rep}


# -- base-evals ----------------------------------------------------------------------------------------

def _choice_row(p: Prepared, choices: list[metrics.ChoiceScore] | None) -> dict[str, Any]:
    row: dict[str, Any] = {"item_id": p.id, "reference": str(p.label), "tokens_in": len(p.context), "extra": {}}
    if choices is None:
        row.update(status="rejected", correct=None, score=None, prediction=None)
        row["extra"]["reason"] = p.reject
        return row
    norm, plain, chars = _picks(p, choices)
    row.update(status="ok", correct=norm == p.label, score=float(norm == p.label), prediction=str(norm))
    row["extra"].update(prediction_acc=plain, correct_acc=plain == p.label, prediction_acc_chars=chars,
                        correct_acc_chars=chars == p.label)
    return row


def _picks(p: Prepared, choices: list[metrics.ChoiceScore]) -> tuple[int, int, int]:
    """The acc_norm (per token), acc (sum) and acc_chars (lm-eval's acc_norm, per character) picks."""
    return (metrics.predict_mean(choices), metrics.predict_sum(choices),
            metrics.predict_chars([c.logprob_sum for c in choices], p.meta["chars"]))


def _choice_item(p: Prepared, choices: list[metrics.ChoiceScore] | None, official: bool) -> dict[str, Any]:
    base = {"id": p.id, "label": p.label}
    if choices is None:
        return {**base, "status": "rejected", "reason": p.reject, "prediction": None, "prediction_acc": None,
                "prediction_acc_chars": None, "correct": None, "correct_acc": None, "correct_acc_chars": None,
                "choices": [], "official": official}
    norm, plain, chars = _picks(p, choices)
    return {**base, "status": "ok", "prediction": norm, "prediction_acc": plain, "prediction_acc_chars": chars,
            "correct": norm == p.label, "correct_acc": plain == p.label, "correct_acc_chars": chars == p.label,
            "choices": [c.as_dict() for c in choices], "official": official}


def run_split(opts: LoglikOptions, store: Store, split: ds.SplitData, backend: Backend, *, source: str,
              out_dir: str | None) -> dict[str, Any]:
    name = opts.name or default_model_name(opts.model)
    items = split.items[:opts.limit] if opts.limit else split.items
    prepared = prepare_choices(backend, items, opts.add_bos)
    reasons = split.official_reasons(opts.limit)
    if opts.add_bos:
        reasons.append("--add-bos (the protocol adds no BOS)")
    official = not reasons
    rejected = [p for p in prepared if p.reject]
    spec = RunSpec(
        evaluator="loglik", benchmark=ds.BASE_EVALS, split=split.name, model_name=name,
        artifact=backend.identity.as_artifact(), backend=opts.backend, dataset_sha256=split.sha256,
        official=official,
        scoring={"acc": "max sum", "acc_norm": "max mean", "add_bos": opts.add_bos, "tokenization": EVALS_RULE,
                 "limit": opts.limit},
        options={"device": opts.device, "dtype": opts.dtype, "threads": opts.threads, "batch_size": opts.batch_size,
                 "max_batch_tokens": opts.max_batch_tokens, "n_gpu_layers": opts.n_gpu_layers, "n_ctx": opts.n_ctx,
                 "base_url": opts.base_url, "concurrency": opts.concurrency},
        n_items=len(items),
        extra={"official_reasons": reasons, "dataset": {"path": str(split.path.resolve()), "source": source,
                                                        "manifest_sha256": split.manifest_sha256}},
    )
    if opts.resume and (twin := finished_twin(store, spec)):
        return {**twin, "split": twin["report"]["splits"][split.name]}
    with start_run(store, spec, resume=opts.resume, out_dir=out_dir, policy="public",
                   benchmark_title=ds.BASE_EVALS_TITLE, headline_metric="acc_norm") as run:
        report_items, timing = score_run(run, backend, prepared, lambda p, c: _choice_item(p, c, official),
                                         _choice_row, f"{name} {split.name}")
        scored = [i for i in report_items if i["status"] == "ok"]
        summary = metrics.choice_summary([{"correct_acc": i["correct_acc"], "correct_acc_norm": i["correct"],
                                           "correct_acc_chars": i["correct_acc_chars"]} for i in scored],
                                         len(rejected))
        split_entry: dict[str, Any] = {"n": summary["n"]}
        for metric in metrics.CHOICE_METRICS:
            acc = summary.get(metric) or {"value": None, "ci_low": None, "ci_high": None}
            split_entry[metric] = acc["value"]
            split_entry[f"{metric}_ci"] = [acc["ci_low"], acc["ci_high"]]
        split_entry.update(rejected=len(rejected), run_id=run.run_id, official=official)
        rep = {
            "benchmark": ds.BASE_EVALS, "split": split.name, "official": official, "official_reasons": reasons,
            "run_id": run.run_id, "model_name": name, "model": _model_info(backend, name),
            "config": {"add_bos": opts.add_bos, "tokenization": EVALS_RULE, "backend": opts.backend,
                       "device": opts.device, "dtype": opts.dtype, "threads": opts.threads,
                       "batch_size": opts.batch_size, "max_batch_tokens": opts.max_batch_tokens, "limit": opts.limit,
                       "scorer": _scorer_info(backend), "signature_sha256": spec.signature()},
            "timing": timing,
            "dataset": {"path": str(split.path.resolve()), "source": source, "sha256": split.sha256,
                        "manifest_sha256": split.manifest_sha256, "n_items": len(items)},
            "splits": {split.name: split_entry},
            "rejected": [{"id": p.id, "reason": p.reject} for p in rejected],
            "items": report_items,
        }
        report.write_report(run.path(report.REPORT), rep)
        texts = {i.id: {"context": i.context, "choices": list(i.choices)} for i in items}
        report.write_markdown(run.path(report.PREDICTIONS), report.base_evals_markdown(rep, texts))
        run.finish(metrics.choice_scores(split.name, summary),
                   extra={"official_reasons": reasons, "scorer": _scorer_info(backend), "timing": timing,
                          "report": os.path.relpath(run.path(report.REPORT), store.root)})
        return {"run_id": run.run_id, "dir": str(run.dir), "report": rep, "split": split_entry}


# -- entry point ---------------------------------------------------------------------------------------

def _base_bench_data(opts: LoglikOptions) -> ds.BaseBenchData:
    """`--data`/`--local-data` when it is a local path, else the (gated) hub dataset."""
    from evaluators.core import data as hub

    if opts.data and not hub.is_repo_id(opts.data):
        return ds.load_base_bench(Path(opts.data).expanduser())
    repo = opts.data or ds.BASE_BENCH_REPO
    path, commit = hub.download_file(repo, ds.BASE_BENCH_FILE, repo_type="dataset", revision=opts.data_revision)
    data = ds.load_base_bench(path)
    data.source = f"{repo}@{commit}"
    return data


def _base_evals_folder(opts: LoglikOptions) -> tuple[Path, str]:
    """A local folder, or a hub dataset snapshot (manifest.json and data/*.parquet only)."""
    from evaluators.core import data as hub

    if not opts.data:
        raise BadInput("base-evals needs --data: a local folder with manifest.json and the split parquet files, "
                       "or a hub dataset repo id holding them (the seed names no repo id)")
    if not hub.is_repo_id(opts.data):
        folder = Path(opts.data).expanduser()
        return folder, str(folder)
    folder, commit = hub.snapshot(opts.data, repo_type="dataset", revision=opts.data_revision,
                                  allow_patterns=[ds.MANIFEST, "data/*.parquet"])
    return folder, f"{opts.data}@{commit}"


def run_loglik(opts: LoglikOptions) -> dict[str, Any]:
    """Validate data, load the model, run; returns {"runs": [...], "report": combined summary}.

    Under torchrun with several processes rank 0 does all of this while the others only load the model
    and score what it hands out (`core.backends.data_parallel`); they return {"runs": [], "rank": N}.
    """
    bench, splits = ds.parse_bench(opts.bench)
    check_backend_options(opts)  # before any data download or model load
    if opts.batch_size is not None and opts.batch_size < 1:
        raise BadInput("--batch-size must be a positive integer")
    if distributed.launched_world() > 1:
        check_data_parallel(opts)
    with distributed.join(opts.device if opts.backend == "hf" else "cpu") as ranks:
        opts = _for_rank(opts, ranks)
        if not ranks.writer:
            with ranks.start(lambda: open_backend(opts), _identity) as backend:
                serve(backend, ranks)
            return {"benchmark": bench, "runs": [], "rank": ranks.rank}
        store = Store(opts.results)
        if bench == ds.BASE_BENCH:
            data, backend = ranks.start(lambda: (_base_bench_data(opts), open_backend(opts)),
                                        lambda prepared: _identity(prepared[1]))
            with _shared(backend, ranks) as scorer:
                result = run_base_bench(opts, store, data, scorer)
            return {"benchmark": bench, "runs": [result]}

        def prepare() -> tuple[str, list[ds.SplitData], Backend]:
            folder, source = _base_evals_folder(opts)
            return source, ds.load_base_evals(folder, splits), open_backend(opts)

        source, split_data, backend = ranks.start(prepare, lambda prepared: _identity(prepared[2]))
        results = []
        with _shared(backend, ranks) as scorer:
            for split in split_data:
                out_dir = str(Path(opts.out_dir) / split.name) if opts.out_dir else None
                results.append(run_split(opts, store, split, scorer, source=source, out_dir=out_dir))
    combined = {"benchmark": ds.BASE_EVALS, "model_name": opts.name or default_model_name(opts.model),
                "official": all(r["report"]["official"] for r in results),
                "splits": {r["report"]["split"]: r["split"] for r in results}}
    if opts.out_dir:
        report.write_report(Path(opts.out_dir) / report.REPORT, combined)
    return {"benchmark": bench, "runs": results, "report": combined}


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
