"""The seed's per-run files: report.json, predictions.md and partial_results.jsonl.

report.json holds the configuration, the data's provenance, every metric the spec names (with its
95% interval), weighted accuracy and the fixed-item Elo where the spec asks for them, the same per
category where items have categories, the per-split entry for a benchmark with splits, and every item
with its per-choice log-likelihoods. predictions.md is the readable summary and every item's selected
and correct continuation.

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
from evaluators.core.contract import Metric

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


def _ci(group: dict[str, Any], metric: str) -> list[float | None] | None:
    value = group.get(metric)
    return [value["ci_low"], value["ci_high"]] if value else None


def numbers(summary: dict[str, Any], metrics: list[str], *, weighted: bool, elo: bool,
            category_rows: dict[str, list[str]] | None) -> dict[str, Any]:
    """The report's numbers: `overall_elo*` (with an Elo), `category_*` (with categories), each metric and its
    `<metric>_ci`, `weighted_accuracy`; None where nothing could be scored."""
    out: dict[str, Any] = {}
    cats = summary.get("categories")
    if elo:
        out.update(overall_elo=summary[Metric.ELO]["value"] if summary["n"] else None,
                   overall_elo_ci=_ci(summary, Metric.ELO),
                   elo_ci_method=summary[Metric.ELO]["method"] if summary["n"] else None)
    if cats is not None or category_rows is not None:
        cats = cats or {}
        if elo:
            out["category_elo"] = {c: v[Metric.ELO]["value"] for c, v in cats.items()}
            out["category_elo_ci"] = {c: _ci(v, Metric.ELO) for c, v in cats.items()}
        for metric in metrics:
            out[f"category_{metric}"] = {c: v[metric]["value"] for c, v in cats.items()}
        if weighted:
            out["category_weighted_accuracy"] = {c: v[Metric.WEIGHTED_ACCURACY] for c, v in cats.items()}
        out["category_n"] = {c: v["n"] for c, v in cats.items()}
        if category_rows is not None:
            out["category_table_rows"] = category_rows
    for metric in metrics:
        out[metric] = summary[metric]["value"] if summary["n"] else None
        out[f"{metric}_ci"] = _ci(summary, metric)
    if weighted:
        out[Metric.WEIGHTED_ACCURACY] = summary.get(Metric.WEIGHTED_ACCURACY)
    return out


def split_entry(summary: dict[str, Any], metrics: list[str], *, run_id: str, official: bool) -> dict[str, Any]:
    """`splits[<split>]` of a split's report (and of the combined one): n, each metric and its interval."""
    entry: dict[str, Any] = {"n": summary["n"]}
    for metric in metrics:
        value = summary.get(metric) or {"value": None, "ci_low": None, "ci_high": None}
        entry[metric] = value["value"]
        entry[f"{metric}_ci"] = [value["ci_low"], value["ci_high"]]
    for metric in (Metric.WEIGHTED_ACCURACY, Metric.ELO):
        if metric in summary:
            value = summary[metric]
            entry[metric] = value["value"] if isinstance(value, dict) else value
    entry.update(rejected=summary["rejected"], run_id=run_id, official=official)
    return entry


def headline(report: dict[str, Any], metrics: list[str]) -> str:
    """One line of the report's numbers: `Overall Elo 912.3 [850.1, 970.4]  accuracy 0.571  weighted 0.55`."""
    parts = []
    if report.get("overall_elo") is not None:
        lo, hi = report["overall_elo_ci"]
        parts.append(f"Overall Elo {report['overall_elo']:.1f} [{lo:.1f}, {hi:.1f}]")
    for metric in metrics:
        value = report.get(metric)
        parts.append(f"{metric} {'–' if value is None else f'{value:.3f}'}")
    if report.get(Metric.WEIGHTED_ACCURACY) is not None:
        parts.append(f"weighted {report[Metric.WEIGHTED_ACCURACY]:.3f}")
    return "  ".join(parts)


def markdown(report: dict[str, Any], metrics: list[str], texts: dict[str, dict[str, Any]]) -> str:
    """Readable summary (overall, per category) and every example's selected and correct continuation."""
    split = f" `{report['split']}`" if report.get("split") else ""
    lines = [f"# {report['benchmark_title']}{split} — {report['model_name']}", ""]
    lines += _banner(report)
    lines += [f"- Run: `{report['run_id']}`", f"- Model: `{report['model']['source']}`",
              f"- Scoring: {', '.join(f'{m} = {r}' for m, r in report['config']['scoring']['metrics'].items())}; "
              f"{report['config']['tokenization']}; BOS {'added' if report['config']['add_bos'] else 'not added'}",
              f"- Data: `{report['dataset']['path']}` (SHA-256 `{report['dataset']['sha256']}`)", ""]
    if report["n_scored"]:
        elo = report.get("overall_elo")
        if elo is not None:
            lo, hi = report["overall_elo_ci"]
            lines.append(f"**Overall Elo: {elo:.1f}** (95% CI {lo:.1f}–{hi:.1f}, {report['elo_ci_method']})  ")
        shown = [f"{m} {_pct(report[m])}" for m in metrics]
        if report.get(Metric.WEIGHTED_ACCURACY) is not None:
            shown.append(f"weighted accuracy {_pct(report[Metric.WEIGHTED_ACCURACY])}")
        lines += [" · ".join(shown) + f" · {report['n_scored']} scored, {len(report['rejected'])} rejected", ""]
    if report.get("category_n"):
        elo, weighted = "category_elo" in report, "category_weighted_accuracy" in report
        head = ["Category", "n", *metrics, *(["Weighted acc."] if weighted else []), *(["Elo", "95% CI"] if elo else [])]
        lines += ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1 - elo) + ("---|" if elo else "")]
        for cat, n in report["category_n"].items():
            cells = [str(cat), str(n), *(_pct(report[f"category_{m}"][cat]) for m in metrics)]
            if weighted:
                cells.append(_pct(report["category_weighted_accuracy"][cat]))
            if elo:
                lo, hi = report["category_elo_ci"][cat]
                cells += [_fmt(report["category_elo"][cat]), f"{_fmt(lo)}–{_fmt(hi)}"]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    if report["rejected"]:
        lines += ["## Rejected examples", ""]
        lines += [f"- `{r['id']}`: {r['reason']}" for r in report["rejected"]]
        lines.append("")
    lines += ["## Examples", ""]
    for item in report["items"]:
        text = texts.get(item["id"], {})
        conts = text.get("choices", [])
        mark = "✓" if item["correct"] else "✗"
        where = ", ".join(str(item[k]) for k in ("category", "difficulty") if item.get(k) is not None)
        lines += [f"### {mark} `{item['id']}`" + (f" — {where}" if where else ""), ""]
        if item["prediction"] is None:
            lines += [f"Rejected: {item.get('reason', '')}", ""]
            continue
        if text.get("context") is not None and not item["correct"]:
            lines.append(f"- Context: {_code(text['context'])}")
        lines.append(f"- Selected [{item['prediction']}]: {_code(conts[item['prediction']])}")
        if not item["correct"]:
            lines.append(f"- Correct [{item['label']}]: {_code(conts[item['label']])}")
        others = [f"{m} [{item[f'prediction_{m}']}]" for m in metrics[1:] if f"prediction_{m}" in item]
        if others:
            lines.append(f"- Other picks: {', '.join(others)}")
        means = ", ".join(f"{c['mean_logprob']:.3f}" for c in item["choices"])
        lines += [f"- Mean log-probs: {means}", ""]
    return "\n".join(lines)


def write_markdown(path: Path, text: str) -> None:
    atomic.write_text(path, text, overwrite=True)
