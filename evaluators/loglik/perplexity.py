"""A rolling (perplexity) benchmark's rows and numbers: one attempt per document, lm-eval's aggregates.

Each document is scored as its rolling windows (`models.rolling`); a window is stored like a choice
(its log-likelihood and token count), so a resumed run sums them again from the store. The attempt
row carries the document's log-likelihood (its `score`), words, bytes and tokens; the run's scores are
word perplexity, byte perplexity and bits per byte over all documents (and per category), summed
before dividing, as lm-eval aggregates them. Lower is better for all three.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from evaluators.core.contract import AttemptKey, Metric
from evaluators.loglik import AttemptExtra
from evaluators.loglik.metrics import ChoiceScore
from evaluators.loglik.prepare import Prepared
from evaluators.models import rolling
from evaluators.store.records import AttemptRow, ScoreRow


def document_numbers(p: Prepared, windows: Sequence[ChoiceScore]) -> dict[str, Any]:
    """A scored document: log-likelihood (nats), tokens predicted, windows, words and bytes."""
    text = p.item.text
    return {"loglikelihood": sum(w.logprob_sum for w in windows), "tokens": sum(w.n_tokens for w in windows),
            "windows": len(windows), "words": rolling.count_words(text), "bytes": rolling.count_bytes(text)}


def attempt_row(p: Prepared, windows: Sequence[ChoiceScore] | None) -> AttemptRow:
    """The document's attempt: `score` is its log-likelihood; no right or wrong."""
    doc = p.item
    if windows is None:
        rejected: AttemptExtra = {AttemptKey.REASON: p.reject}
        return AttemptRow(item_id=doc.id, category=doc.category, status="rejected", extra=rejected)
    numbers = document_numbers(p, windows)
    scored: AttemptExtra = {**numbers}
    return AttemptRow(item_id=doc.id, category=doc.category, status="ok", score=numbers["loglikelihood"],
                      tokens_in=numbers["tokens"], extra=scored)


def report_item(p: Prepared, windows: Sequence[ChoiceScore] | None) -> dict[str, Any]:
    """One `items[]` entry of report.json (and line of partial_results.jsonl)."""
    out: dict[str, Any] = {"id": p.id, "category": p.item.category}
    if windows is None:
        return {**out, "status": "rejected", "reason": p.reject}
    return {**out, "status": "ok", **document_numbers(p, windows), "window_logliks": [w.logprob_sum for w in windows]}


def _group(parts: list[tuple[float, str, int]]) -> dict[str, Any]:
    totals = rolling.Totals.of(parts)
    return {"n": totals.documents, **totals.metrics(),
            "totals": {"loglikelihood": totals.loglik, "words": totals.words, "bytes": totals.bytes,
                       "tokens": totals.tokens}}


def summarize(scored: list[tuple[Prepared, Sequence[ChoiceScore]]], n_rejected: int,
              by_category: bool) -> dict[str, Any]:
    """`{"n", "rejected", <metric>: value, "totals", "categories"}` over the scored documents."""
    if not scored:
        return {"n": 0, "rejected": n_rejected}
    parts = {p.id: (sum(w.logprob_sum for w in ws), p.item.text, sum(w.n_tokens for w in ws)) for p, ws in scored}
    summary = {**_group(list(parts.values())), "rejected": n_rejected}
    if by_category:
        cats = dict.fromkeys(p.item.category for p, _ in scored)
        summary["categories"] = {c: _group([parts[p.id] for p, _ in scored if p.item.category == c]) for c in cats}
    return summary


def score_rows(summary: dict[str, Any], split: str | None = None) -> list[ScoreRow]:
    """`scores` rows: each metric overall, per category and for the split; the rejected count."""
    def rows(scope: str, key: str, group: dict[str, Any]) -> list[ScoreRow]:
        return [ScoreRow(scope=scope, key=key, metric=m, value=group[m], n=group["n"],
                         extra={**group["totals"], "aggregate": "sum over documents, then the ratio (lm-eval)"})
                for m in rolling.METRICS]

    n, rejected = summary["n"], summary["rejected"]
    overall = rows("overall", "", summary) if n else []
    out = [*overall]
    for cat, group in summary.get("categories", {}).items():
        out += rows("category", str(cat), group)
    counted = ScoreRow(scope="overall", key="", metric=Metric.N_REJECTED, value=float(rejected), n=n + rejected)
    out.append(counted)
    if split is not None:
        out += [dataclasses.replace(r, scope="split", key=split) for r in (*overall, counted)]
    return out


def headline(summary: dict[str, Any]) -> str:
    """`word_perplexity 123.4  byte_perplexity 2.345  bits_per_byte 1.229`."""
    if not summary["n"]:
        return "no document could be scored"
    return "  ".join(f"{m} {summary[m]:.4g}" for m in rolling.METRICS)
