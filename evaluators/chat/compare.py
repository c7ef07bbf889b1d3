"""Paired A/B comparison of two chat runs (or two models' current chat runs), task by task.

The pairing and the test are the site's (`store.paired`): items paired by id, an item with an
infrastructure error (or missing) on either side left out and counted apart, exact McNemar on the
discordant pairs with a paired-bootstrap interval of the accuracy delta. Per task: n,
correct/accuracy/wrong/unanswered/truncated for each side, the test, and the items that flipped.
"""

from __future__ import annotations

import json
from typing import Any

from evaluators.core.contract import Metric
from evaluators.core.errors import BadInput
from evaluators.store import paired
from evaluators.store.records import RunRow
from evaluators.store.store import Store


def resolve(store: Store, ref: str) -> dict[str, RunRow]:
    """benchmark -> run for a run id, or for a model name (its current chat runs)."""
    run = store.run(ref)
    if run is not None:
        if run.evaluator != "chat":
            raise BadInput(f"run {ref} is a {run.evaluator} run, not a chat run")
        return {run.benchmark: run}
    runs = [r for r in store.current_runs(model=ref) if r.evaluator == "chat"]
    if not runs:
        raise BadInput(f"{ref!r}: no chat run with that id and no model with finished chat runs in {store.path}")
    return {r.benchmark: r for r in runs}


def _side(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    statuses = [o["statuses"][0] for o in outcomes]
    n_correct = statuses.count("correct")
    return {"n_correct": n_correct, "n_wrong": statuses.count("wrong"), "n_unanswered": statuses.count("unanswered"),
            "n_truncated": statuses.count("truncated"), "accuracy": n_correct / len(outcomes) if outcomes else None}


def compare_runs(store: Store, run_a: RunRow, run_b: RunRow) -> dict[str, Any]:
    with store.read() as con:
        outcomes = paired.item_outcomes(con, [run_a.run_id, run_b.run_id])
    pairing = paired.pair(outcomes[run_a.run_id], outcomes[run_b.run_id])
    scored = [p for p in pairing.pairs if p.a["n"] and p.b["n"]]
    test = paired.paired_test(Metric.ACCURACY, scored)
    flips = [{"item_id": p.item_id, "category": p.category, "reference": p.a["reference"],
              "a": p.a["statuses"][0], "a_answer": p.a["prediction"],
              "b": p.b["statuses"][0], "b_answer": p.b["prediction"]}
             for p in scored if bool(p.a["correct"]) != bool(p.b["correct"])]
    return {
        "benchmark": run_a.benchmark, "run_a": run_a.run_id, "run_b": run_b.run_id,
        "model_a": run_a.model_name, "model_b": run_b.model_name, "n": len(scored),
        "a": _side([p.a for p in scored]), "b": _side([p.b for p in scored]),
        "discordant": {"a_only_correct": test.regressed or 0, "b_only_correct": test.improved or 0},
        "mcnemar_p": 1.0 if test.p_value is None else test.p_value,
        "delta": test.delta, "delta_ci": [test.ci_low, test.ci_high],
        "excluded": {"error_a": sum(not p.a["n"] for p in pairing.pairs),
                     "error_b": sum(not p.b["n"] for p in pairing.pairs),
                     "only_in_a": pairing.only_a, "only_in_b": pairing.only_b},
        "flips": flips,
    }


def compare(store: Store, ref_a: str, ref_b: str) -> dict[str, Any]:
    runs_a, runs_b = resolve(store, ref_a), resolve(store, ref_b)
    common = sorted(set(runs_a) & set(runs_b))
    if not common:
        raise BadInput(f"{ref_a} and {ref_b} share no chat task "
                       f"({', '.join(sorted(runs_a))} vs {', '.join(sorted(runs_b))})")
    return {"a": ref_a, "b": ref_b, "tasks": [compare_runs(store, runs_a[bm], runs_b[bm]) for bm in common],
            "only_a": sorted(set(runs_a) - set(runs_b)), "only_b": sorted(set(runs_b) - set(runs_a)),
            "test": "exact McNemar (two-sided) on items answered in both runs, errors excluded; accuracy delta B - A "
                    "with a 95% paired-bootstrap interval"}


def _acc(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _rows(report: dict[str, Any]) -> list[list[str]]:
    rows = []
    for t in report["tasks"]:
        a, b = t["a"], t["b"]
        rows.append([t["benchmark"], str(t["n"]), str(a["n_correct"]), str(b["n_correct"]), _acc(a["accuracy"]),
                     _acc(b["accuracy"]), f"{a['n_wrong']}/{a['n_unanswered']}/{a['n_truncated']}",
                     f"{b['n_wrong']}/{b['n_unanswered']}/{b['n_truncated']}",
                     f"{t['discordant']['a_only_correct']}/{t['discordant']['b_only_correct']}",
                     _delta(t["delta"], *t["delta_ci"]), f"{t['mcnemar_p']:.4g}"])
    return rows


def _delta(delta: float | None, low: float | None, high: float | None) -> str:
    """`+8.3 pp [-2.1, +18.8]`: the accuracy difference B - A in percentage points with its interval."""
    if delta is None:
        return "n/a"
    text = f"{100 * delta:+.1f} pp"
    return text if low is None or high is None else f"{text} [{100 * low:+.1f}, {100 * high:+.1f}]"


HEADER = ["task", "n", "A correct", "B correct", "A acc", "B acc", "A wrong/unans/cut", "B wrong/unans/cut",
          "A-only/B-only", "B-A acc [95% CI]", "McNemar p"]


def render(report: dict[str, Any], fmt: str = "table", *, max_flips: int = 20) -> str:
    """The report as an aligned terminal table, markdown, or JSON."""
    if fmt == "json":
        return json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    rows = _rows(report)
    lines: list[str] = [f"A = {report['a']}", f"B = {report['b']}", ""]
    if fmt == "markdown":
        lines = [f"**A** = `{report['a']}`  ", f"**B** = `{report['b']}`", ""]
        lines.append("| " + " | ".join(HEADER) + " |")
        lines.append("|" + "|".join("---" for _ in HEADER) + "|")
        lines += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADER)]
        lines.append("  ".join(h.ljust(w) for h, w in zip(HEADER, widths, strict=True)))
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    for t in report["tasks"]:
        ex = t["excluded"]
        if any(ex.values()):
            lines.append(f"{t['benchmark']}: left out of the pairing: {ex['error_a']} error(s) in A, {ex['error_b']} "
                         f"in B, {ex['only_in_a']} item(s) only in A, {ex['only_in_b']} only in B")
    for t in report["tasks"]:
        if not t["flips"]:
            continue
        lines.append("")
        lines.append(f"{'### ' if fmt == 'markdown' else ''}{t['benchmark']}: {len(t['flips'])} flipped item(s)")
        for f in t["flips"][:max_flips]:
            lines.append(f"{'- ' if fmt == 'markdown' else '  '}{f['item_id']}: A {f['a']} ({f['a_answer']}) -> "
                         f"B {f['b']} ({f['b_answer']}), reference {f['reference']}")
        if len(t["flips"]) > max_flips:
            lines.append(f"  ... and {len(t['flips']) - max_flips} more (--format json lists all)")
    if report["only_a"] or report["only_b"]:
        lines.append("")
        lines.append(f"not compared: only in A: {', '.join(report['only_a']) or '-'}; "
                     f"only in B: {', '.join(report['only_b']) or '-'}")
    return "\n".join(lines) + "\n"
