"""Bring lm-eval's multiple-choice runs (per-choice log-likelihoods) into the store, as lm-eval computed them.

Each `multiple_choice` task of an lm-eval output folder becomes one loglik run (benchmark = the task
name, backend `lm-eval`, never official): one attempt per document with lm-eval's `acc` verdict as
`correct` and the pick of the largest log-likelihood as `prediction`, lm-eval's `acc_norm` (which
divides by the continuation's length in characters) as `correct_acc_chars`, and one `choices` row per
option with its log-likelihood. lm-eval records no token counts, so our per-token `acc_norm` stays
empty. Generative tasks are `bananabench chat import-lm-eval`'s: refused here, by name. Importing the
same folder twice changes nothing.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from evaluators.core import lmeval
from evaluators.core.contract import Metric
from evaluators.core.errors import BadInput
from evaluators.loglik import PRESENTATION, metrics
from evaluators.runs.runs import RunSpec, canonical_json, finished_run, sha256_bytes, start_run
from evaluators.store.records import AttemptRow, ChoiceRow
from evaluators.store.store import Store

log = logging.getLogger("bananabench")

CHAT_COMMAND = "bananabench chat import-lm-eval"
# lm-eval's verdicts, as it computed them: acc (the largest log-likelihood) and acc_norm, which divides by
# characters (our acc_chars); our per-token acc_norm needs token counts lm-eval does not keep.
METRICS = (Metric.ACC, Metric.ACC_CHARS)
AGGREGATES = metrics.Aggregates(METRICS)




def import_lm_eval(store: Store, directory: str | os.PathLike, *, name: str) -> list[lmeval.ImportResult]:
    folder = lmeval.read_folder(directory)
    tasks = folder.of_kind(lmeval.MULTIPLE_CHOICE)
    others = sorted(t.name for t in folder.tasks.values() if t.output_type != lmeval.MULTIPLE_CHOICE)
    if others:
        kinds = sorted({str(t.output_type) for t in folder.tasks.values() if t.name in others})
        what = (f"{', '.join(others)}: {'/'.join(kinds)} lm-eval task(s), not multiple_choice; generative ones are "
                f"imported with `{CHAT_COMMAND} {folder.root} --name {name}`")
        if not tasks:
            raise BadInput(f"{folder.root}: {what}")
        log.warning("%s (skipped here)", what)
    parsed = [(task, _rows(task)) for task in tasks]  # every file is read before anything is stored
    return [_store(store, folder, task, rows, name) for task, rows in parsed]


def _rows(task: lmeval.Task) -> list[dict[str, Any]]:
    """One attempt row (with its choices) per document of the task's newest sample file."""
    path = task.sample_files[-1]
    if len(task.sample_files) > 1:
        log.warning("%s: %d sample files; importing the newest, %s", task.name, len(task.sample_files), path.name)
    delimiter = task.config.get("target_delimiter", " ")
    rows, seen = [], set()
    for line, sample in lmeval.read_samples(path):
        continuations, lls, greedy = lmeval.choices(sample, path, line)
        texts = [c[len(delimiter):] if delimiter and c.startswith(delimiter) else c for c in continuations]
        label = lmeval.label(sample, texts, continuations, path, line)
        item_id = lmeval.item_id(sample)
        if item_id in seen:
            continue  # lm-eval repeats a document only with `repeats`; its log-likelihoods are the same
        seen.add(item_id)
        pick = metrics.first_argmax(lls)
        chars = metrics.predict_chars(lls, [len(t) for t in texts])
        correct = lmeval.verdict(sample, "acc", pick == label)
        correct_chars = lmeval.verdict(sample, "acc_norm", chars == label)
        rows.append({
            "item_id": item_id, "attempt": 1, "status": "ok", "correct": correct, "score": float(correct),
            "prediction": str(pick), "reference": str(label), "extra": {
                "prediction_acc": pick, "correct_acc": correct, "prediction_acc_chars": chars,
                "correct_acc_chars": correct_chars, "lm_eval": {"task": task.name, "doc_id": sample["doc_id"],
                                                                "line": line}},
            "choices": [ChoiceRow(idx=k, logprob_sum=ll, n_tokens=None, mean_logprob=None,
                                  extra={"is_greedy": g, "chars": len(t)})
                        for k, (ll, g, t) in enumerate(zip(lls, greedy, texts, strict=True))],
        })
    if not rows:
        raise BadInput(f"{path}: no documents")
    return rows


def _store(store: Store, folder: lmeval.Folder, task: lmeval.Task, rows: list[dict[str, Any]],
           name: str) -> lmeval.ImportResult:
    dataset = sha256_bytes(canonical_json([[r["item_id"], r["reference"], [c.extra["chars"] for c in r["choices"]]]
                                           for r in rows]).encode())
    answers = sha256_bytes(canonical_json([[r["item_id"], [c.logprob_sum for c in r["choices"]]]
                                           for r in rows]).encode())
    model = {"kind": "lm-eval", "model": folder.info.get("model"), "model_args": folder.info.get("model_args"),
             "loglikelihoods_sha256": answers}
    spec = RunSpec(
        evaluator="loglik", benchmark=task.name, model_name=name, benchmark_version="lm-eval import",
        artifact={**model, "identity": model}, backend="lm-eval", dataset_sha256=dataset, official=False,
        scoring={"source": "lm-eval", "acc": "max log-likelihood",
                 "acc_chars": "max log-likelihood per character (lm-eval's acc_norm)"},
        options={"directory": str(folder.root)}, n_items=len(rows),
        extra={"source": "lm-eval", "lm_eval": folder.info, "lm_eval_results": task.results,
               "task_config": {k: task.config.get(k) for k in ("task", "output_type", "target_delimiter",
                                                                "num_fewshot", "dataset_path") if k in task.config},
               "files": [str(task.sample_files[-1].relative_to(folder.root))]},
    )
    summary = metrics.summarize([metrics.Verdict({m: r["extra"][f"correct_{m}"] for m in METRICS}) for r in rows],
                                AGGREGATES)
    existing = finished_run(store, spec)
    if existing is not None:
        return lmeval.ImportResult(task.name, existing.run_id, "unchanged", summary)
    with start_run(store, spec, policy="public", benchmark_title=f"{task.name} (lm-eval)",
                   headline_metric="acc", presentation=PRESENTATION) as run:
        for row in rows:
            run.record(AttemptRow(**{k: v for k, v in row.items() if k != "choices"}), choices=row["choices"])
        run.flush()
        run.finish(metrics.score_rows(summary, AGGREGATES), extra={**spec.extra, "summary": _brief(summary)})
    return lmeval.ImportResult(task.name, run.run_id, "imported", summary)


def _brief(summary: dict[str, Any]) -> dict[str, Any]:
    return {"n": summary["n"], **{m: summary[m]["value"] for m in METRICS if m in summary}}
