"""A finished `bananabench lm-eval` run into the store: one run per task, read back from lm-eval's own output.

The rows come from the sample files lm-eval wrote (so the store says what the folder says) plus what
only our engine knows: how many tokens each scored continuation had. Per task: one attempt per document
with lm-eval's per-document metrics; multiple-choice tasks one `choices` row per option (log-likelihood,
tokens, mean per token, lm-eval's is-greedy), log-likelihood and rolling tasks one row for the scored text;
the scores are lm-eval's aggregated metrics (`acc`, `acc_norm`, `perplexity`, `word_perplexity`, ... ; a
filter other than `none` is kept as `metric,filter`) with lm-eval's standard error as a 95% interval.
Log-likelihood tasks are stored as loglik runs, generative ones as chat runs, so the site shows them
beside those evaluators' runs. The task's name is the benchmark, its version and configuration are in the
signature; running the same configuration again stores nothing new.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from evaluators.core import lmeval
from evaluators.core.errors import BadInput, located
from evaluators.core.presentation import Presentation, Rank
from evaluators.lmeval import AttemptExtra
from evaluators.models.backends.base import Backend
from evaluators.runs.runs import RunSpec, canonical_json, finished_run, sha256_bytes, start_run
from evaluators.store.records import AttemptRow, ChoiceRow, ScoreRow
from evaluators.store.store import Store

EVALUATOR = {lmeval.MULTIPLE_CHOICE: "loglik", "loglikelihood": "loglik", "loglikelihood_rolling": "loglik",
             lmeval.GENERATIVE: "chat"}
# Imported runs stand on the leaderboard beside the runs of the evaluator they are filed under.
PRESENTATION = {"loglik": Presentation(rank=Rank.LIKELIHOOD), "chat": Presentation(rank=Rank.GENERATION)}
HEADLINE = {"loglikelihood_rolling": "word_perplexity", "loglikelihood": "acc", lmeval.GENERATIVE: "exact_match"}
Z95 = 1.959963984540054
NOT_METRICS = {"sample_len"}  # lm-eval's document count, stored as each score's n
BOUNDED = ("acc", "exact_match", "f1", "mcc")  # proportions: their interval stays within [0, 1]


@dataclass
class RunContext:
    """What every task's run shares: the model, how it was run, and why it is not official."""

    name: str
    backend_name: str
    backend: Backend
    options: dict[str, Any]
    scoring: dict[str, Any]
    reasons: list[str]
    token_counts: dict[tuple[str, ...], int]


def import_run(store: Store, folder: lmeval.Folder, ctx: RunContext) -> list[lmeval.ImportResult]:
    """Every task of the folder (rows parsed first, so a bad file stores nothing)."""
    parsed = [(task, _rows(task, ctx.token_counts)) for task in folder.tasks.values()]
    return [_store(store, folder, task, rows, ctx) for task, rows in parsed]


def _rows(task: lmeval.Task, counts: dict[tuple[str, ...], int]) -> list[dict[str, Any]]:
    path = task.sample_files[-1]
    build = {lmeval.MULTIPLE_CHOICE: _multiple_choice, "loglikelihood": _loglikelihood,
             "loglikelihood_rolling": _rolling, lmeval.GENERATIVE: _generated}.get(task.output_type or "")
    if build is None:
        raise BadInput(f"{path}: lm-eval output type {task.output_type!r} is not one bananabench stores")
    rows, seen = [], set()
    for line, sample in lmeval.read_samples(path):
        item = lmeval.item_id(sample)
        if item in seen:
            continue  # lm-eval repeats a document only with `repeats`
        seen.add(item)
        row = build(task, sample, counts, path, line)
        metrics = _doc_metrics(task, sample)
        row.update(item_id=item, attempt=1, status="ok")
        extra: AttemptExtra = {"lm_eval": {"task": task.name, "doc_id": sample["doc_id"], "line": line,
                                           "metrics": metrics}}
        row["extra"] = {**row.get("extra", {}), **extra}
        row["metrics"] = {k: v for k, v in metrics.items() if isinstance(v, float) and k.startswith(BOUNDED)}
        rows.append(row)
    if not rows:
        raise BadInput(f"{path}: no documents")
    return rows


def _doc_metrics(task: lmeval.Task, sample: dict[str, Any]) -> dict[str, Any]:
    """lm-eval's per-document values of the task's metrics (numbers; perplexity pairs kept as they are)."""
    names = [m.get("metric") for m in task.config.get("metric_list") or [] if isinstance(m, dict)]
    out = {}
    for name in names:
        value = sample.get(name)
        if isinstance(value, bool) or isinstance(value, int | float):
            out[name] = float(value)
        elif isinstance(value, list):
            out[name] = value
    return out


def _tokens(counts: dict[tuple[str, ...], int], key: tuple[str, ...], path: Any, line: int) -> int:
    if key not in counts:
        raise BadInput(located(path, line, "arguments", "a request this run did not score (was the folder "
                                                       "written by another run?)"))
    return counts[key]


def _args(sample: dict[str, Any]) -> list[tuple[str, ...]]:
    args = sample.get("arguments") or {}
    ordered = sorted(args, key=lambda k: int(str(k).rsplit("_", 1)[-1]))
    return [tuple(str(v) for v in (args[k].get(f"arg_{i}") for i in range(2)) if v is not None) for k in ordered]


def _multiple_choice(task: lmeval.Task, sample: dict[str, Any], counts, path, line) -> dict[str, Any]:
    continuations, lls, greedy = lmeval.choices(sample, path, line)
    pairs = _args(sample)
    pick = max(range(len(lls)), key=lambda k: (lls[k], -k))
    correct = lmeval.verdict(sample, "acc", False) if "acc" in sample else None
    if len(set(continuations)) == 1:  # one continuation after several contexts (winogrande): the contexts differ
        label = pick if correct else (1 - pick if len(lls) == 2 else None)
    else:
        delimiter = task.config.get("target_delimiter", " ")
        texts = [c[len(delimiter):] if delimiter and c.startswith(delimiter) else c for c in continuations]
        label = lmeval.label(sample, texts, continuations, path, line)
    n_tokens = [_tokens(counts, pair, path, line) for pair in pairs]
    return {
        "correct": correct, "score": None if correct is None else float(correct), "prediction": str(pick),
        "reference": None if label is None else str(label),
        "choices": [ChoiceRow(idx=k, logprob_sum=ll, n_tokens=n, mean_logprob=ll / n if n else None,
                              extra={"is_greedy": g, "chars": len(c),
                                     "context": pairs[k][0] if len(set(continuations)) == 1 else None})
                    for k, (ll, g, n, c) in enumerate(zip(lls, greedy, n_tokens, continuations, strict=True))],
    }


def _single(sample: dict[str, Any], path, line) -> tuple[float, bool | None]:
    resps = sample.get("filtered_resps") or []
    first = resps[0] if resps else None
    value = first[0] if isinstance(first, list) and first else first
    try:
        ll = float(value)
    except (TypeError, ValueError):
        ll = math.nan
    if not math.isfinite(ll) or ll > 0:
        raise BadInput(located(path, line, "filtered_resps", f"expected a finite log-likelihood <= 0, got {first!r}"))
    greedy = str(first[1]).lower() == "true" if isinstance(first, list) and len(first) > 1 else None
    return ll, greedy


def _loglikelihood(task: lmeval.Task, sample: dict[str, Any], counts, path, line) -> dict[str, Any]:
    ll, greedy = _single(sample, path, line)
    [pair] = _args(sample)
    n = _tokens(counts, pair, path, line)
    correct = lmeval.verdict(sample, "acc", bool(greedy))
    return {"correct": correct, "score": float(correct), "prediction": None, "reference": pair[1],
            "choices": [ChoiceRow(idx=0, logprob_sum=ll, n_tokens=n, mean_logprob=ll / n,
                                  extra={"is_greedy": greedy})]}


def _rolling(task: lmeval.Task, sample: dict[str, Any], counts, path, line) -> dict[str, Any]:
    ll, _ = _single(sample, path, line)
    [pair] = _args(sample)
    n = _tokens(counts, pair[:1], path, line)
    return {"correct": None, "score": ll, "prediction": None, "reference": None,
            "choices": [ChoiceRow(idx=0, logprob_sum=ll, n_tokens=n, mean_logprob=ll / n, extra={})]}


def _generated(task: lmeval.Task, sample: dict[str, Any], counts, path, line) -> dict[str, Any]:
    resps = sample.get("filtered_resps") or []
    answer = resps[0] if resps and isinstance(resps[0], str) else None
    metric = next((m.get("metric") for m in task.config.get("metric_list") or [] if isinstance(m, dict)), None)
    value = sample.get(metric) if metric else None
    correct = bool(value) if isinstance(value, int | float) else None
    return {"correct": correct, "score": float(value) if isinstance(value, int | float) else None,
            "prediction": answer, "reference": None if sample.get("target") is None else str(sample["target"]),
            "choices": []}


def score_rows(results: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """lm-eval's aggregated metrics as `scores` rows (overall scope)."""
    rows = []
    for key, value in results.items():
        metric, _, flt = key.partition(",")
        if metric.endswith("_stderr") or metric in NOT_METRICS or isinstance(value, bool) or \
                not isinstance(value, int | float):
            continue
        if not math.isfinite(value):
            continue
        name = metric if flt in ("", "none") else key
        stderr = results.get(f"{metric}_stderr,{flt}" if flt else f"{metric}_stderr")
        se = float(stderr) if isinstance(stderr, int | float) and math.isfinite(stderr) else None
        low, high = (value - Z95 * se, value + Z95 * se) if se is not None else (None, None)
        if se is not None and metric.startswith(BOUNDED):
            low, high = max(0.0, low), min(1.0, high)
        rows.append(ScoreRow(scope="overall", key="", metric=name, value=float(value), n=n, ci_low=low,
                             ci_high=high, extra={"source": "lm-eval", "stderr": se}))
    return rows


def _store(store: Store, folder: lmeval.Folder, task: lmeval.Task, rows: list[dict[str, Any]],
           ctx: RunContext) -> lmeval.ImportResult:
    config = task.config
    version = (config.get("metadata") or {}).get("version") if isinstance(config.get("metadata"), dict) else None
    docs = sha256_bytes(canonical_json([[r["item_id"], r["reference"]] for r in rows]).encode())
    stable = {k: v for k, v in config.items() if k not in ("metadata",)}
    metrics = [m.get("metric") for m in config.get("metric_list") or [] if isinstance(m, dict)]
    spec = RunSpec(
        evaluator=EVALUATOR[task.output_type or ""], benchmark=task.name, model_name=ctx.name,
        benchmark_version=f"lm-eval {version}" if version is not None else "lm-eval",
        artifact=ctx.backend.identity.as_artifact(), backend=ctx.backend_name, dataset_sha256=docs,
        official=not ctx.reasons,
        scoring={**ctx.scoring, "task": task.name, "task_version": version, "output_type": task.output_type,
                 "num_fewshot": config.get("num_fewshot"),
                 "task_config_sha256": sha256_bytes(canonical_json(stable).encode())},
        options=ctx.options, n_items=len(rows),
        extra={"source": "bananabench lm-eval", "official_reasons": ctx.reasons, "lm_eval": folder.info,
               "lm_eval_results": task.results, "files": [str(task.sample_files[-1].relative_to(folder.root))]},
    )
    scores = score_rows(task.results, len(rows))
    brief = {s.metric: s.value for s in scores}
    existing = finished_run(store, spec)
    if existing is not None:
        return lmeval.ImportResult(task.name, existing.run_id, "unchanged", brief)
    headline = next((m for m in metrics if m in brief), HEADLINE.get(task.output_type or "", "acc"))
    with start_run(store, spec, policy="public", benchmark_title=f"{task.name} (lm-eval)",
                   headline_metric=headline, presentation=PRESENTATION[spec.evaluator]) as run:
        for row in rows:
            run.record(AttemptRow(**{k: v for k, v in row.items() if k not in ("choices", "metrics")}),
                       choices=row["choices"],
                       metrics=row["metrics"])
        run.flush()
        run.finish(scores, extra={**spec.extra, "summary": brief})
    return lmeval.ImportResult(task.name, run.run_id, "imported", brief)
