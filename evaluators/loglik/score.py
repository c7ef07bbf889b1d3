"""Scoring a run: every prepared item's choices through the backend, each item recorded as soon as its
last choice is in (attempt row, choice rows, a partial_results.jsonl line), resumable.

The store (fed by the core journal, written first) is the record of what is done: on `--resume` the
items it holds are not scored again, and the report's numbers are read back from it.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evaluators.core.contract import VERDICT_METRICS, AttemptKey
from evaluators.core.errors import EvaluationFailure
from evaluators.loglik import AttemptExtra, perplexity, report
from evaluators.loglik.metrics import ChoiceScore, Verdict, pick
from evaluators.loglik.prepare import Prepared
from evaluators.loglik.spec import Benchmark
from evaluators.models.backends.base import Backend, LoglikRequest
from evaluators.runs.progress import Progress
from evaluators.runs.runs import Run, RunSpec, finished_run, run_dir
from evaluators.store import lookups
from evaluators.store.records import AttemptRow, ChoiceRow
from evaluators.store.store import Store

# The item fields a report item and an attempt row carry when the spec maps them.
SHOWN = ("category", "difficulty")


@dataclass
class Outcome:
    """One item after scoring: its choices' log-likelihoods and each metric's pick (none when rejected)."""

    prepared: Prepared
    choices: list[ChoiceScore] | None
    picks: dict[str, int] = field(default_factory=dict)

    @property
    def scored(self) -> bool:
        return self.choices is not None

    def correct(self, metric: str) -> bool:
        return self.picks[metric] == self.prepared.item.label

    def verdict(self, bench: Benchmark) -> Verdict:
        item = self.prepared.item
        return Verdict({m: self.correct(m) for m in bench.scoring.metrics}, category=item.category,
                       weight=1.0 if item.weight is None else item.weight, item_elo=item.item_elo)


def outcome(bench: Benchmark, p: Prepared, choices: list[ChoiceScore] | None) -> Outcome:
    if p.reject is not None or choices is None:
        return Outcome(p, None)
    return Outcome(p, choices, {m: pick(rule, choices, p.item.choices) for m, rule in bench.scoring.metrics.items()})


def report_item(bench: Benchmark, o: Outcome, official: bool) -> dict[str, Any]:
    """One `items[]` entry of report.json, also the line format of partial_results.jsonl: `prediction` and
    `correct` by the verdict metric, `prediction_<metric>` and `correct_<metric>` by each other one."""
    item, verdict = o.prepared.item, bench.scoring.verdict
    others = [m for m in bench.scoring.metrics if m != verdict]
    out: dict[str, Any] = {"id": item.id, **{k: getattr(item, k) for k in SHOWN if k in bench.spec.record},
                           "label": item.label}
    if not o.scored:
        out.update(status="rejected", reason=o.prepared.reject, prediction=None,
                   **{f"prediction_{m}": None for m in others}, correct=None, **{f"correct_{m}": None for m in others})
        return {**out, "choices": [], "official": official}
    out.update(status="ok", prediction=o.picks[verdict], **{f"prediction_{m}": o.picks[m] for m in others},
               correct=o.correct(verdict), **{f"correct_{m}": o.correct(m) for m in others})
    return {**out, "choices": [c.as_dict() for c in o.choices], "official": official}


def attempt_row(bench: Benchmark, o: Outcome) -> AttemptRow:
    """The item's attempt row: the verdict metric's pick as `prediction`, every other metric's pick and verdict
    in `extra` (`prediction_<metric>`, `correct_<metric>`)."""
    p, item, verdict = o.prepared, o.prepared.item, bench.scoring.verdict
    extra: AttemptExtra = {}
    if item.weight is not None:
        extra[AttemptKey.POINT_WEIGHT] = item.weight
    if item.item_elo is not None:
        extra[AttemptKey.ITEM_ELO] = item.item_elo
    shown = {k: getattr(item, k) for k in SHOWN if k in bench.spec.record}
    common = dict(item_id=item.id, reference=str(item.label), tokens_in=p.tokens_in, weight=item.weight, **shown)
    if not o.scored:
        extra[AttemptKey.REASON] = p.reject
        return AttemptRow(status="rejected", extra=extra, **common)
    correct = o.correct(verdict)
    for metric in bench.scoring.metrics:
        if metric != verdict:
            extra.update({f"prediction_{metric}": o.picks[metric], AttemptKey.verdict(metric): o.correct(metric)})
        elif metric not in VERDICT_METRICS:  # a spec's own name: its verdict is `correct`, said so for the site
            extra[AttemptKey.verdict(metric)] = correct
    return AttemptRow(status="ok", correct=correct, score=float(correct), prediction=str(o.picks[verdict]),
                      extra=extra, **common)


Done = Callable[[Prepared, "list[ChoiceScore] | None"], Any]


def score_prepared(run: Run, backend: Backend, prepared: list[Prepared], make_row: Done, on_done: Done,
                   desc: str) -> dict[str, int]:
    """Score every item the run has not done yet; record each one as soon as its last choice is in (the
    row `make_row` gives), then tell `on_done`. Returns which rank scored each item when torchrun's ranks
    shared the work (`models.backends.data_parallel`; the rank is in the attempt's extra too), else nothing."""
    todo = [p for p in prepared if not run.is_done(p.id)]
    with Progress(len(prepared), desc, initial=len(prepared) - len(todo)) as bar:
        for p in todo:
            if p.reject is not None:
                run.record(make_row(p, None))
                on_done(p, None)
                bar.update()
        scorable = [p for p in todo if p.reject is None]
        requests: list[LoglikRequest] = []
        owner: list[tuple[int, int]] = []
        for i, p in enumerate(scorable):
            for k, request in enumerate(p.requests):
                requests.append(request)
                owner.append((i, k))
        filled: list[list[ChoiceScore | None]] = [[None] * len(p.continuations) for p in scorable]
        remaining = [len(p.continuations) for p in scorable]
        greedy: list[list[bool | None]] = [[None] * len(p.continuations) for p in scorable]
        ranks: dict[str, int] = {}
        results = backend.loglikelihood(requests)
        try:
            for index, result in results:
                i, k = owner[index]
                if filled[i][k] is not None:
                    continue
                filled[i][k] = ChoiceScore(float(result.logprob_sum), int(result.n_tokens))
                greedy[i][k] = result.is_greedy
                remaining[i] -= 1
                if remaining[i] == 0:
                    p = scorable[i]
                    choices = [c for c in filled[i] if c is not None]
                    row = make_row(p, choices)
                    scored_by = getattr(backend, "scored_by", None)
                    if scored_by:  # data-parallel: the rank that scored it
                        row = dataclasses.replace(row, extra={**(row.extra or {}),
                                                              AttemptKey.RANK: scored_by[index]})
                        ranks[p.id] = scored_by[index]
                    run.record(row, choices=[ChoiceRow(idx=k2, logprob_sum=c.logprob_sum, n_tokens=c.n_tokens,
                                                       mean_logprob=c.mean_logprob, extra={"is_greedy": greedy[i][k2]})
                                             for k2, c in enumerate(choices)])
                    on_done(p, choices)
                    bar.update()
        finally:
            close = getattr(results, "close", None)
            if callable(close):
                close()  # a data-parallel backend stopped early tells the other ranks
        missing = [scorable[i].id for i, r in enumerate(remaining) if r]
        if missing:
            raise EvaluationFailure(f"the backend returned no result for {len(missing)} items (first: {missing[0]})")
    return ranks


def stored_choices(store: Store, run_id: str) -> dict[str, list[ChoiceScore]]:
    out: dict[str, list[ChoiceScore]] = {}
    for item_id, _idx, lp, n in lookups.choice_logprobs(store, run_id):
        out.setdefault(item_id, []).append(ChoiceScore(lp, n))
    return out


def score_run(run: Run, backend: Backend, bench: Benchmark, prepared: list[Prepared], official: bool,
              desc: str) -> tuple[list[Outcome], dict[str, Any]]:
    """Score what the run still lacks, keeping partial_results.jsonl in step.

    Returns every item's outcome in data order (read back from the store) and this session's timing. On
    resume the partial file is first rewritten from the store.
    """
    stored, timing = _score(run, backend, prepared, lambda p, c: attempt_row(bench, outcome(bench, p, c)),
                            lambda p, c: report_item(bench, outcome(bench, p, c), official), desc)
    return [outcome(bench, p, None if p.reject else stored.get(p.id)) for p in prepared], timing


def score_windows(run: Run, backend: Backend, prepared: list[Prepared],
                  desc: str) -> tuple[dict[str, list[ChoiceScore]], dict[str, Any]]:
    """Score a rolling run's documents (each window stored as a choice): `{document id: its windows}` read back
    from the store, and this session's timing."""
    return _score(run, backend, prepared, perplexity.attempt_row, perplexity.report_item, desc)


def _score(run: Run, backend: Backend, prepared: list[Prepared], make_row: Done, report_line: Done,
           desc: str) -> tuple[dict[str, list[ChoiceScore]], dict[str, Any]]:
    stored = stored_choices(run.store, run.run_id) if run.resumed else {}
    previous = [report_line(p, stored.get(p.id)) for p in prepared
                if run.is_done(p.id) and (p.reject or p.id in stored)]
    todo = sum(1 for p in prepared if not run.is_done(p.id) and not p.reject)
    started = time.monotonic()
    with report.PartialResults(run.path(report.PARTIAL), previous) as partial:
        ranks = score_prepared(run, backend, prepared, make_row, lambda p, c: partial.append(report_line(p, c)), desc)
    elapsed = time.monotonic() - started
    run.flush()
    timing: dict[str, Any] = {"scored_this_session": todo, "score_s": round(elapsed, 3),
                              "items_per_s": round(todo / elapsed, 3) if todo and elapsed > 0 else None}
    if ranks:
        timing["shards"] = shards(backend, ranks)
    return stored_choices(run.store, run.run_id), timing


def shards(backend: Backend, ranks: dict[str, int]) -> list[dict[str, Any]]:
    """This session's data-parallel shards: each rank (host, device) with the items it scored."""
    members = {m["rank"]: m for m in backend.describe_loglik()["data_parallel"]["ranks"]}
    by_rank: dict[int, list[str]] = {}
    for item_id, rank in ranks.items():
        by_rank.setdefault(rank, []).append(item_id)
    return [{**members[rank], "n_items": len(by_rank.get(rank, [])), "items": sorted(by_rank.get(rank, []))}
            for rank in sorted(members)]


def finished_twin(store: Store, spec: RunSpec) -> dict[str, Any] | None:
    """On `--resume`: the run that already finished with this signature (`runs.runs.finished_run`), with its
    report; resuming a multi-split command after an interruption keeps the splits that finished."""
    run = finished_run(store, spec)
    folder = run_dir(store, run) if run else None
    if folder is None or not (folder / report.REPORT).is_file():
        return None
    return {"run_id": run.run_id, "dir": str(folder),
            "report": json.loads((folder / report.REPORT).read_text(encoding="utf-8"))}
