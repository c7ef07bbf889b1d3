"""The seed's per-run files: report.json, predictions.md and partial_results.jsonl.

`partial_results.jsonl` gets one line per finished example, flushed at once. The store (fed by the
core journal, written first) is the record of what is done; on `--resume` this file is rewritten
from it, so it never holds a torn line, a duplicate, or an example the store lacks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evaluators.core import atomic

REPORT = "report.json"
PREDICTIONS = "predictions.md"
PARTIAL = "partial_results.jsonl"


class PartialResults:
    """Append-only seed-format journal of finished examples."""

    def __init__(self, path: Path, records: Iterable[dict[str, Any]] = ()):
        text = "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in records)
        atomic.write_text(path, text, overwrite=True)
        self.path = path
        self._fh = open(path, "a", encoding="utf-8")

    def append(self, record: dict[str, Any]) -> None:
        self._fh.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
        self._fh.flush()  # in the OS once written: survives the process being killed (like the core journal)

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> PartialResults:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def write_report(path: Path, report: dict[str, Any]) -> None:
    atomic.write_json(path, report, overwrite=True)


def _code(text: str) -> str:
    """`text` as inline code, whatever backticks or newlines it holds (Markdown-safe)."""
    text = text.replace("\r", "").replace("\n", "⏎")
    fence = "`"
    while fence in text:
        fence += "`"
    # CommonMark strips one space from each side when both are present: pad so the text survives.
    pad = " " if text[:1] == "`" or text[-1:] == "`" or (text[:1] == " " and text[-1:] == " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fmt(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _banner(report: dict[str, Any]) -> list[str]:
    if report["official"]:
        return ["**Official run.**", ""]
    reasons = "; ".join(report.get("official_reasons") or []) or "see report.json"
    return [f"> **NON-OFFICIAL RUN** — {reasons}. Do not compare with official results.", ""]


def base_bench_markdown(report: dict[str, Any], texts: dict[str, dict[str, Any]]) -> str:
    """Readable category summary and every example's selected and correct continuation."""
    lines = [f"# {report['benchmark_title']} — {report['model_name']}", ""]
    lines += _banner(report)
    lines += [f"- Run: `{report['run_id']}`", f"- Model: `{report['model']['source']}`",
              f"- Scoring: mean log-prob over continuation tokens, BOS {'added' if report['config']['add_bos'] else 'not added'}",
              f"- Dataset SHA-256: `{report['dataset']['sha256']}`", ""]
    if report.get("overall_elo") is not None:
        lo, hi = report["overall_elo_ci"]
        lines += [f"**Overall Elo: {report['overall_elo']:.1f}** (95% CI {lo:.1f}–{hi:.1f}, {report['elo_ci_method']})  ",
                  f"Accuracy {_pct(report['accuracy'])} · weighted accuracy {_pct(report['weighted_accuracy'])} · "
                  f"{report['n_scored']} scored, {len(report['rejected'])} rejected", ""]
    lines += ["| Category | n | Accuracy | Weighted acc. | Elo | 95% CI |", "|---|---:|---:|---:|---:|---|"]
    for cat, elo in report.get("category_elo", {}).items():
        lo, hi = report["category_elo_ci"][cat]
        lines.append(f"| {cat} | {report['category_n'][cat]} | {_pct(report['category_accuracy'][cat])} | "
                     f"{_pct(report['category_weighted_accuracy'][cat])} | {_fmt(elo)} | {_fmt(lo)}–{_fmt(hi)} |")
    lines.append("")
    if report["rejected"]:
        lines += ["## Rejected examples", ""]
        lines += [f"- `{r['id']}`: {r['reason']}" for r in report["rejected"]]
        lines.append("")
    lines += ["## Examples", ""]
    for item in report["items"]:
        text = texts.get(item["id"], {})
        conts = text.get("continuations", [])
        mark = "✓" if item["correct"] else "✗"
        lines.append(f"### {mark} `{item['id']}` — {item['category']}, {item['difficulty']}")
        lines.append("")
        if item["prediction"] is None:
            lines += [f"Rejected: {item.get('reason', '')}", ""]
            continue
        means = ", ".join(f"{c['mean_logprob']:.3f}" for c in item["choices"])
        lines.append(f"- Selected [{item['prediction']}]: {_code(conts[item['prediction']])}")
        if not item["correct"]:
            lines.append(f"- Correct [{item['label']}]: {_code(conts[item['label']])}")
        lines += [f"- Mean log-probs: {means}", ""]
    return "\n".join(lines)


def base_evals_markdown(report: dict[str, Any], texts: dict[str, dict[str, Any]]) -> str:
    split = report["split"]
    s = report["splits"][split]
    lines = [f"# base-evals `{split}` — {report['model_name']}", ""]
    lines += _banner(report)
    lines += [f"- Run: `{report['run_id']}`", f"- Model: `{report['model']['source']}`",
              f"- Data: `{report['dataset']['path']}` (SHA-256 `{report['dataset']['sha256']}`)", "",
              f"**acc_norm {_pct(s['acc_norm'])}** · acc {_pct(s['acc'])} · lm-eval acc_norm (per character) "
              f"{_pct(s['acc_chars'])} · n {s['n']} · rejected {s['rejected']}", ""]
    if report["rejected"]:
        lines += ["## Rejected items", ""]
        lines += [f"- `{r['id']}`: {r['reason']}" for r in report["rejected"]]
        lines.append("")
    lines += ["## Items", "", "| id | label | acc_norm pick | acc pick | correct (norm) |", "|---|---:|---:|---:|---|"]
    for item in report["items"]:
        if item["prediction"] is None:
            continue
        lines.append(f"| `{item['id']}` | {item['label']} | {item['prediction']} | {item['prediction_acc']} | "
                     f"{'✓' if item['correct'] else '✗'} |")
    lines.append("")
    wrong = [i for i in report["items"] if i["prediction"] is not None and not i["correct"]]
    if wrong:
        lines += ["## Misses", ""]
        for item in wrong:
            t = texts.get(item["id"], {})
            choices = t.get("choices", [])
            lines += [f"### `{item['id']}`", "", f"- Context: {_code(t.get('context', ''))}",
                      f"- Selected [{item['prediction']}]: {_code(choices[item['prediction']])}",
                      f"- Correct [{item['label']}]: {_code(choices[item['label']])}", ""]
    return "\n".join(lines)


def write_markdown(path: Path, text: str) -> None:
    atomic.write_text(path, text, overwrite=True)
