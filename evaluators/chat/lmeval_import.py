"""Bring an lm-eval output folder (results_*.json + samples_*.jsonl) of generative runs into the store.

Every response is re-extracted with our rules (lm-eval's stock filters cannot read thought-first
outputs or echoed prefixes). lm-eval can sample a doc more than once: such duplicates are scored
once, and where one copy was decided (correct or wrong) and the other unanswered, the decided
verdict is kept. Tasks are recognised by name (`*arc*`, `*mmlu*`, `*gsm8k*`); MMLU subtasks in
separate files are gathered into one run. Importing the same folder twice changes nothing.
Multiple-choice (log-likelihood) tasks are `bananabench loglik import-lm-eval`'s: they are refused
here, by name, never stored as unanswered generative items.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.chat.datasets import TASKS, Item, canonical_number, item_from_record
from evaluators.chat.extract import EXTRACTION_VERSION, extract, verdict
from evaluators.chat.metrics import score_rows, summary
from evaluators.core import lmeval
from evaluators.core.backends.server import split_reasoning
from evaluators.core.errors import BadInput, located
from evaluators.core.runs import RunSpec, sha256_bytes, start_run
from evaluators.core.store import Store

log = logging.getLogger("bananabench")

LOGLIK_COMMAND = "bananabench loglik import-lm-eval"


@dataclass
class ImportResult:
    task: str
    run_id: str
    status: str  # "imported" or "unchanged"
    summary: dict[str, Any]
    duplicates: int


def task_of(lm_task: str) -> str | None:
    name = lm_task.lower()
    for key in ("gsm8k", "mmlu", "arc"):
        if key in name:
            return key
    return None


def _response(sample: dict[str, Any]) -> str | None:
    resps = sample.get("resps")
    while isinstance(resps, list) and resps:
        resps = resps[0]
    if isinstance(resps, str):
        return resps
    filtered = sample.get("filtered_resps")
    while isinstance(filtered, list) and filtered:
        filtered = filtered[0]
    return filtered if isinstance(filtered, str) else None


def _fallback_item(task: str, lm_task: str, sample: dict[str, Any], where: str, line: int) -> Item:
    """An item from lm-eval's own target, for docs whose fields are not the hub dataset's."""
    target = sample.get("target")
    doc = sample.get("doc") if isinstance(sample.get("doc"), dict) else {}
    if task == "gsm8k":
        match = re.search(r"####\s*(.+?)\s*$", str(target or ""))
        gold = canonical_number(match.group(1) if match else str(target))
        letters_n = 0
    else:
        if isinstance(target, int) and not isinstance(target, bool):
            gold = "ABCDEFGH"[target] if 0 <= target < 8 else None
        else:
            gold = str(target or "").strip().strip("()").upper()[:1] or None
        options = doc.get("choices")
        letters_n = len(options) if isinstance(options, list) else 4
    if gold is None:
        raise BadInput(located(where, line, "target", "cannot tell the expected answer of this doc"))
    question = str(doc.get("question") or doc.get("query") or sample.get("doc_id"))
    # The option texts are unknown here; placeholders give the item its letter count (A-D by default).
    content = sha256_bytes(json.dumps({"task": lm_task, "doc": doc, "target": target}, sort_keys=True,
                                      default=str).encode())
    return Item(item_id=f"{lm_task}/{sample.get('doc_id')}", task=task, question=question,
                options=tuple("?" * letters_n), gold=gold, category=doc.get("subject"), content_hash=content,
                index=int(sample.get("doc_id") or 0))


def _choose(copies: list[tuple[str, str | None, str | None]]) -> tuple[int, bool]:
    """Which copy of a duplicated doc counts: the first decided one; conflict if decided copies disagree."""
    decided = [i for i, (status, _, _) in enumerate(copies) if status in ("correct", "wrong")]
    conflict = len({copies[i][0] for i in decided}) > 1
    return (decided[0] if decided else 0), conflict


def import_lm_eval(store: Store, directory: str | os.PathLike, *, name: str) -> list[ImportResult]:
    folder = lmeval.read_folder(directory)
    choice_tasks = sorted(t.name for t in folder.of_kind(lmeval.MULTIPLE_CHOICE))
    by_task: dict[str, list[Path]] = defaultdict(list)
    for lm_task in folder.tasks.values():
        if lm_task.output_type == lmeval.MULTIPLE_CHOICE:
            continue
        task = task_of(lm_task.name)
        if task is None:
            log.warning("%s: not an ARC, MMLU or GSM8K task; skipped", lm_task.sample_files[0])
            continue
        by_task[task].extend(lm_task.sample_files)
    if choice_tasks:
        what = (f"{', '.join(choice_tasks)}: multiple_choice (log-likelihood) lm-eval task(s); "
                f"import them with `{LOGLIK_COMMAND} {folder.root} --name {name}`")
        if not by_task:
            raise BadInput(f"{folder.root}: {what}")
        log.warning("%s (skipped here)", what)
    if not by_task:
        raise BadInput(f"{folder.root}: none of the sampled tasks is ARC, MMLU or GSM8K")
    parsed = {task: _parse_task(task, sorted(paths), folder.root) for task, paths in by_task.items()}
    info = {**folder.info, "results": {t.name: t.results for t in folder.tasks.values() if t.results}}
    return [_store_task(store, task, name, info, folder.root, *parsed[task]) for task in parsed]


def _parse_task(task: str, paths: list[Path], root: Path) -> tuple[list[dict[str, Any]], int, list[str]]:
    kind = TASKS[task].kind
    copies: dict[str, list[tuple[Item, str, str | None, str | None, str, int]]] = defaultdict(list)
    for path in paths:
        lm_task = lmeval.sample_task_name(path)
        for line, sample in lmeval.read_samples(path):
            doc = sample.get("doc")
            try:
                item = item_from_record(task, doc, int(sample["doc_id"]), where=str(path), line=line)
            except BadInput:
                item = _fallback_item(task, lm_task, sample, str(path), line)
            raw = _response(sample)
            answer = extract(kind, raw, item.letters or "ABCD")
            copies[item.item_id].append((item, verdict(kind, answer, item.gold), answer, raw, lm_task, line))
    rows, duplicates = [], 0
    for item_id, group in copies.items():
        duplicates += len(group) - 1
        chosen, conflict = _choose([(status, answer, raw) for _, status, answer, raw, _, _ in group])
        item, status, answer, raw, lm_task, line = group[chosen]
        if conflict:
            log.warning("%s: lm-eval answered %s both right and wrong; keeping the first decided copy", item_id, task)
        body, reasoning = split_reasoning(raw)
        rows.append({
            "item_id": item_id, "attempt": 1, "status": status, "correct": status == "correct",
            "score": float(status == "correct"), "prediction": answer, "reference": item.gold,
            "category": item.category,
            "extra": {"raw": raw, "reasoning": reasoning or None, "letters": item.letters or None,
                      "content_hash": item.content_hash, "index": item.index,
                      "lm_eval": {"task": lm_task, "line": line, "copies": len(group), "conflict": conflict,
                                  "verdicts": [g[1] for g in group]}},
        })
    rows.sort(key=lambda r: (r["extra"]["index"], r["item_id"]))
    return rows, duplicates, sorted({str(p.relative_to(root)) for p in paths})


def _store_task(store: Store, task: str, name: str, info: dict[str, Any], root: Path, rows: list[dict[str, Any]],
                duplicates: int, files: list[str]) -> ImportResult:
    definition = TASKS[task]
    dataset = sha256_bytes("\n".join(f"{r['item_id']}:{r['extra']['content_hash']}" for r in rows).encode())
    responses = sha256_bytes(json.dumps([[r["item_id"], r["extra"]["raw"]] for r in rows]).encode())
    model = {"kind": "lm-eval", "model": info.get("model"), "model_args": info.get("model_args"),
             "responses_sha256": responses}
    spec = RunSpec(
        evaluator="chat", benchmark=definition.benchmark, model_name=name, benchmark_version="lm-eval import",
        artifact={**model, "identity": model}, backend="lm-eval", dataset_sha256=dataset, official=False,
        scoring={"source": "lm-eval", "extraction": EXTRACTION_VERSION}, options={"directory": str(root)},
        n_items=len(rows),
        extra={"task": task, "kind": definition.kind, "source": "lm-eval", "duplicates_merged": duplicates,
               "lm_eval": {k: v for k, v in info.items() if k != "results"}, "files": files,
               "lm_eval_results": (info.get("results") or {}), "extraction_version": EXTRACTION_VERSION},
    )
    signature = spec.signature()
    existing = store.query("SELECT run_id FROM runs WHERE model_name = ? AND benchmark = ? AND signature = ? "
                           "AND status = 'finished' ORDER BY started_at DESC LIMIT 1",
                           [name, definition.benchmark, signature]).rows
    if existing:
        run_id = existing[0][0]
        return ImportResult(task, run_id, "unchanged", summary(store.attempts(run_id)), duplicates)
    with start_run(store, spec, policy="public", benchmark_title=definition.title, headline_metric="accuracy") as run:
        for row in rows:
            run.record(row)
        run.flush()
        result_summary = summary(rows)
        run.finish(score_rows(rows), extra={**spec.extra, "summary": result_summary})
    return ImportResult(task, run.run_id, "imported", result_summary, duplicates)
