"""Bring an lm-eval output folder (results_*.json + samples_*.jsonl) of generative runs into the store.

Every response is re-extracted with our rules (lm-eval's stock filters cannot read thought-first
outputs or echoed prefixes). lm-eval can sample a doc more than once: such duplicates are scored
once, and where one copy was decided (correct or wrong) and the other unanswered, the decided
verdict is kept. An lm-eval task belongs to the chat benchmark whose spec's `lm_eval` patterns match
its name (`*arc*`, `*mmlu*`, `*gsm8k*` for the built-in ones; `--task FILE` adds your own), and its docs
are mapped by that spec's `[record]`; MMLU subtasks in separate files are gathered into one run.
Importing the same folder twice changes nothing.
Multiple-choice (log-likelihood) tasks are `bananabench loglik import-lm-eval`'s: they are refused
here, by name, never stored as unanswered generative items.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from evaluators.chat import PRESENTATION
from evaluators.chat import spec as chat_spec
from evaluators.chat.extract import EXTRACTION_VERSION, LETTERS, canonical_number, extract, verdict
from evaluators.chat.metrics import score_rows, summary
from evaluators.chat.spec import Item, Task
from evaluators.core import lmeval
from evaluators.core.contract import Metric
from evaluators.core.errors import BadInput, located
from evaluators.core.text import split_reasoning
from evaluators.runs.runs import RunSpec, finished_run, sha256_bytes, start_run
from evaluators.specs.records import MappingError, RecordMapper
from evaluators.store.records import AttemptRow
from evaluators.store.store import Store

log = logging.getLogger("bananabench")

LOGLIK_COMMAND = "bananabench loglik import-lm-eval"




def task_of(lm_task: str, tasks: list[Task]) -> Task | None:
    """The benchmark whose spec's `lm_eval` name patterns match an lm-eval task name."""
    name = lm_task.lower()
    return next((t for t in tasks if any(fnmatch.fnmatch(name, p.lower()) for p in t.spec.lm_eval)), None)


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


def _fallback_item(task: Task, lm_task: str, sample: dict[str, Any], where: str, line: int) -> Item:
    """An item from lm-eval's own target, for docs whose fields are not the benchmark's records."""
    target = sample.get("target")
    doc = sample.get("doc") if isinstance(sample.get("doc"), dict) else {}
    kind, letters_n = task.scoring.answer, 0
    if kind == "number":
        match = re.search(r"####\s*(.+?)\s*$", str(target or ""))
        gold = canonical_number(match.group(1) if match else str(target))
    elif kind == "letter":
        if isinstance(target, int) and not isinstance(target, bool):
            gold = LETTERS[target] if 0 <= target < len(LETTERS) else None
        else:
            gold = str(target or "").strip().strip("()").upper()[:1] or None
        options = doc.get("choices")
        letters_n = len(options) if isinstance(options, list) else 4
    else:
        gold = str(target).strip() if target is not None and str(target).strip() else None
    if gold is None:
        raise BadInput(located(where, line, "target", "cannot tell the expected answer of this doc"))
    question = str(doc.get("question") or doc.get("query") or sample.get("doc_id"))
    # The option texts are unknown here; placeholders give the item its letter count (A-D by default).
    content = sha256_bytes(json.dumps({"task": lm_task, "doc": doc, "target": target}, sort_keys=True,
                                      default=str).encode())
    return Item(item_id=f"{lm_task}/{sample.get('doc_id')}", question=question, options=tuple("?" * letters_n),
                gold=gold, category=doc.get("subject"), content_hash=content, index=int(sample.get("doc_id") or 0),
                line=line)


def _choose(copies: list[tuple[str, str | None, str | None]]) -> tuple[int, bool]:
    """Which copy of a duplicated doc counts: the first decided one; conflict if decided copies disagree."""
    decided = [i for i, (status, _, _) in enumerate(copies) if status in ("correct", "wrong")]
    conflict = len({copies[i][0] for i in decided}) > 1
    return (decided[0] if decided else 0), conflict


def import_lm_eval(store: Store, directory: str | os.PathLike, *, name: str,
                   tasks: list[str] | None = None) -> list[lmeval.ImportResult]:
    """Import the folder's generative tasks into the benchmarks `tasks` names (default: the built-in chat ones)."""
    from evaluators.chat.run import ALL, resolve_tasks

    benchmarks = resolve_tasks(tasks or [ALL])
    known = {t.spec.id: t for t in benchmarks}
    folder = lmeval.read_folder(directory)
    choice_tasks = sorted(t.name for t in folder.of_kind(lmeval.MULTIPLE_CHOICE))
    by_task: dict[str, list[Path]] = defaultdict(list)
    for lm_task in folder.tasks.values():
        if lm_task.output_type == lmeval.MULTIPLE_CHOICE:
            continue
        task = task_of(lm_task.name, benchmarks)
        if task is None:
            log.warning("%s: matches no benchmark's lm_eval names; skipped", lm_task.sample_files[0])
            continue
        by_task[task.spec.id].extend(lm_task.sample_files)
    if choice_tasks:
        what = (f"{', '.join(choice_tasks)}: multiple_choice (log-likelihood) lm-eval task(s); "
                f"import them with `{LOGLIK_COMMAND} {folder.root} --name {name}`")
        if not by_task:
            raise BadInput(f"{folder.root}: {what}")
        log.warning("%s (skipped here)", what)
    if not by_task:
        raise BadInput(f"{folder.root}: none of the sampled tasks matches the lm_eval names of "
                       + ", ".join(t.spec.id for t in benchmarks))
    parsed = {bench: _parse_task(known[bench], sorted(paths), folder.root) for bench, paths in by_task.items()}
    info = {**folder.info, "results": {t.name: t.results for t in folder.tasks.values() if t.results}}
    return [_store_task(store, known[bench], name, info, folder.root, *parsed[bench]) for bench in parsed]


def _parse_task(task: Task, paths: list[Path], root: Path) -> tuple[list[dict[str, Any]], int, list[str]]:
    kind, pattern = task.scoring.answer, task.scoring.pattern
    mapper = RecordMapper(task.spec)
    copies: dict[str, list[tuple[Item, str, str | None, str | None, str, int]]] = defaultdict(list)
    for path in paths:
        lm_task = lmeval.sample_task_name(path)
        for line, sample in lmeval.read_samples(path):
            doc = sample.get("doc")
            try:
                if not isinstance(doc, dict):
                    raise MappingError("doc", "not an object")
                item = chat_spec.item(task, mapper.map(doc), int(sample["doc_id"]), line)
            except MappingError:
                item = _fallback_item(task, lm_task, sample, str(path), line)
            raw = _response(sample)
            answer = extract(kind, raw, item.letters or "ABCD", pattern)
            copies[item.item_id].append((item, verdict(kind, answer, item.gold), answer, raw, lm_task, line))
    rows, duplicates = [], 0
    for item_id, group in copies.items():
        duplicates += len(group) - 1
        chosen, conflict = _choose([(status, answer, raw) for _, status, answer, raw, _, _ in group])
        item, status, answer, raw, lm_task, line = group[chosen]
        if conflict:
            log.warning("%s: lm-eval answered %s both right and wrong; keeping the first decided copy", item_id,
                        task.spec.id)
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


def _store_task(store: Store, task: Task, name: str, info: dict[str, Any], root: Path, rows: list[dict[str, Any]],
                duplicates: int, files: list[str]) -> lmeval.ImportResult:
    spec = task.spec
    dataset = sha256_bytes("\n".join(f"{r['item_id']}:{r['extra']['content_hash']}" for r in rows).encode())
    responses = sha256_bytes(json.dumps([[r["item_id"], r["extra"]["raw"]] for r in rows]).encode())
    model = {"kind": "lm-eval", "model": info.get("model"), "model_args": info.get("model_args"),
             "responses_sha256": responses}
    run_spec = RunSpec(
        evaluator="chat", benchmark=spec.id, model_name=name, benchmark_version="lm-eval import",
        artifact={**model, "identity": model}, backend="lm-eval", dataset_sha256=dataset, official=False,
        scoring={"source": "lm-eval", "extraction": EXTRACTION_VERSION}, options={"directory": str(root)},
        n_items=len(rows),
        extra={"task": task.name, "kind": task.scoring.answer, "pattern": task.scoring.pattern, "source": "lm-eval",
               "duplicates_merged": duplicates, "lm_eval": {k: v for k, v in info.items() if k != "results"},
               "files": files, "lm_eval_results": (info.get("results") or {}), "extraction_version": EXTRACTION_VERSION},
    )
    existing = finished_run(store, run_spec)
    if existing:
        return lmeval.ImportResult(task.name, existing.run_id, "unchanged",
                                   summary(store.attempts(existing.run_id)), duplicates)
    with start_run(store, run_spec, policy=spec.policy, benchmark_title=spec.title, headline_metric=Metric.ACCURACY,
                   description=spec.description, presentation=PRESENTATION) as run:
        records = [AttemptRow(**row) for row in rows]
        for record in records:
            run.record(record)
        run.flush()
        result_summary = summary(records)
        run.finish(score_rows(records), extra={**run_spec.extra, "summary": result_summary})
    return lmeval.ImportResult(task.name, run.run_id, "imported", result_summary, duplicates)
