"""Check a stored modes run against modebench itself: grade each group independently, compare everything.

The expected values come from modebench's own `evaluate_file` receipts and journals, computed here
for every group input in a separate folder. The only arithmetic done here is the documented
combination of several groups: per prompt the mean over groups, then the mean over prompts; PCMD
pools a prompt's groups and is summarised by modebench's `cell_summary`.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from evaluators.store.store import Store


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def split_generated(path: Path, out_dir: Path) -> list[Path]:
    """A generated responses file → one plain modebench input per group (group/draws dropped)."""
    groups: dict[int, list[dict[str, Any]]] = {}
    for record in read_jsonl(path):
        group = record.pop("group")
        record.pop("draws", None)
        groups.setdefault(group, []).append(record)
    out_dir.mkdir(parents=True, exist_ok=True)
    return [write_jsonl(out_dir / f"group-{g}.jsonl", groups[g]) for g in sorted(groups)]


def check_run(results: Path, run_id: str, group_inputs: list[Path], run: dict[str, Any] | None,
              work: Path, threshold: int = 30) -> dict[str, Any]:
    """Assert the run's attempt rows and cell scores equal modebench's grading of `group_inputs`."""
    from modebench.api import EvaluationOptions, evaluate_file, iter_results
    from modebench.metrics import POOLED, cell_summary

    work.mkdir(parents=True, exist_ok=True)
    records = [read_jsonl(p) for p in group_inputs]
    receipts, results_by_group = [], []
    for n, source in enumerate(group_inputs, 1):
        receipt = work / f"reference-{n}.json"
        evaluate_file(source, receipt, options=EvaluationOptions(run=run, min_defined_prompts=threshold))
        receipts.append(json.loads(receipt.read_text()))
        results_by_group.append(list(iter_results(receipt)))

    store = Store(results)
    attempts = {(a.item_id, a.attempt): a for a in store.attempts(run_id)}
    expected_attempts = 0
    for group, (recs, results) in enumerate(zip(records, results_by_group, strict=True), 1):
        for record, result in zip(recs, results, strict=True):
            assert record["id"] == result["id"]
            graded = result["draws"][0]["attempts"]
            k = len(graded)
            for index, grade in enumerate(graded):
                row = attempts[(str(record["id"]), (group - 1) * k + index + 1)]
                expected_attempts += 1
                assert row.status == grade["status"]
                assert row.correct is grade["verified"]
                assert row.prediction == grade["graded_text"]
                assert row.extra["canonical_key"] == grade["canonical_key"]
                assert row.extra["group"] == group and row.extra["draw"] == index + 1
                assert row.category == record["domain"]
    assert len(attempts) == expected_attempts

    scores = {(s.key, s.metric): s for s in store.scores(run_id) if s.scope == "cell"}
    if len(receipts) == 1:
        cells = {f"level{c['level']}_{c['domain']}/k{c['k']}": c for c in receipts[0]["cells"]}
    else:
        cells = _combined(records[0], results_by_group, threshold, cell_summary, POOLED)
    assert {key for key, _metric in scores} == set(cells)
    for key, cell in cells.items():
        for metric in ("accuracy", "pass_at_k", "distinct_at_k"):
            assert scores[(key, metric)].value == cell[metric], (key, metric)
        pcmd = scores[(key, "pcmd")]
        assert pcmd.value == cell["pcmd"]["d_mode"]
        for name in ("defined_prompts", "prompts", "support", "standard_error", "min_defined_prompts"):
            assert pcmd.extra[name] == cell["pcmd"][name], (key, name)
        for metric in ("accuracy", "pass_at_k", "distinct_at_k", "pcmd"):
            assert scores[(key, metric)].extra["reportable"] is cell["pcmd"]["reportable"]
    return {"cells": cells, "receipts": receipts, "attempts": expected_attempts}


def _combined(first_group: list[dict[str, Any]], results_by_group: list[list[dict[str, Any]]], threshold: int,
              cell_summary, pooled) -> dict[str, dict[str, Any]]:
    per_prompt: dict[str, list[dict[str, Any]]] = {}
    for results in results_by_group:
        for result in results:
            per_prompt.setdefault(result["id"], []).append(result)
    by_cell: dict[str, list[str]] = {}
    for record in first_group:
        k = len(record["responses"])
        by_cell.setdefault(f"level{record['level']}_{record['domain']}/k{k}", []).append(str(record["id"]))
    cells = {}
    for key, ids in by_cell.items():
        cell = {name: statistics.fmean(statistics.fmean(r[name] for r in per_prompt[i]) for i in ids)
                for name in ("accuracy", "pass_at_k", "distinct_at_k")}
        cell["pcmd"] = cell_summary([{"draws": [d for r in per_prompt[i] for d in r["draws"]]} for i in ids],
                                    pooled, min_defined_prompts=threshold)
        cells[key] = cell
    return cells
