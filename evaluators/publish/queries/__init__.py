"""Every read the site and `bananabench report` make, in one place, so the two never disagree.

`Queries` holds one read-only connection to the store and answers in plain dataclasses.
It applies the redistribution policy itself: for an `ids-only` benchmark (unless the
caller asked for a private build) item text — predictions, references, raw outputs and
anything else in `attempts.extra` — never leaves this module; ids, categories, statuses,
correctness and numeric metrics do.

Which run a model's cell shows is the store's `current_runs` view: the latest finished,
non-hidden run per (model, benchmark, split), official runs preferred.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from evaluators.core.contract import (
    ERROR_STATUSES,
    HELD,
    SCORED_STATUS,
    AttemptKey,
    BenchmarkKey,
    Metric,
    RunKey,
)
from evaluators.core.errors import BadInput
from evaluators.core.presentation import PLAIN, Presentation
from evaluators.publish.fmt import is_count
from evaluators.publish.queries.items import ItemData
from evaluators.publish.views import (
    Attempt,
    Benchmark,
    BenchmarkView,
    Cell,
    Column,
    GalleryEntry,
    Leaderboard,
    LeaderboardRow,
    ModelView,
    RunSummary,
    Score,
    ScoreTable,
)
from evaluators.store import paired
from evaluators.store.paired import Pairing, natural_key
from evaluators.store.store import DB_NAME, Store

# Overall metrics shown beside a benchmark's headline on the leaderboard when a run has them.
SECONDARY_METRICS = (Metric.PCMD, Metric.MANUAL_GRADE)
# How many runs' per-item outcomes `Queries.item_outcomes` keeps (diffs reuse a baseline's runs).
OUTCOME_CACHE_RUNS = 64


def _loads(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _dict(value: Any) -> dict[str, Any]:
    value = _loads(value)
    return value if isinstance(value, dict) else {}


def reference_note(run: dict[str, Any]) -> str | None:
    """What a reference run is (`runs.extra[RunKey.REFERENCE_RUN]`), or None for a model's run."""
    note = (run.get("extra") or {}).get(RunKey.REFERENCE_RUN)
    return note if isinstance(note, str) and note else None


def safe_relpath(value: Any) -> PurePosixPath | None:
    """A results-relative artifact path from the store, or None if it escapes the results folder."""
    if not isinstance(value, str) or not value or "\x00" in value:
        return None
    path = PurePosixPath(value.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts:
        return None
    return path


class Queries(ItemData):
    """Read-side API over one store; use `Queries.open(store)` as a context manager."""

    def __init__(self, con: Any, root: Path, *, private: bool = False):
        self.con = con
        self.root = Path(root)
        self.private = private
        self._benchmarks: dict[str, Benchmark] | None = None
        self._outcomes: dict[str, dict[str, dict[str, Any]]] = {}

    @classmethod
    @contextlib.contextmanager
    def open(cls, store: Store, *, private: bool = False) -> Iterator[Queries]:
        if not (store.root / DB_NAME).is_file():
            raise BadInput(f"{store.root}: no results database ({DB_NAME}) here; run an evaluator first "
                           f"or pass --results DIR")
        with store.read() as con:
            yield cls(con, store.root, private=private)

    # -- basics ------------------------------------------------------------------------------

    def _rows(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        cur = self.con.execute(sql, params or [])
        columns = [d[0] for d in cur.description]
        return [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]

    def benchmarks(self) -> dict[str, Benchmark]:
        if self._benchmarks is None:
            rows = self._rows("SELECT * FROM benchmarks")
            self._benchmarks = {
                r["benchmark"]: Benchmark(r["benchmark"], r["evaluator"], r["title"] or r["benchmark"], r["version"],
                                          r["policy"], r["headline_metric"], bool(r["higher_is_better"]),
                                          r["description"],
                                          Presentation.from_json(_dict(r["extra"]).get(BenchmarkKey.PRESENTATION)))
                for r in rows
            }
        return self._benchmarks

    def benchmark(self, name: str) -> Benchmark:
        known = self.benchmarks()
        if name in known:
            return known[name]
        # A run whose benchmark row is missing (hand-made store): treat its text as gated, to be safe.
        return Benchmark(name, "?", name, None, "ids-only", None, True, None, PLAIN)

    def redacted(self, benchmark: str) -> bool:
        """True when item text of this benchmark must not be shown."""
        return self.benchmark(benchmark).ids_only and not self.private

    def ordered_benchmarks(self) -> list[Benchmark]:
        return sorted(self.benchmarks().values(),
                      key=lambda b: (b.presentation.rank, b.evaluator, b.title.lower(), b.name))

    # The store's small tables (runs, scores, per-run status counts, errors) are read once in bulk:
    # every DuckDB query costs milliseconds, and a site has thousands of small lookups.

    @functools.cached_property
    def _runs(self) -> dict[str, dict[str, Any]]:
        rows = self._rows("SELECT * FROM runs ORDER BY benchmark, coalesce(split, ''), started_at DESC, run_id")
        return {r["run_id"]: self._decode_run(r) for r in rows}

    @functools.cached_property
    def _current(self) -> list[str]:
        return [r[0] for r in self.con.execute(
            "SELECT run_id FROM current_runs ORDER BY model_name, benchmark, coalesce(split, '')").fetchall()]

    @functools.cached_property
    def _scores(self) -> dict[str, list[Score]]:
        out: dict[str, list[Score]] = defaultdict(list)
        for r in self.con.execute("SELECT * FROM scores ORDER BY run_id, scope, key, metric").fetchall():
            out[r[0]].append(Score(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], _dict(r[8])))
        return dict(out)

    @functools.cached_property
    def _counts(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = defaultdict(dict)
        for run_id, status, n in self.con.execute(
                "SELECT run_id, status, count(*) FROM attempts GROUP BY ALL ORDER BY ALL").fetchall():
            out[run_id][status] = n
        return dict(out)

    @functools.cached_property
    def _verdicts(self) -> dict[str, dict[str, int]]:
        """Right/wrong counts of attempts whose status says only that they were scored (loglik's `ok`)."""
        out: dict[str, dict[str, int]] = defaultdict(dict)
        for run_id, correct, n in self.con.execute(
                "SELECT run_id, correct, count(*) FROM attempts WHERE status = ? AND correct IS NOT NULL "
                "GROUP BY ALL ORDER BY ALL", [SCORED_STATUS]).fetchall():
            out[run_id]["right" if correct else "wrong"] = n
        return dict(out)

    @functools.cached_property
    def _attempt_fingerprints(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = defaultdict(list)
        for run_id, fp in self.con.execute(
                f"SELECT DISTINCT run_id, json_extract_string(extra, '$.{AttemptKey.SERVER_FINGERPRINT}') AS fp "
                f"FROM attempts WHERE CAST(extra AS VARCHAR) LIKE '%{AttemptKey.SERVER_FINGERPRINT}%' AND fp IS NOT NULL ORDER BY ALL").fetchall():
            out[run_id].append(fp)
        return dict(out)

    @functools.cached_property
    def _row_hashes(self) -> dict[str, tuple]:
        """Per run, an order-free hash of its attempt and attempt-metric rows (DuckDB's `hash`, summed in SQL):
        what an incremental publish compares instead of building every page's context."""
        out: dict[str, list] = defaultdict(lambda: [0, 0])
        for i, sql in enumerate((
                "SELECT run_id, sum(hash(item_id, attempt, status, correct, score, prediction, reference, category, "
                "difficulty, wall_s, extra)) FROM attempts GROUP BY run_id",
                "SELECT run_id, sum(hash(item_id, attempt, metric, value)) FROM attempt_metrics GROUP BY run_id")):
            for run_id, h in self.con.execute(sql).fetchall():
                out[run_id][i] = h
        return {k: tuple(v) for k, v in out.items()}

    def fingerprint(self, run_id: str) -> tuple:
        """Everything a run's own pages are made from, cheaply: its row, its rows' hashes, scores, servers,
        whether it is current, and its model's human grades."""
        run = self._runs[run_id]
        return (sorted(run.items()), self._row_hashes.get(run_id), self._scores.get(run_id), run_id in self._current,
                self.server_configs(run), self._grades.get(run["model_name"]))

    @functools.cached_property
    def _grades(self) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for g in self._rows("SELECT * FROM grades ORDER BY model_name, task, attempt"):
            out[g["model_name"]].append(g)
        return dict(out)

    @staticmethod
    def _decode_run(row: dict[str, Any]) -> dict[str, Any]:
        for key in ("artifact", "config", "extra"):
            row[key] = _dict(row.get(key))
        row["split"] = row.get("split") or ""
        return row

    def models(self) -> list[str]:
        """Every model with at least one visible run."""
        names = {r["model_name"] for r in self._runs.values() if not r["hidden"]}
        return sorted(names, key=lambda m: (m.lower(), m))

    @functools.cached_property
    def reference_models(self) -> dict[str, str]:
        """Names whose visible runs are all reference runs (e.g. tasks' own solutions replayed, not a model's
        work) -> what they are, in the evaluator's words; the site marks them so on every page."""
        notes: dict[str, set[str | None]] = defaultdict(set)
        for run in self._runs.values():
            if not run["hidden"]:
                notes[run["model_name"]].add(reference_note(run))
        return {name: next(iter(seen)) for name, seen in notes.items() if None not in seen and len(seen) == 1}

    def current_runs(self, benchmark: str | None = None) -> list[dict[str, Any]]:
        """The leaderboard's runs (the store's `current_runs` view), by model, benchmark and split."""
        runs = [self._runs[i] for i in self._current]
        return [r for r in runs if benchmark is None or r["benchmark"] == benchmark]

    def runs(self, *, model: str | None = None) -> list[dict[str, Any]]:
        """Visible (non-hidden) runs, finished or not, newest first within a benchmark."""
        return [r for r in self._runs.values() if not r["hidden"] and (model is None or r["model_name"] == model)]

    def run(self, run_id: str) -> dict[str, Any] | None:
        return self._runs.get(run_id)

    def scores(self, run_ids: Iterable[str] | None = None, *, scope: str | None = None) -> dict[str, list[Score]]:
        """Score rows grouped by run."""
        ids = self._scores.keys() if run_ids is None else run_ids
        return {i: [s for s in self._scores.get(i, []) if scope is None or s.scope == scope] for i in ids}

    # -- leaderboard -------------------------------------------------------------------------

    def leaderboard(self) -> Leaderboard:
        """One row per model, one column per benchmark (split) headline plus secondary overall metrics."""
        current = self.current_runs()
        wanted = {b.name: [m for m in (b.headline_metric, *SECONDARY_METRICS) if m]
                  for b in self.benchmarks().values()}
        scores = self.scores([r["run_id"] for r in current], scope="overall")
        present: set[tuple[str, str, str]] = set()
        rows: dict[str, LeaderboardRow] = {}
        for run in current:
            row = rows.setdefault(run["model_name"], LeaderboardRow(run["model_name"], {}))
            for s in scores.get(run["run_id"], []):
                if s.key != "" or s.metric not in wanted.get(run["benchmark"], []):
                    continue
                key = (run["benchmark"], run["split"], s.metric)
                present.add(key)
                row.cells[key] = Cell(s, run["run_id"], bool(run["official"]), run["finished_at"], run["split"])
            # A run with no headline number (e.g. an evaluation that failed its own checks) still gets a column.
            headline = self.benchmark(run["benchmark"]).headline_metric
            if headline:
                present.add((run["benchmark"], run["split"], headline))
        columns = []
        for bench in self.ordered_benchmarks():
            splits = sorted({k[1] for k in present if k[0] == bench.name})
            for split in splits:
                for metric in wanted[bench.name]:
                    if (bench.name, split, metric) in present:
                        columns.append(Column(bench, split, metric, metric == bench.headline_metric))
        ordered = sorted(rows.values(), key=lambda r: _rank_key(r, columns))
        with_runs = set(rows)
        others = [m for m in self.models() if m not in with_runs]
        return Leaderboard(columns, ordered, others)

    # -- per-benchmark pages -----------------------------------------------------------------

    def benchmark_view(self, name: str) -> BenchmarkView:
        """Overall numbers and every breakdown (splits, categories, cells, tasks) of one benchmark."""
        bench = self.benchmark(name)
        current = self.current_runs(name)
        scores = self.scores([r["run_id"] for r in current])
        split_runs = any(r["split"] for r in current)
        multi_split = len({r["split"] for r in current}) > 1
        # cells[scope][metric][model][key]; overall numbers of split runs become the "split" scope.
        cells: dict[str, dict[str, dict[str, dict[str, Cell]]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(dict)))
        overall: dict[str, dict[str, Cell]] = defaultdict(dict)
        for run in current:
            for s in scores.get(run["run_id"], []):
                cell = Cell(s, run["run_id"], bool(run["official"]), run["finished_at"], run["split"])
                if s.scope == "overall" and not split_runs:
                    overall[run["model_name"]][s.metric] = cell
                elif s.scope == "overall":
                    cells["split"][s.metric][run["model_name"]][run["split"] or "(none)"] = cell
                else:
                    key = f"{run['split']}: {s.key}" if multi_split else s.key
                    cells[s.scope][s.metric][run["model_name"]][key] = cell
        models = sorted({r["model_name"] for r in current}, key=lambda m: (m.lower(), m))
        metrics = _metric_order({m for per in overall.values() for m in per}, bench.headline_metric)
        overview = ScoreTable("overall", "", metrics, [(m, overall[m]) for m in models if m in overall])
        tables = []
        for scope in sorted(cells, key=_scope_order):
            for metric in _metric_order(cells[scope], bench.headline_metric):
                by_model = cells[scope][metric]
                keys = sorted({k for per in by_model.values() for k in per}, key=natural_key)
                tables.append(ScoreTable(scope, metric, keys, [(m, by_model[m]) for m in models if m in by_model]))
        return BenchmarkView(bench, current, overview, tables)

    # -- model and run pages -----------------------------------------------------------------

    def summaries(self, runs: list[dict[str, Any]]) -> list[RunSummary]:
        current = set(self._current)
        return [RunSummary(r, self.benchmark(r["benchmark"]), r["run_id"] in current,
                           self._counts.get(r["run_id"], {}), self._scores.get(r["run_id"], []),
                           self.server_configs(r), self._verdicts.get(r["run_id"], {})) for r in runs]

    def model_view(self, model: str) -> ModelView:
        order = {b.name: i for i, b in enumerate(self.ordered_benchmarks())}
        runs = sorted(self.runs(model=model), key=lambda r: (order.get(r["benchmark"], len(order)), r["benchmark"],
                                                            r["split"]))
        grades = self._rows("SELECT * FROM grades WHERE model_name = ? ORDER BY task, attempt", [model])
        return ModelView(model, self.summaries(runs), grades)

    @functools.cached_property
    def _server_configs(self) -> dict[str, dict[str, Any]]:
        return {r["fingerprint"]: {**r, "config": _dict(r["config"])}
                for r in self._rows("SELECT * FROM server_configs")}

    def server_configs(self, run: dict[str, Any]) -> list[dict[str, Any]]:
        """Server fingerprints a run used (on the run row or its attempts), with their recorded configs."""
        fingerprints: list[str] = []
        for holder in (run["extra"], run["artifact"], run["config"]):
            for key in (AttemptKey.SERVER_FINGERPRINT, "fingerprint"):
                fp = holder.get(key)
                if isinstance(fp, str) and fp not in fingerprints:
                    fingerprints.append(fp)
        for fp in self._attempt_fingerprints.get(run["run_id"], []):
            if fp not in fingerprints:
                fingerprints.append(fp)
        return [self._server_configs.get(fp, {"fingerprint": fp, "config": {}}) for fp in fingerprints]

    @functools.cached_property
    def _errors(self) -> dict[str, list[tuple]]:
        out: dict[str, list[tuple]] = defaultdict(list)
        for row in self.con.execute(
                "SELECT run_id, item_id, attempt, status, correct, score, prediction, reference, category, difficulty, "
                "wall_s, extra FROM attempts WHERE status IN (SELECT unnest(?)) ORDER BY run_id, item_id, attempt",
                [list(ERROR_STATUSES)]).fetchall():
            out[row[0]].append(row[1:])
        return dict(out)

    def errors(self, run_id: str) -> list[Attempt]:
        """The run's infrastructure errors (never counted as wrong answers)."""
        redact = self.redacted(self._runs[run_id]["benchmark"])
        return [self._attempt(run_id, row, redact, {}, None) for row in self._errors.get(run_id, [])]

    @staticmethod
    def _attempt(run_id: str, row: tuple, redact: bool, metrics: dict[str, float],
                 grade: dict[str, Any] | None) -> Attempt:
        item, attempt, status, correct, score, pred, ref, cat, diff, wall, extra = row
        return Attempt(run_id, item, attempt, status, correct, score, None if redact else pred,
                       None if redact else ref, cat, diff, wall, {} if redact else _dict(extra), metrics, grade)

    def attempts(self, run_id: str) -> list[Attempt]:
        """Attempt rows of a run with their numeric metrics and human grades, redacted by policy."""
        run = self.run(run_id)
        if run is None:
            raise BadInput(f"no run {run_id!r} in the store")
        redact = self.redacted(run["benchmark"])
        rows = self.con.execute(
            "SELECT item_id, attempt, status, correct, score, prediction, reference, category, difficulty, "
            "wall_s, extra FROM attempts WHERE run_id = ? ORDER BY item_id, attempt", [run_id]).fetchall()
        metrics: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
        for item, attempt, metric, value in self.con.execute(
                "SELECT item_id, attempt, metric, value FROM attempt_metrics WHERE run_id = ?", [run_id]).fetchall():
            metrics[(item, attempt)][metric] = value
        grades = {(g["task"], g["attempt"]): g for g in self._rows(
            "SELECT * FROM grades WHERE model_name = ?", [run["model_name"]])}
        return [self._attempt(run_id, row, redact, metrics.get((row[0], row[1]), {}), grades.get((row[0], row[1])))
                for row in rows]

    def reviewable(self, run_ids: list[str]) -> list[tuple[str, Attempt]]:
        """(model, attempt) for the held attempts of these runs and those a person has reviewed (listed apart)."""
        rows = self.con.execute(
            "SELECT a.run_id, a.item_id, a.attempt, a.status, a.correct, a.score, a.prediction, a.reference, "
            "a.category, a.difficulty, a.wall_s, a.extra FROM attempts a JOIN runs r USING (run_id) "
            "LEFT JOIN reviews v USING (run_id, item_id, attempt) WHERE a.run_id IN (SELECT unnest(?)) "
            "AND (a.status = ? OR v.decision IS NOT NULL) ORDER BY r.model_name, a.item_id, a.run_id, a.attempt",
            [list(run_ids), HELD]).fetchall()
        runs = {run_id: self.run(run_id) for run_id in {row[0] for row in rows}}
        return [(runs[row[0]]["model_name"],
                 self._attempt(row[0], row[1:], self.redacted(runs[row[0]]["benchmark"]), {}, None)) for row in rows]

    # -- agent attempts and the gallery ------------------------------------------------------

    def gallery(self) -> list[GalleryEntry]:
        """Attempts with screenshots (frontend tasks) in the current runs, best grade first per task."""
        rows = self.con.execute(
            "SELECT DISTINCT a.run_id FROM attempts a JOIN current_runs c ON c.run_id = a.run_id "
            f"WHERE json_extract(a.extra, '$.{AttemptKey.SCREENSHOTS}') IS NOT NULL ORDER BY a.run_id").fetchall()
        entries = []
        for (run_id,) in rows:
            run = self.run(run_id)
            if run is None or self.redacted(run["benchmark"]):
                continue
            for att in self.attempts(run_id):
                if isinstance(att.extra.get(AttemptKey.SCREENSHOTS), dict):
                    entries.append(GalleryEntry(run["model_name"], run_id, self.benchmark(run["benchmark"]), att))
        entries.sort(key=lambda e: (e.attempt.item_id, e.model.lower(), e.model, e.attempt.attempt))
        return entries

    def resolve(self, relpath: Any) -> Path | None:
        """An artifact path from the store as a file under the results root (None if absent or unsafe)."""
        rel = safe_relpath(relpath)
        if rel is None:
            return None
        path = self.root / rel
        try:
            path.resolve().relative_to(self.root.resolve())
        except (ValueError, OSError):
            return None
        return path if path.exists() else None

    # -- pairs of runs (diffs) ---------------------------------------------------------------

    def resolve_baseline(self, text: str) -> tuple[str, str]:
        """('model', name) or ('run', run_id) for a `--baseline` argument."""
        if text in self._runs:
            if self._runs[text]["hidden"]:
                raise BadInput(f"--baseline {text}: that run is hidden (`bananabench store unhide {text}` first)")
            return ("run", text)
        if text in self.models():
            return ("model", text)
        raise BadInput(f"--baseline {text!r}: no model or run of that name in the store")

    def paired_items(self, run_a: str, run_b: str) -> Pairing:
        """Items both runs scored, with per-run outcomes aggregated over attempts (see `item_outcomes`)."""
        return paired.pair(self.item_outcomes(run_a), self.item_outcomes(run_b))

    def item_outcomes(self, run_id: str) -> dict[str, dict[str, Any]]:
        """`store.paired.item_outcomes` of one run, prediction and reference redacted for ids-only
        benchmarks. Kept for the last runs asked: a baseline's runs are paired with every other model's."""
        if run_id not in self._outcomes:
            self.load_outcomes([run_id])
        self._outcomes[run_id] = self._outcomes.pop(run_id)  # most recently used last
        return self._outcomes[run_id]

    def load_outcomes(self, run_ids: list[str]) -> None:
        """Compute `item_outcomes` of several runs in one pass over the attempts."""
        wanted = [r for r in dict.fromkeys(run_ids) if r not in self._outcomes]
        if not wanted:
            return
        out = paired.item_outcomes(self.con, wanted)
        for run_id, items in out.items():
            if self.redacted(self._runs[run_id]["benchmark"]):
                for item in items.values():
                    item["prediction"] = item["reference"] = None
        self._outcomes.update(out)
        while len(self._outcomes) > max(OUTCOME_CACHE_RUNS, len(wanted)):
            self._outcomes.pop(next(iter(self._outcomes)))


def _rank_key(row: LeaderboardRow, columns: list[Column]) -> tuple:
    """Rows ordered by the first headline column (best first), then by name."""
    for col in columns:
        if col.headline:
            cell = row.cells.get(col.key)
            if cell is None or cell.value is None:
                return (1, 0.0, row.model.lower(), row.model)
            sign = -1 if col.benchmark.higher_is_better else 1
            return (0, sign * cell.value, row.model.lower(), row.model)
    return (1, 0.0, row.model.lower(), row.model)


_SCOPE_ORDER = ("split", "category", "cell", "task")


def _scope_order(scope: str) -> tuple:
    return (_SCOPE_ORDER.index(scope) if scope in _SCOPE_ORDER else len(_SCOPE_ORDER), scope)


def _metric_order(metrics: Any, headline: str | None) -> list[str]:
    """Headline first, then rates and ratings, then counts, each alphabetical."""
    return sorted(metrics, key=lambda m: (m != headline, is_count(m), m))
