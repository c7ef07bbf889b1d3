"""`bananabench publish`: render the store into a static site that works from disk and from a sub-path.

Every link is relative and nothing is fetched at run time: item-level data ships as script files
that pages include, so the site opens over `file://` as well as on GitHub Pages. Pages carry a
Content-Security-Policy that allows only the site's own files (no inline script, no network).
Model-written text is escaped by Jinja's autoescape and inserted with `textContent` in scripts.

The site is built in a temporary folder beside `--out` and swapped in at the end, so a failed
build never leaves half a site; an existing `--out` is replaced only if an earlier publish made it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import datetime as dt
import json
import logging
import os
import resource
import shutil
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from evaluators import __version__
from evaluators.core.atomic import require_writable
from evaluators.core.contract import MESSAGE_KEYS, AttemptKey, RunKey
from evaluators.core.errors import BadInput
from evaluators.core.shipped import shipped
from evaluators.publish import apps, artifacts, compare_data, fmt, incremental, ranks
from evaluators.publish.diff import Diff, diff_models, diff_pairs
from evaluators.publish.links import Links
from evaluators.publish.queries import Queries, exports, itemdata, reference_note
from evaluators.publish.views import Attempt, Leaderboard, RunSummary
from evaluators.store.attachments import sibling
from evaluators.store.store import Store

log = logging.getLogger("bananabench")
# `extra` keys an item row shows as text of their own, with their headings (the rest as one record).
TEXT_KEYS = [(AttemptKey.RAW, "Raw output"), (AttemptKey.REASONING, "Reasoning"),
             *((key, key) for key in MESSAGE_KEYS)]

TEMPLATES = shipped("templates")
MARKER = ".bananabench-site"


@dataclass
class BuildResult:
    path: Path
    pages: int
    files: int
    bytes: int
    seconds: float
    cpu_seconds: float  # all threads; DuckDB's exports and item data run beside the page rendering
    main_thread_cpu_seconds: float
    leaderboard_bytes: int
    timings: dict[str, float] = field(default_factory=dict)
    kept: int = 0  # outputs whose inputs had not changed since the last publish
    removed: int = 0  # files nothing produces any more


def _when(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M UTC")
    return "—" if value is None else str(value)


def _pretty(value: Any, limit: int = 20_000) -> str:
    text = json.dumps(value, indent=2, sort_keys=True, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more characters)"


def _environment(templates: Path):
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        autoescape=True,  # every template, whatever its name: model text is always escaped
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        val=lambda v, metric: fmt.value(metric, v),
        num=lambda v, metric: fmt.number(metric, v),
        pm=lambda s: fmt.half_width(s.metric, s.ci_low, s.ci_high),
        interval=lambda s: fmt.interval(s.metric, s.ci_low, s.ci_high),
        delta=lambda v, metric: fmt.delta(metric, v),
        pval=fmt.p_value,
        metric=fmt.metric_label,
        secs=fmt.seconds,
        when=_when,
        pretty=_pretty,
        statuses=fmt.statuses,
        outcome=fmt.outcome,
        reference=reference_note,
    )
    # Templates read `extra` keys only by their declared names: `a.extra.get(K.TAMPER_FLAGS)` (an unknown name is an
    # error under StrictUndefined, never a silent miss).
    env.globals.update(K=AttemptKey, R=RunKey)
    return env


def _js_literal(obj: Any) -> str:
    """JSON that is also a safe JavaScript literal (U+2028/2029 escaped by ensure_ascii)."""
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":"), default=str, allow_nan=False)


class SiteBuilder:
    """Renders one site into `self.out` (a fresh folder)."""

    def __init__(self, q: Queries, out: Path, *, templates: Path, include_apps: bool, baselines: list[str],
                 io: concurrent.futures.Executor, previous: bool = False):
        self.q = q
        self.io = io
        self._pending: list[concurrent.futures.Future] = []
        self.out = out
        self.env = _environment(templates)
        self.templates = templates
        self.include_apps = include_apps
        self.baselines = baselines
        self.links = Links()
        self.pages = 0
        self.generated = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        self.benchmarks = q.ordered_benchmarks()
        self.timings: dict[str, float] = {}
        self.standings: dict[tuple[str, str], ranks.Standing] = {}
        for run in q.runs():  # fix every run's slug up front: background threads only look them up
            self.links.run_slug(run["run_id"])
        self.item_sets = self.item_runs()
        self.item_columns = q.item_columns(list(self.item_sets))
        self.diffs = self._timed("diffs", self.compute_diffs)
        # What every page depends on besides its own context: software, templates, the menus, the policy.
        site_key = incremental.digest(__version__, duckdb.__version__, incremental.tree_digest(templates), self.benchmarks,
                                      bool(self.links.diffs), sorted(q.reference_models.items()),
                                      q.private, include_apps)
        self.manifest = incremental.Manifest.read(out / MARKER, site_key) if previous else \
            incremental.Manifest({}, site_key)

    # -- output ------------------------------------------------------------------------------

    def write(self, path: str, text: str) -> None:
        """Queue a file for writing on the I/O threads (the GIL is free while they wait on the disk)."""
        self.manifest.add(path)
        self._pending.append(self.io.submit(_write_file, self.out / path, text))

    def flush(self) -> None:
        """Wait for every queued write; the first failure is raised."""
        pending, self._pending = self._pending, []
        for job in pending:
            job.result()

    def render(self, template: str, path: str, **context: Any) -> None:
        """Render a page unless its inputs (template, context, the site's) are those of the last publish."""
        if self.manifest.fresh(self.out, path, template, sorted(context.items())):
            self.emit(template, path, **context)

    def emit(self, template: str, path: str, **context: Any) -> None:
        """Render a page and queue it for writing."""
        root = "../" * path.count("/")
        page = self.env.get_template(template).render(
            root=root, path=path, links=self.links, fmt=fmt, benchmarks=self.benchmarks,
            generated=self.generated, version=__version__, private=self.q.private,
            has_diffs=bool(self.links.diffs), references=self.q.reference_models, **context)
        self.write(path, page)
        self.pages += 1

    def _timed(self, name: str, fn, *args) -> Any:
        t0 = time.perf_counter()
        result = fn(*args)
        self.timings[name] = round(time.perf_counter() - t0, 3)
        return result

    # -- the build ---------------------------------------------------------------------------

    def build(self) -> Leaderboard:
        self._timed("assets", self.copy_assets)
        diffs = self.diffs
        leaderboard = self._timed("leaderboard", self.leaderboard)
        self._timed("benchmarks", self.benchmark_pages)
        self._timed("models+runs", self.model_pages)
        self._timed("gallery", self.gallery)
        self._timed("diff pages", self.diff_pages, diffs)
        self._timed("compare", self.compare, leaderboard)
        files = {t: ([(None, exports.paths(t))] if t not in exports.PER_MODEL else
                     [(m, exports.paths(t, self.links.model_slug(m))) for m in self.q.models()])
                 for t, _ in self.table_counts()}
        self.render("data.html.j2", "data.html", tables=self.table_counts(), files=files, title="Data downloads")
        self.write(".nojekyll", "")
        self.flush()
        return leaderboard

    def copy_assets(self) -> None:
        static = self.templates / "static"
        if not static.is_dir():
            raise BadInput(f"{self.templates}: no static/ folder with the site's CSS and JavaScript")
        shutil.copytree(static, self.out / "assets", dirs_exist_ok=True)
        for path in static.rglob("*"):
            if path.is_file():
                self.manifest.add("assets/" + path.relative_to(static).as_posix())

    def compute_diffs(self) -> list[Diff]:
        diffs = []
        for model, baseline in diff_pairs(self.q, self.baselines):
            try:
                diff = diff_models(self.q, model, baseline)
            except BadInput as exc:
                log.warning("no diff page for %s vs %s: %s", model, baseline, exc)
                continue
            self.links.add_diff(model, baseline)
            diffs.append(diff)
        return diffs

    def leaderboard(self) -> Leaderboard:
        board = self.q.leaderboard()
        self.manifest.cache["ranks"] = {}
        self.standings = ranks.standings(self.q, board, self.manifest.previous_cache.get("ranks"),
                                         self.manifest.cache["ranks"])
        groups: list[tuple[Any, int]] = []
        for col in board.columns:
            if groups and groups[-1][0] is col.benchmark:
                groups[-1] = (col.benchmark, groups[-1][1] + 1)
            else:
                groups.append((col.benchmark, 1))
        held = self.q.reviewable([r["run_id"] for r in self.q.current_runs()])
        self.render("leaderboard.html.j2", "index.html", board=board, groups=groups, held=held,
                    standings=self.standings, title="Leaderboard")
        return board

    def benchmark_pages(self) -> None:
        for bench in self.benchmarks:
            view = self.q.benchmark_view(bench.name)
            standings = [st for (name, _), st in self.standings.items() if name == bench.name]
            self.render("benchmark.html.j2", self.links.bench(bench.name), view=view, bench=bench,
                        standings=standings, st_method=ranks, title=bench.title)

    def model_pages(self) -> None:
        """Model, run and task pages, keyed on the runs' fingerprints (see `Queries.fingerprint`): an unchanged
        model's pages are recognised without building their contexts."""
        for model in self.q.models():
            runs = self.q.runs(model=model)
            keys = {r["run_id"]: (self.q.fingerprint(r["run_id"]), self.links.run(r["run_id"]),
                                  self.links.model(model), self.links.bench(r["benchmark"]),
                                  self.item_sets.get(r["run_id"])) for r in runs}
            diffs = [(b, p) for (m, b), p in self.links.diffs.items() if m == model]
            diffs += [(m, p) for (m, b), p in self.links.diffs.items() if b == model]
            if self.manifest.fresh(self.out, self.links.model(model), "model", list(keys.values()), diffs):
                self.emit("model.html.j2", self.links.model(model), view=self.q.model_view(model), title=model,
                          diffs=diffs, held=self.q.reviewable(list(keys)))
            for run in runs:
                if self.manifest.fresh(self.out, self.links.run(run["run_id"]), "run", keys[run["run_id"]]):
                    self.run_page(self.q.summaries([run])[0])

    def run_page(self, summary: RunSummary) -> None:
        """A run's page and, when its evaluator shows task pages, one page per task (the run page's children: kept
        along with it)."""
        shows = summary.benchmark.presentation
        errors = self.q.errors(summary.run_id)
        attempts = self.q.attempts(summary.run_id) if shows.task_pages else []
        tasks: dict[str, list[Attempt]] = {}
        for att in attempts:
            tasks.setdefault(att.item_id, []).append(att)
        # Read the task pages' files on the I/O threads, render them here.
        groups = list(tasks.values())
        for group, files in zip(groups, self.io.map(lambda g: [self.attempt_files(a) for a in g], groups),
                                strict=True):
            self.task_page(summary, group, files)
        self.emit("run.html.j2", self.links.run(summary.run_id), s=summary, errors=errors, attempts=attempts,
                  task_pages=shows.task_pages, redacted=self.q.redacted(summary.benchmark.name),
                  held=self.q.reviewable([summary.run_id]) if shows.held_attempts else [],
                  items=None if shows.task_pages else _js_literal(self.item_meta(summary)),
                  title=f"{summary.run['model_name']} · {summary.benchmark.title}")

    def attempt_files(self, att: Attempt) -> dict[str, Any]:
        """Screenshots copied into the site, text artifacts and checklist of one attempt (thread-safe)."""
        return {"a": att, "shots": artifacts.copy_screenshots(self.q, self.links, self.out, att),
                "artifacts": [(name, itemdata.pack(text)) for name, text in artifacts.read_artifacts(self.q, att)],
                "checklist": artifacts.read_text(self.q, att.extra.get(AttemptKey.CHECKLIST))}

    def task_page(self, summary: RunSummary, group: list[Attempt], files: list[dict[str, Any]]) -> None:
        """One task's attempts in a run, each a section of the page with all it shows (attempt.html.j2)."""
        run_page, path = self.links.run(summary.run_id), self.links.task(summary.run_id, group[0].item_id)
        self.manifest.child(run_page, path)
        for entry in files:
            entry["app"] = self.publish_app(entry["a"]) if self.include_apps else None
            for child in [*entry["shots"].values(), *([entry["app"]] if entry["app"] else [])]:
                self.manifest.child(run_page, child)
        self.emit("task.html.j2", path, s=summary, item_id=group[0].item_id, attempts=files,
                  title=f"{group[0].item_id} · {summary.run['model_name']}")

    def item_runs(self) -> dict[str, str]:
        """Runs whose item table the site publishes (runs shown as task pages list their attempts server-side
        instead), each mapped to its item set's slug."""
        out = {}
        for run in self.q.runs():
            bench = self.q.benchmark(run["benchmark"])
            if not bench.presentation.task_pages:
                out[run["run_id"]] = itemdata.set_slug(self.links.bench_slug(bench.name), itemdata.set_key(run))
        return out

    def items_files(self, con: Any) -> None:
        """Item sets and every run's item rows as chunk scripts, those whose inputs changed; runs in a background
        thread on its own cursor `con`. A set is rewritten when its runs change, a run's rows when the run or
        the numbering of its set's items does."""
        sets = self.item_sets
        signatures = self.q.item_set_signatures(sets, con=con)
        members: dict[str, list] = {}
        for run_id, slug in sets.items():
            run = self.q.run(run_id)
            members.setdefault(slug, []).append((run_id, run["status"], str(run["finished_at"])))
        stale_sets = {slug for slug, runs in members.items()
                      if any([self.manifest.fresh(self.out, self.links.item_set(slug, k), "set", sorted(runs),
                                                  signatures.get(slug))
                              for k in range(_chunks(signatures.get(slug, (0, 0))[0]))])}
        stale_runs = [run_id for run_id, slug in sets.items()
                      if any([self.manifest.fresh(self.out, self.links.items(run_id, k), "rows", self.q.run(run_id),
                                                  self.item_columns.get(run_id), slug, signatures.get(slug))
                              for k in range(_chunks(self.item_columns.get(run_id, {}).get("rows", 0)))])]
        affected = {r: s for r, s in sets.items() if s in stale_sets or s in {sets[x] for x in stale_runs}}
        if stale_sets:
            wanted = {r: s for r, s in affected.items() if s in stale_sets}
            for slug, chunk, payload in self.q.item_set_chunks(wanted, itemdata.CHUNK, con=con):
                _write_file(self.out / self.links.item_set(slug, chunk), itemdata.script(f"set:{slug}:{chunk}", payload))
        if stale_runs:
            for run_id, chunk, payload in self.q.run_item_chunks(affected, itemdata.CHUNK, only=stale_runs,
                                                                 con=con):
                key = self.links.run_slug(run_id)
                _write_file(self.out / self.links.items(run_id, chunk), itemdata.script(f"items:{key}:{chunk}", payload))

    def item_meta(self, summary: RunSummary) -> dict[str, Any]:
        """What a run page's item table needs before any chunk arrives: sizes, columns, filter choices."""
        meta = self.item_columns.get(summary.run_id, {"rows": 0, "multiAttempt": False, "categories": {}, "show": {}})
        return {**meta, "chunk": itemdata.CHUNK, "key": self.links.run_slug(summary.run_id),
                "set": self.item_sets[summary.run_id], "statuses": summary.status_counts, "textKeys": TEXT_KEYS}

    def publish_app(self, att: Attempt) -> str | None:
        """The app page: our page holding the app, inlined, in a sandboxed frame (no model file is published)."""
        entry = apps.find_entry(self.q, att)
        if entry is None:
            return None
        document = apps.inline_app(entry)
        if document is None:
            return None
        page = self.links.app(att.run_id, att.item_id, att.attempt) + ".html"
        self.render("app.html.j2", page, a=att, document=document,
                    model=self.q.run(att.run_id)["model_name"], title=f"App: {att.item_id}")
        return page

    # -- gallery, diffs, compare -------------------------------------------------------------

    def gallery(self) -> None:
        entries = self.q.gallery()
        cards = []
        for e in entries:
            app = self.links.app(e.run_id, e.attempt.item_id, e.attempt.attempt) + ".html"
            shots = artifacts.copy_screenshots(self.q, self.links, self.out, e.attempt)
            for path in shots.values():
                self.manifest.add(path)
            cards.append({"e": e, "shots": shots,
                          "checklist": artifacts.read_text(self.q, e.attempt.extra.get(AttemptKey.CHECKLIST)),
                          "attempt": self.links.attempt(e.run_id, e.attempt.item_id, e.attempt.attempt),
                          "app": app if app in self.manifest.produced else None})
        tasks: dict[str, list[dict]] = {}
        for card in cards:
            tasks.setdefault(card["e"].attempt.item_id, []).append(card)
        self.render("gallery.html.j2", "gallery.html", tasks=tasks, title="Gallery")

    def diff_pages(self, diffs: list[Diff]) -> None:
        for diff in diffs:
            self.render("diff.html.j2", self.links.diff(diff.model, diff.baseline), d=diff,
                        title=f"{diff.model} vs {diff.baseline}")
        self.render("diffs.html.j2", "diffs/index.html", diffs=diffs, title="Diffs")

    def compare(self, board: Leaderboard) -> None:
        """The compare picker reads precomputed per-benchmark summaries from a script file."""
        data = compare_data.summaries(self.q, self.links, self.standings, board)
        self.write("assets/summaries.js", f"window.BBDATA=window.BBDATA||{{}};BBDATA.summaries={_js_literal(data)};\n")
        self.render("compare.html.j2", "compare.html", title="Compare two models")

    def table_counts(self) -> list[tuple[str, int]]:
        return exports.table_counts(self.q.con)


def _chunks(rows: int) -> int:
    return -(-rows // itemdata.CHUNK)


def _write_file(target: Path, text: str) -> None:
    """Write through a temporary file and a rename: a reader (or a crash) never sees half a page."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(target)


def _prepare_out(out: Path) -> None:
    if out.exists() and not (out / MARKER).exists() and (not out.is_dir() or any(out.iterdir())):
        raise BadInput(f"{out}: exists and was not made by `bananabench publish`; choose another --out")
    if out.resolve() in (Path.cwd().resolve(), Path.home().resolve(), Path("/")):
        raise BadInput(f"{out}: refusing to publish over this folder; choose another --out")


def _swap_in(tmp: Path, out: Path) -> None:
    """Replace `out` by the freshly built `tmp` (two renames; the old site is removed afterwards)."""
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, old)
    os.replace(tmp, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _dir_stats(folder: Path) -> tuple[int, int]:
    files = size = 0
    for path in folder.rglob("*"):
        if path.is_file():
            files += 1
            size += path.stat().st_size
    return files, size


def publish(store: Store, out: str | os.PathLike, *, private: bool = False, include_apps: bool = False,
            baselines: Iterable[str] = (), templates: str | os.PathLike | None = None,
            full: bool = False) -> BuildResult:
    """Publish the site from `store` into `out`; returns what was written and how long it took.

    Over an earlier site of this version, only the outputs whose inputs changed are written and orphans are
    removed (see `incremental`); otherwise, or with `full`, the site is built in a fresh folder beside `out`
    and swapped in at the end."""
    start, cpu_start, main_start = time.perf_counter(), _cpu(), time.thread_time()
    out = Path(out)
    templates = Path(templates) if templates else TEMPLATES
    if not (templates / "leaderboard.html.j2").is_file():
        raise BadInput(f"{templates}: not a templates folder (no leaderboard.html.j2); pass --templates DIR "
                       f"(a checkout's templates/, or those an installed bananabench ships)")
    _prepare_out(out)
    require_writable(out.parent, "--out")  # a full build happens beside the old site, then swaps in
    if out.exists():
        require_writable(out, "--out")
    out.parent.mkdir(parents=True, exist_ok=True)
    incremental_build = not full and (out / MARKER).is_file()
    target = out if incremental_build else Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    try:
        with Queries.open(store, private=private) as q, concurrent.futures.ThreadPoolExecutor(2) as pool, \
                concurrent.futures.ThreadPoolExecutor(4, thread_name_prefix="publish-io") as io:
            builder = SiteBuilder(q, target, templates=templates, include_apps=include_apps,
                                  baselines=list(baselines), io=io, previous=incremental_build)
            # DuckDB work (exports, item data) runs outside the GIL while Python renders the pages.
            jobs = {"exports": pool.submit(exports.write, sibling(q.con), target, builder.manifest, q.runs(),
                                           builder.links.model_slug, private),
                    "items": pool.submit(_timed_job, builder.items_files, sibling(q.con))}
            builder.build()
            t0 = time.perf_counter()
            for name, job in jobs.items():
                builder.timings[name] = job.result()
            builder.timings["waiting for background jobs"] = round(time.perf_counter() - t0, 3)
        removed = builder.manifest.remove_orphans(target, {MARKER}) if incremental_build else 0
        _write_file(target / MARKER, builder.manifest.dump())
        files, size = _dir_stats(target)
        board_bytes = (target / "index.html").stat().st_size
        if not incremental_build:
            _swap_in(target, out)
    except BaseException:
        if not incremental_build:
            with contextlib.suppress(OSError):
                shutil.rmtree(target)
        raise
    return BuildResult(out, builder.pages, files, size, round(time.perf_counter() - start, 3),
                       round(_cpu() - cpu_start, 3), round(time.thread_time() - main_start, 3), board_bytes,
                       builder.timings, kept=builder.manifest.kept, removed=removed)


def _cpu() -> float:
    """CPU seconds this process used so far (all threads): on a shared machine, a steadier figure than wall time."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _timed_job(fn, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return round(time.perf_counter() - t0, 3)
