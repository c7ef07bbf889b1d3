"""A model against a baseline: per benchmark and category deltas with paired tests, and what flipped.

The paired tests are `store.paired`'s (the same `chat compare` uses): items paired on `item_id`,
infrastructure errors dropped on either side, McNemar for verdict metrics, paired bootstrap for Elo
and scores. Delta = model − baseline throughout; `a` is the baseline run, `b` the model's run.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from evaluators.core.contract import Metric
from evaluators.core.errors import BadInput
from evaluators.publish.queries import Queries
from evaluators.publish.views import Benchmark, RunSummary, Score
from evaluators.store.paired import N_RESAMPLES, SEED, PairedItem, TestResult, item_value, paired_test


@dataclass(frozen=True)
class ScopeDiff:
    scope: str
    key: str
    metric: str
    a: Score | None
    b: Score | None
    test: TestResult


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
    flip_metric = metric or Metric.ACCURACY
    for p in pairs:
        if p.a["statuses"] != p.b["statuses"] and (len(p.a["statuses"]) > 1 or bench.presentation.every_status_change):
            diff.changed_status.append(p)
        if not (p.a["n"] and p.b["n"]):
            continue
        va, vb = item_value(p.a, flip_metric), item_value(p.b, flip_metric)
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
