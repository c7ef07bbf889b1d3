"""`bananabench report`: the leaderboard, a model's report, baseline diffs and an all-model comparison
as plain text or markdown, from the same queries (and the same number formatting) as the site."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evaluators.core.contract import ERROR_STATUSES
from evaluators.core.errors import BadInput
from evaluators.publish import fmt
from evaluators.publish.diff import BenchDiff, Diff, diff_models, diff_pairs
from evaluators.publish.queries import Queries
from evaluators.publish.views import Cell, RunSummary, Score

FLIP_LIMIT = 25  # flipped items listed per direction (the site lists them all)


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]
    right: set[int]  # columns aligned right (numbers)


class Writer:
    """Collects headings, paragraphs and tables; renders them as text or markdown."""

    def __init__(self, markdown: bool):
        self.md = markdown
        self.parts: list[str] = []

    def heading(self, text: str, level: int = 1) -> None:
        text = text if self.md else _printable(text)
        if self.md:
            self.parts.append(f"{'#' * level} {_md_escape(text)}")
        else:
            self.parts.append(text + "\n" + ("=" if level == 1 else "-") * len(text) if level <= 2 else text + ":")

    def para(self, text: str) -> None:
        self.parts.append(_md_escape(text) if self.md else _printable(text))

    def table(self, table: Table) -> None:
        if not table.rows:
            return
        if self.md:
            cells = [[_md_cell(c) for c in row] for row in [table.headers, *table.rows]]
            sep = ["---:" if i in table.right else "---" for i in range(len(table.headers))]
            lines = ["| " + " | ".join(r) + " |" for r in (cells[0], sep, *cells[1:])]
        else:
            table = Table([_printable(h) for h in table.headers],
                          [[_printable(str(c)) for c in row] for row in table.rows], table.right)
            widths = [max(len(str(r[i])) for r in [table.headers, *table.rows]) for i in range(len(table.headers))]

            def line(row: Sequence[str]) -> str:
                return "  ".join(str(c).rjust(w) if i in table.right else str(c).ljust(w)
                                 for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip()

            lines = [line(table.headers), "  ".join("-" * w for w in widths), *map(line, table.rows)]
        self.parts.append("\n".join(lines))

    def render(self) -> str:
        return "\n\n".join(self.parts) + "\n"


def _printable(text: str) -> str:
    """Terminal-safe text: control characters (ANSI escapes in a model name or output) shown as \\xNN."""
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" if ord(ch) < 256 else f"\\u{ord(ch):04x}"
                   for ch in text)


def _md_escape(text: str) -> str:
    """Model names and outputs are untrusted: no markdown or HTML of theirs survives."""
    out = []
    for ch in text:
        if ch in "\\`*_{}[]<>()#+!|~":
            out.append("\\" + ch)
        elif not ch.isprintable():
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def _md_cell(text: str) -> str:
    return _md_escape(str(text))


def _value(score: Score | None, *, pm: bool = True) -> str:
    if score is None or score.value is None:
        return "—"
    text = fmt.value(score.metric, score.value)
    if pm and (half := fmt.half_width(score.metric, score.ci_low, score.ci_high)):
        text += f" {half}"
    if score.reportable is False:
        text += " †"
    return text


def _cell(cell: Cell | None) -> str:
    if cell is None:
        return "—"
    return _value(cell.score) + ("" if cell.official else " ◇")


LEGEND = ("Each cell is the model's current run: the latest finished, non-hidden run per benchmark, official runs "
          "preferred. ± half the 95% interval; ◇ non-official run; † not reportable.")


def leaderboard(q: Queries, w: Writer) -> None:
    board = q.leaderboard()
    w.heading("BananaBench leaderboard")
    if not board.rows:
        w.para("No finished runs in the store.")
        return
    headers = ["model"] + [
        f"{c.benchmark.title}{' ' + c.split if c.split else ''} {fmt.metric_label(c.metric)}" for c in board.columns]
    rows = [[r.model] + [_cell(r.cells.get(c.key)) for c in board.columns] for r in board.rows]
    w.table(Table(headers, rows, set(range(1, len(headers)))))
    w.para(LEGEND)


def compare(q: Queries, w: Writer) -> None:
    """One table for all models: every benchmark's headline overall and by category."""
    board = q.leaderboard()
    models = [r.model for r in board.rows]
    w.heading("All models compared")
    if not models:
        w.para("No finished runs in the store.")
        return
    rows = []
    for bench in q.ordered_benchmarks():
        view = q.benchmark_view(bench.name)
        metric = bench.headline_metric
        if not metric:
            continue
        if view.overview.rows and metric in view.overview.keys:
            cells = dict(view.overview.rows)
            rows.append([bench.title, "overall"] + [_cell(cells.get(m, {}).get(metric)) for m in models])
        for table in view.tables:
            if table.metric != metric:
                continue
            cells = dict(table.rows)
            for key in table.keys:
                label = key if table.scope != "split" else f"{key} (split)"
                rows.append([bench.title, label] + [_cell(cells.get(m, {}).get(key)) for m in models])
    w.table(Table(["benchmark", "scope"] + models, rows, set(range(2, 2 + len(models)))))
    w.para(LEGEND)


def model_report(q: Queries, w: Writer, model: str) -> None:
    view = q.model_view(model)
    if not view.runs:
        raise BadInput(f"--model {model!r}: no runs of that model in the store")
    w.heading(f"Report: {model}")
    current = [s for s in view.runs if s.current]
    rows = []
    for s in current:
        h = s.headline()
        counts = ", ".join(f"{k} {v}" for k, v in sorted(s.status_counts.items()) if k not in ERROR_STATUSES)
        rows.append([s.benchmark.title + (f" {s.run['split']}" if s.run["split"] else ""),
                     fmt.metric_label(h.metric) if h else "—", _value(h), str(h.n) if h and h.n is not None else "—",
                     counts or "—", str(s.n_errors), ("" if s.run["official"] else "◇ ") + s.run_id])
    w.table(Table(["benchmark", "metric", "headline", "n", "outcomes", "infra errors", "run"], rows, {2, 3, 5}))
    w.para(LEGEND)
    for s in current:
        _run_section(q, w, s)
    older = [s for s in view.runs if not s.current]
    if older:
        w.heading("Other runs", 2)
        w.table(Table(["run", "benchmark", "status", "official", "headline"],
                      [[s.run_id, s.benchmark.title + (f" {s.run['split']}" if s.run["split"] else ""), s.run["status"],
                        "yes" if s.run["official"] else "no", _value(s.headline())] for s in older], set()))


def _run_section(q: Queries, w: Writer, s: RunSummary) -> None:
    title = s.benchmark.title + (f" · {s.run['split']}" if s.run["split"] else "")
    w.heading(title, 2)
    w.para(f"run {s.run_id} · {'official' if s.run['official'] else 'non-official'} · finished "
           f"{s.run['finished_at']:%Y-%m-%d %H:%M} UTC · backend {s.run['backend'] or '?'}"
           + (f" · server {', '.join(sv['fingerprint'] for sv in s.servers)}" if s.servers else ""))
    overall = [sc for sc in s.overall() if not fmt.is_count(sc.metric)]
    if overall:
        w.table(Table(["metric", "value", "95% interval", "n"],
                      [[fmt.metric_label(sc.metric), _value(sc, pm=False), fmt.interval(sc.metric, sc.ci_low, sc.ci_high)
                        or "—", "—" if sc.n is None else str(sc.n)] for sc in overall], {1, 2, 3}))
    for scope, scores in sorted(s.by_scope().items()):
        metrics = sorted({sc.metric for sc in scores}, key=lambda m: (m != s.benchmark.headline_metric, m))
        keys = sorted({sc.key for sc in scores})
        lookup = {(sc.key, sc.metric): sc for sc in scores}
        w.table(Table([scope] + [fmt.metric_label(m) for m in metrics],
                      [[k] + [_value(lookup.get((k, m))) for m in metrics] for k in keys],
                      set(range(1, len(metrics) + 1))))
    if s.benchmark.presentation.task_pages:
        _task_table(q, w, s)
    errors = q.errors(s.run_id)
    if errors:
        w.para(f"Infrastructure errors ({len(errors)}; excluded from the score, retried by --resume):")
        w.table(Table(["item", "attempt", "message"],
                      [[e.item_id, str(e.attempt), (e.message or "—")[:120]] for e in errors], {1}))


def _task_table(q: Queries, w: Writer, s: RunSummary) -> None:
    """The per-task table (the agent seed's): statuses of every attempt, mean score, grades, stuck reasons."""
    by_task: dict[str, list] = {}
    for att in q.attempts(s.run_id):
        by_task.setdefault(att.item_id, []).append(att)
    rows = []
    for task, atts in sorted(by_task.items()):
        scored = [a.score for a in atts if a.status not in ERROR_STATUSES and a.score is not None]
        grades = [str(a.grade["grade"]) for a in atts if a.grade]
        turns = [a.metrics.get("turns") for a in atts if a.metrics.get("turns") is not None]
        notes = "; ".join([*sorted({a.target_tests for a in atts if a.target_tests}),
                           *sorted({a.message for a in atts if a.message and a.status not in ERROR_STATUSES})])
        rows.append([task, fmt.statuses([a.status for a in atts]),
                     fmt.value("score", sum(scored) / len(scored)) if scored else "—",
                     "/".join(grades) or "—", f"{sum(turns) / len(turns):.0f}" if turns else "—",
                     fmt.seconds(sum(a.wall_s or 0 for a in atts) / len(atts)), notes[:80]])
    w.table(Table(["task", "attempts", "score", "grade", "turns", "wall", "notes"], rows, {2, 4, 5}))


def diff_report(w: Writer, d: Diff) -> None:
    label = f"run {d.baseline}" if d.baseline_kind == "run" else d.baseline
    w.heading(f"{d.model} vs {label}", 2)
    w.para("Δ = model − baseline on the items both runs scored. McNemar (exact) for accuracy, paired bootstrap "
           "for Elo and scores; 95% intervals.")
    rows = []
    for b in d.benches:
        for r in b.rows:
            t = r.test
            ci = fmt.delta_interval(r.metric, t.ci_low, t.ci_high)
            rows.append([b.benchmark.title + (f" {b.split}" if b.split else ""),
                         "overall" if r.scope == "overall" else r.key, fmt.metric_label(r.metric),
                         _value(r.a), _value(r.b), f"{fmt.delta(r.metric, t.delta)} {ci}".strip(), fmt.p_value(t.p_value),
                         str(t.n), t.method + ("" if t.improved is None else f" (+{t.improved}/−{t.regressed})")])
    w.table(Table(["benchmark", "scope", "metric", "baseline", "model", "Δ [95% CI]", "p", "n", "test"], rows,
                  {3, 4, 5, 6, 7}))
    for b in d.benches:
        _flips(w, b)
    if d.only_model or d.only_baseline:
        missing = [f"{x}{'/' + s if s else ''} (model only)" for x, s in d.only_model]
        missing += [f"{x}{'/' + s if s else ''} (baseline only)" for x, s in d.only_baseline]
        w.para("Not compared: " + ", ".join(missing))


def _flips(w: Writer, b: BenchDiff) -> None:
    name = b.benchmark.title + (f" {b.split}" if b.split else "")
    for label, flips in (("improved", b.improved), ("regressed", b.regressed)):
        if flips:
            shown = ", ".join(f.item_id for f in flips[:FLIP_LIMIT])
            more = f" … and {len(flips) - FLIP_LIMIT} more" if len(flips) > FLIP_LIMIT else ""
            w.para(f"{name}: {len(flips)} {label}: {shown}{more}")
    if b.changed_status:
        w.table(Table(["item", "baseline", "model"],
                      [[f.item_id, fmt.statuses(f.a["statuses"]), fmt.statuses(f.b["statuses"])]
                       for f in b.changed_status], set()))


def build_report(q: Queries, *, model: str | None = None, baselines: Sequence[str] = (), compare_all: bool = False,
                 markdown: bool = False) -> str:
    """The report `bananabench report` prints, as one string."""
    w = Writer(markdown)
    if compare_all:
        compare(q, w)
    elif model is not None:
        model_report(q, w, model)
    elif not baselines:
        leaderboard(q, w)
    if baselines:
        pairs = diff_pairs(q, list(baselines), model)
        if not pairs:
            raise BadInput("--baseline: nothing to compare (the baseline is the only model)")
        for m, base in pairs:
            diff_report(w, diff_models(q, m, base))
    return w.render()
