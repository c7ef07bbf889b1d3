"""A model against a baseline: per benchmark and category deltas with paired tests, and what flipped.

Runs are paired item by item (same `item_id`, infrastructure errors dropped on either side), so
a difference is judged against the noise of *these* items rather than two independent intervals:
- accuracy-type metrics with one verdict per item: exact McNemar on the discordant pairs;
- Elo: paired bootstrap over items, refitting the fixed-item Elo of both runs on every resample;
- other item-decomposable metrics (mean score, pass@k, weighted accuracy): paired bootstrap;
- anything else (e.g. PCMD, whose eligibility depends on correctness): deltas without a test.

Delta = model − baseline throughout; `a` is the baseline run, `b` the model's run.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evaluators.core import stats
from evaluators.core.errors import BadInput
from evaluators.publish.queries import Benchmark, PairedItem, Queries, RunSummary, Score

N_RESAMPLES = 2000
SEED = 0
MCNEMAR_METRICS = frozenset({"accuracy", "acc", "acc_norm", "acc_chars"})


@dataclass(frozen=True)
class TestResult:
    """A paired comparison: delta on the paired items, its interval and p-value."""

    method: str
    n: int
    delta: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    improved: int | None = None  # discordant pairs: baseline wrong, model right
    regressed: int | None = None
    note: str | None = None

    @property
    def significant(self) -> bool:
        return self.p_value is not None and not math.isnan(self.p_value) and self.p_value < 0.05


@dataclass(frozen=True)
class ScopeDiff:
    scope: str
    key: str
    metric: str
    a: Score | None
    b: Score | None
    test: TestResult

    @property
    def stored_delta(self) -> float | None:
        if self.a is None or self.b is None or self.a.value is None or self.b.value is None:
            return None
        return self.b.value - self.a.value


@dataclass
class BenchDiff:
    benchmark: Benchmark
    split: str
    a: RunSummary
    b: RunSummary
    rows: list[ScopeDiff]
    improved: list[PairedItem] = field(default_factory=list)
    regressed: list[PairedItem] = field(default_factory=list)
    changed_status: list[PairedItem] = field(default_factory=list)
    only_a: int = 0
    only_b: int = 0
    paired: int = 0

    @property
    def headline(self) -> ScopeDiff | None:
        return next((r for r in self.rows if r.scope == "overall"), None)


@dataclass
class Diff:
    model: str
    baseline: str
    baseline_kind: str  # "model" or "run"
    benches: list[BenchDiff]
    only_model: list[tuple[str, str]]  # (benchmark, split) without a baseline counterpart
    only_baseline: list[tuple[str, str]]


def _verdict(item: dict[str, Any], metric: str) -> bool | None:
    verdict = item["verdicts"].get(metric, item["correct"])
    return None if verdict is None or item["n"] != 1 else bool(verdict)


def _item_value(item: dict[str, Any], metric: str) -> float | None:
    if metric == "pass_at_k":
        return item["group_pass"]
    if metric in MCNEMAR_METRICS and item["n"] == 1:
        verdict = _verdict(item, metric)
        return None if verdict is None else float(verdict)
    return item["score"]


def paired_test(metric: str, pairs: list[PairedItem], *, seed: int = SEED,
                n_resamples: int = N_RESAMPLES) -> TestResult:
    """The paired test that fits `metric`, over items both runs scored (errors excluded)."""
    pairs = [p for p in pairs if p.a["n"] and p.b["n"]]
    if not pairs:
        return TestResult("none", 0, note="no items scored by both runs")
    if metric in MCNEMAR_METRICS or metric.endswith("_accuracy") and metric != "weighted_accuracy":
        verdicts = [(_verdict(p.a, metric), _verdict(p.b, metric)) for p in pairs]
        verdicts = [(a, b) for a, b in verdicts if a is not None and b is not None]
        if verdicts:
            improved = sum(1 for a, b in verdicts if not a and b)
            regressed = sum(1 for a, b in verdicts if a and not b)
            diff = np.array([float(b) - float(a) for a, b in verdicts])
            interval = _mean_bootstrap(diff, seed, n_resamples)
            return TestResult("exact McNemar", len(diff), delta=float(diff.mean()), ci_low=interval.ci_low,
                              ci_high=interval.ci_high, p_value=stats.mcnemar_exact(regressed, improved),
                              improved=improved, regressed=regressed)
    if metric == "elo":
        return _elo_test(pairs, seed=seed, n_resamples=n_resamples)
    if metric == "weighted_accuracy":
        return _weighted_test(pairs, seed=seed, n_resamples=n_resamples)
    if metric in MCNEMAR_METRICS or metric in {"score", "pass_at_k"} or metric.endswith("_accuracy"):
        values = [(_item_value(p.a, metric), _item_value(p.b, metric)) for p in pairs]
        values = [(a, b) for a, b in values if a is not None and b is not None]
        if not values:
            return TestResult("none", 0, note="no item-level values to pair")
        return _from_delta(_mean_bootstrap(np.array([b - a for a, b in values]), seed, n_resamples))
    return TestResult("none", len(pairs), note=f"{metric} has no per-item decomposition; no paired test")


@functools.lru_cache(maxsize=16)
def _counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """Resample counts, shared by every test on n items (deterministic in (n, n_resamples, seed))."""
    counts = stats.resample_counts(n, n_resamples, seed).astype(np.int32)
    counts.flags.writeable = False
    return counts


def _mean_bootstrap(diff: np.ndarray, seed: int, n_resamples: int) -> stats.PairedDelta:
    counts = _counts(len(diff), n_resamples, seed)
    return stats.summarize_resamples(float(diff.mean()), counts @ diff / len(diff), len(diff),
                                     "paired bootstrap (mean over items)")


def _from_delta(d: stats.PairedDelta) -> TestResult:
    return TestResult(d.method, d.n, delta=d.delta, ci_low=d.ci_low, ci_high=d.ci_high, p_value=d.p_value)


def _elo_test(pairs: list[PairedItem], *, seed: int, n_resamples: int) -> TestResult:
    usable = [p for p in pairs if p.a["item_elo"] is not None and _verdict(p.a, "elo") is not None
              and _verdict(p.b, "elo") is not None]
    if len(usable) < len(pairs):
        return TestResult("none", len(pairs), note="items lack extra.item_elo or a single verdict; Elo not refitted")
    items = np.array([p.a["item_elo"] for p in usable], dtype=float)
    weight = np.array([p.a["weight"] if p.a["weight"] is not None else 1.0 for p in usable], dtype=float)
    ya = np.array([_verdict(p.a, "elo") for p in usable])
    yb = np.array([_verdict(p.b, "elo") for p in usable])
    observed = stats.fixed_item_elo(yb, items, weight).rating - stats.fixed_item_elo(ya, items, weight).rating
    w = _counts(len(usable), n_resamples, seed) * weight
    deltas = stats.fixed_item_elo_batch(yb, items, w) - stats.fixed_item_elo_batch(ya, items, w)
    return _from_delta(stats.summarize_resamples(observed, deltas, len(usable), "paired bootstrap (Elo refit)"))


def _weighted_test(pairs: list[PairedItem], *, seed: int, n_resamples: int) -> TestResult:
    rows = [(p.a["score"], p.b["score"], p.a["weight"] or 1.0) for p in pairs
            if p.a["score"] is not None and p.b["score"] is not None]
    if not rows:
        return TestResult("none", 0, note="no item-level values to pair")
    a, b, w = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    counts = _counts(len(rows), n_resamples, seed) * w
    observed = float(np.dot(w, b - a) / w.sum())
    deltas = counts @ (b - a) / counts.sum(axis=1)
    return _from_delta(stats.summarize_resamples(observed, deltas, len(rows), "paired bootstrap (weighted)"))


def _by_key(scores: list[Score], metric: str) -> dict[tuple[str, str], Score]:
    """Scores of one metric keyed ("overall", "") or ("category", key), whatever breakdown scope holds the key."""
    out: dict[tuple[str, str], Score] = {}
    for s in sorted(scores, key=lambda s: s.scope != "category"):
        if s.metric == metric:
            out.setdefault(("overall" if s.scope == "overall" else "category", s.key), s)
    return out


def compare_runs(q: Queries, a: RunSummary, b: RunSummary, *, seed: int = SEED,
                 n_resamples: int = N_RESAMPLES) -> BenchDiff:
    """Paired comparison of run `b` (the model) against run `a` (the baseline) of one benchmark."""
    bench = b.benchmark
    metric = bench.headline_metric
    pairing = q.paired_items(a.run_id, b.run_id)
    pairs = pairing.pairs
    rows = []
    if metric:
        a_scores, b_scores = _by_key(a.scores, metric), _by_key(b.scores, metric)
        rows.append(ScopeDiff("overall", "", metric, a_scores.get(("overall", "")), b_scores.get(("overall", "")),
                              paired_test(metric, pairs, seed=seed, n_resamples=n_resamples)))
        # Breakdown by the attempts' category (a benchmark's categories, cells or subjects); the stored
        # numbers come from whichever non-overall scope has that key.
        by_cat: dict[str, list[PairedItem]] = defaultdict(list)
        for p in pairs:
            if p.category is not None:
                by_cat[p.category].append(p)
        if len(by_cat) > 1:
            for key in sorted(by_cat):
                rows.append(ScopeDiff("category", key, metric, a_scores.get(("category", key)),
                                      b_scores.get(("category", key)),
                                      paired_test(metric, by_cat[key], seed=seed, n_resamples=n_resamples)))
    diff = BenchDiff(bench, b.run["split"], a, b, rows, only_a=pairing.only_a, only_b=pairing.only_b,
                     paired=sum(1 for p in pairs if p.a["n"] and p.b["n"]))
    flip_metric = metric or "accuracy"
    for p in pairs:
        if p.a["statuses"] != p.b["statuses"] and (len(p.a["statuses"]) > 1 or bench.evaluator == "agent"):
            diff.changed_status.append(p)
        if not (p.a["n"] and p.b["n"]):
            continue
        va, vb = _item_value(p.a, flip_metric), _item_value(p.b, flip_metric)
        if va is None or vb is None or va == vb:
            continue
        better = vb > va if bench.higher_is_better else vb < va
        (diff.improved if better else diff.regressed).append(p)
    return diff


def diff_models(q: Queries, model: str, baseline: str, *, seed: int = SEED,
                n_resamples: int = N_RESAMPLES) -> Diff:
    """`model`'s current runs against `baseline` (a model name or a run id), benchmark by benchmark."""
    kind, ref = q.resolve_baseline(baseline)
    mine = {(r["benchmark"], r["split"]): r for r in q.current_runs() if r["model_name"] == model}
    if kind == "run":
        base_run = q.run(ref)
        theirs = {(base_run["benchmark"], base_run["split"]): base_run}
        if (base_run["benchmark"], base_run["split"]) in mine and \
                mine[(base_run["benchmark"], base_run["split"])]["run_id"] == ref:
            raise BadInput(f"--baseline {ref}: that is the model's current run; name an older run or another model")
        mine = {k: v for k, v in mine.items() if k in theirs}
    else:
        theirs = {(r["benchmark"], r["split"]): r for r in q.current_runs() if r["model_name"] == ref}
    if not mine:
        raise BadInput(f"model {model!r} has no finished runs to compare")
    common = sorted(set(mine) & set(theirs), key=lambda k: (_bench_rank(q, k[0]), k))
    if not common:
        raise BadInput(f"{model} and {ref} have no benchmark in common: nothing to pair")
    q.load_outcomes([theirs[k]["run_id"] for k in common])
    q.load_outcomes([mine[k]["run_id"] for k in common])
    summaries = {s.run_id: s for s in q.summaries([mine[k] for k in common] + [theirs[k] for k in common])}
    benches = [compare_runs(q, summaries[theirs[k]["run_id"]], summaries[mine[k]["run_id"]], seed=seed,
                            n_resamples=n_resamples) for k in common]
    return Diff(model, ref, kind, benches, sorted(set(mine) - set(theirs)),
                sorted(set(theirs) - set(mine)) if kind == "model" else [])


def _bench_rank(q: Queries, name: str) -> int:
    order = [b.name for b in q.ordered_benchmarks()]
    return order.index(name) if name in order else len(order)


def diff_pairs(q: Queries, baselines: list[str], model: str | None = None) -> list[tuple[str, str]]:
    """(model, baseline) pairs to compare: `model` (default: every other model but reference runs, or a
    baseline run's own model) against each baseline model or run."""
    pairs: list[tuple[str, str]] = []
    for baseline in baselines:
        kind, ref = q.resolve_baseline(baseline)
        if model is not None:
            if model != ref:
                pairs.append((model, ref))
        elif kind == "run":
            pairs.append((q.run(ref)["model_name"], ref))
        else:  # reference runs (a task's own solution) are not a model to measure against a baseline
            pairs.extend((m, ref) for m in q.models() if m != ref and m not in q.reference_models)
    return list(dict.fromkeys(pairs))
