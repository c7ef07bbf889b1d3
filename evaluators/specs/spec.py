"""Benchmark specs: one TOML file declares a benchmark, so adding one needs no code.

A spec says what the benchmark is (id, title, version, evaluator, redistribution policy, headline
metric, description), where its data is (a hub dataset at a pinned revision or a local path;
jsonl, json or parquet; optional SHA-256 or a manifest of splits), how a record becomes an item
(`[record]`: Jinja expressions or templates per item field), which records count (`[select]`),
how it is scored (`[scoring]`, read by its evaluator), which solved examples come before each item
(`[fewshot]`), what makes a run official (`[official]`),
and its category table where it has one. The built-in benchmarks ship as specs in
`evaluators/specs/`; a user passes a file path wherever a benchmark id goes.

TOML, not YAML: the standard library reads it (`tomllib`, no dependency), agent tasks are already
TOML, it has no implicit typing (YAML reads `no` as false and `1.10` as 1.1, both real hazards in
versions, labels and answers), and its literal strings ('''...''') hold Jinja templates unescaped.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput, located
from evaluators.specs.tomlfile import Locator, read_toml
from evaluators.store.schema import POLICIES

BUILTIN_DIR = Path(__file__).resolve().parent  # the built-in specs sit beside this module
EVALUATORS = ("loglik", "chat")
DATA_FORMATS = ("jsonl", "json", "parquet")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")

_MISSING = object()
_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false", list: "a list",
               dict: "a table"}


class Section:
    """One table of a spec file, read key by key: every error names the file, the line and the dotted key,
    and `done()` rejects the keys nobody asked for (a typo is an error, not a silently ignored option)."""

    def __init__(self, data: dict[str, Any], path: tuple[str | int, ...], file: Path, locator: Locator):
        self.data, self.path, self.file, self.locator = data, path, file, locator
        self._used: set[str] = set()

    def dotted(self, key: str | None = None) -> str:
        parts = [str(p) if isinstance(p, str) else f"[{p}]" for p in (*self.path, *([key] if key else []))]
        return ".".join(parts).replace(".[", "[")

    def line(self, key: str | None = None) -> int | None:
        return self.locator.line((*self.path, *([key] if key else [])))

    def error(self, key: str | None, message: str) -> BadInput:
        return BadInput(located(self.file, self.line(key), self.dotted(key) or None, message))

    def has(self, key: str) -> bool:
        return key in self.data

    def value(self, key: str, kinds: type | tuple[type, ...], *, required: bool = False,
              default: Any = None) -> Any:
        self._used.add(key)
        if key not in self.data:
            if required:
                typo = difflib.get_close_matches(key, [k for k in self.data if k not in self._used], n=1)
                if typo:
                    raise self.error(typo[0], f"unknown key; did you mean {key!r}?")
                raise self.error(None, f"missing key {key!r}")
            return default
        value = self.data[key]
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            what = " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)
            raise self.error(key, f"must be {what}, not {_TYPE_NAMES.get(type(value), type(value).__name__)}")
        return value

    def text(self, key: str, *, required: bool = False, default: str | None = None,
             choices: Iterable[str] | None = None) -> str | None:
        value = self.value(key, str, required=required, default=default)
        if value is None:
            return None
        if required and not value.strip():
            raise self.error(key, "must not be empty")
        options = tuple(choices or ())
        if options and value not in options:
            raise self.error(key, f"must be one of {', '.join(options)}, not {value!r}")
        return value

    def integer(self, key: str, *, required: bool = False, default: int | None = None, minimum: int = 0) -> int | None:
        value = self.value(key, int, required=required, default=default)
        if value is not None and value < minimum:
            raise self.error(key, f"must be at least {minimum}, not {value}")
        return value

    def number(self, key: str, *, required: bool = False, default: float | None = None) -> float | None:
        value = self.value(key, (int, float), required=required, default=default)
        return None if value is None else float(value)

    def flag(self, key: str, default: bool = False) -> bool:
        return self.value(key, bool, default=default)

    def texts(self, key: str) -> tuple[str, ...]:
        values = self.value(key, list, default=[])
        for i, v in enumerate(values):
            if not isinstance(v, str) or not v:
                raise self.error(key, f"item {i + 1} must be a non-empty string")
        return tuple(values)

    def section(self, key: str, *, required: bool = False) -> Section | None:
        value = self.value(key, dict, required=required)
        return None if value is None else Section(value, (*self.path, key), self.file, self.locator)

    def sections(self, key: str) -> list[Section]:
        values = self.value(key, list, default=[])
        out = []
        for i, value in enumerate(values):
            if not isinstance(value, dict):
                raise self.error(key, f"item {i + 1} must be a table ([[{self.dotted(key)}]])")
            out.append(Section(value, (*self.path, key, i), self.file, self.locator))
        return out

    def done(self) -> None:
        unknown = [k for k in self.data if k not in self._used]
        if unknown:
            raise self.error(unknown[0], f"unknown key (known here: {', '.join(sorted(self._used))})")


@dataclass(frozen=True)
class DataSpec:
    """Where a benchmark's records come from. `path` (resolved against the spec's folder) or `repo`;
    neither: `--data` is required. `manifest`: a folder whose manifest lists each split's file, SHA-256
    and row count. `files`: glob patterns of the data files (in the repo, or in a `--data` folder)."""

    repo: str | None = None
    revision: str | None = None
    file: str | None = None
    files: tuple[str, ...] = ()
    path: Path | None = None
    format: str | None = None
    sha256: str | None = None
    manifest: str | None = None


@dataclass(frozen=True)
class SelectSpec:
    """Which mapped records are the benchmark's items, in file order: the first N, the first N of each
    category, or N sampled with `random.Random(seed)` (kept in file order)."""

    first: int | None = None
    per_category: int | None = None
    sample: int | None = None
    seed: int = 0


@dataclass(frozen=True)
class FewshotSpec:
    """Solved examples before each item, as lm-eval places them: `count` drawn per item from the benchmark's
    own records (never the item itself), another split of its manifest, or a separate file mapped by the same
    `[record]`; `random` draws with one `random.Random(seed)` over the items in order (lm-eval's sampler and
    its default seed 1234), `first` takes the pool's first ones. `delimiter` goes after each example (lm-eval's
    fewshot_delimiter), `description` before the first. Count 0 (the default) changes nothing."""

    count: int = 0
    path: Path | None = None
    split: str | None = None
    seed: int = 1234
    sampler: str = "random"
    delimiter: str = "\n\n"
    description: str = ""

    def signature(self) -> dict[str, Any]:
        """What the run's signature records (only for a few-shot spec, so 0-shot signatures stay as they were)."""
        return {"count": self.count, "source": str(self.path.name) if self.path else self.split or "own records",
                "seed": self.seed, "sampler": self.sampler, "delimiter": self.delimiter,
                "description": self.description}


SAMPLERS = ("random", "first")


@dataclass(frozen=True)
class OfficialSpec:
    """What an official run needs besides unmodified data (the pinned SHA-256) and default options: the
    expected item, category, difficulty and answer-position counts; `all_scored`: an item that cannot be
    scored makes the run non-official; `checks` names record checks in code that only a seed can demand."""

    items: int | None = None
    categories: int | None = None
    per_category: int | None = None
    difficulties: dict[str, int] = field(default_factory=dict)
    answers: tuple[int, ...] = ()
    all_scored: bool = False
    checks: str | None = None


@dataclass(frozen=True)
class Category:
    """A row of a benchmark's category table: its title, weight and item rating per difficulty."""

    title: str
    weight: float
    item_elo: dict[str, float] = field(default_factory=dict)


@dataclass
class BenchmarkSpec:
    """A parsed, checked spec; `scoring` and `build` are read by the evaluator (see its `spec` module)."""

    id: str
    title: str
    version: str
    evaluator: str
    policy: str
    headline: str
    description: str
    aliases: tuple[str, ...]
    data: DataSpec
    record: dict[str, str]
    select: SelectSpec
    official: OfficialSpec
    categories: tuple[Category, ...]
    lm_eval: tuple[str, ...]
    fewshot: FewshotSpec
    scoring: Section
    build: Section | None
    file: Path
    locator: Locator
    builtin: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return (self.id, *self.aliases)

    def error(self, path: tuple[str, ...], message: str) -> BadInput:
        """A BadInput about the spec key at `path` (`("record", "answer")`), naming its file and line."""
        return BadInput(located(self.file, self.locator.line(path), ".".join(path), message))

    def check_record(self, required: Iterable[str], optional: Iterable[str], evaluator: str) -> None:
        """`[record]` maps every required item field and no field the evaluator does not know."""
        required, known = tuple(required), (*required, *optional)
        for key in self.record:
            if key not in known:
                raise self.error(("record", key), f"not an item field of a {evaluator} benchmark ({', '.join(known)})")
        missing = [k for k in required if k not in self.record]
        if missing:
            raise self.error(("record",), f"missing {missing[0]!r} (needed: {', '.join(required)})")

    def where(self, *path: str) -> str:
        """`spec.toml:12` for a key of the spec (for messages about the data it maps)."""
        line = self.locator.line(path)
        return f"{self.file}:{line}" if line else str(self.file)

    def summary(self) -> dict[str, Any]:
        """What `benchmarks show` prints besides the evaluator's own part."""
        data = {k: (str(v) if isinstance(v, Path) else list(v) if isinstance(v, tuple) else v)
                for k, v in dataclasses.asdict(self.data).items() if v not in (None, ())}
        return {
            "id": self.id, "title": self.title, "version": self.version, "evaluator": self.evaluator,
            "policy": self.policy, "headline": self.headline, "description": self.description,
            "aliases": list(self.aliases), "file": str(self.file), "builtin": self.builtin, "data": data,
            "record": dict(self.record),
            "select": {k: v for k, v in dataclasses.asdict(self.select).items()
                       if v is not None and (k != "seed" or self.select.sample is not None)},
            "official": {k: v for k, v in dataclasses.asdict(self.official).items()
                         if v not in (None, {}, (), False)},
            "categories": [dataclasses.asdict(c) for c in self.categories], "lm_eval": list(self.lm_eval),
            **({"fewshot": self.fewshot.signature()} if self.fewshot.count else {}),
        }


def load_spec(path: str | Path, *, builtin: bool = False) -> BenchmarkSpec:
    """Read and check a spec file (every key; `scoring` and `build` are left to the evaluator)."""
    file = Path(path)
    data, locator = read_toml(file)
    top = Section(data, (), file, locator)
    spec_id = top.text("id", required=True)
    if not _ID.match(spec_id):
        raise top.error("id", f"{spec_id!r}: use letters, digits, '.', '_' and '-' (at most 64, a letter or "
                              "digit first)")
    aliases = top.texts("aliases")
    for alias in aliases:
        if not _ID.match(alias):
            raise top.error("aliases", f"{alias!r} is not a valid name")
    spec = BenchmarkSpec(
        id=spec_id, title=top.text("title", required=True), version=top.text("version", required=True),
        evaluator=top.text("evaluator", required=True, choices=EVALUATORS),
        policy=top.text("policy", default="public", choices=POLICIES),
        headline=top.text("headline", required=True), description=top.text("description", default=""),
        aliases=aliases, data=_data(top.section("data", required=True), file.parent),
        record={}, select=_select(top.section("select")), official=_official(top.section("official")),
        categories=tuple(_category(s) for s in top.sections("categories")), lm_eval=top.texts("lm_eval"),
        fewshot=_fewshot(top.section("fewshot"), file.parent),
        scoring=top.section("scoring") or Section({}, ("scoring",), file, locator), build=top.section("build"),
        file=file, locator=locator, builtin=builtin)
    if spec.fewshot.split and not spec.data.manifest:
        raise spec.error(("fewshot", "split"), "only a benchmark whose data is a manifest of splits has other splits; "
                                               "give path (a file of examples) or leave both out (its own records)")
    record = top.section("record", required=True)
    for key in list(record.data):
        expression = record.text(key, required=True)
        spec.record[key] = expression
    top.done()
    return spec


def _data(s: Section, base: Path) -> DataSpec:
    path = s.text("path")
    data = DataSpec(repo=s.text("repo"), revision=s.text("revision"), file=s.text("file"), files=s.texts("files"),
                    path=(base / path) if path else None, format=s.text("format", choices=DATA_FORMATS),
                    sha256=s.text("sha256"), manifest=s.text("manifest"))
    if data.path and data.repo:
        raise s.error("path", "give either path (a local copy) or repo (a hub dataset), not both")
    if data.revision and not data.repo:
        raise s.error("revision", "a revision needs a repo")
    if data.repo and not (data.file or data.files or data.manifest):
        raise s.error("repo", "a hub dataset needs file (the data file in the repo), files (glob patterns) or "
                              "manifest")
    if data.sha256 and not _SHA256.match(data.sha256):
        raise s.error("sha256", "must be 64 lowercase hex digits")
    s.done()
    return data


def _select(s: Section | None) -> SelectSpec:
    if s is None:
        return SelectSpec()
    select = SelectSpec(first=s.integer("first", minimum=1), per_category=s.integer("per_category", minimum=1),
                        sample=s.integer("sample", minimum=1), seed=s.integer("seed", default=0))
    chosen = [k for k in ("first", "per_category", "sample") if getattr(select, k) is not None]
    if len(chosen) > 1:
        raise s.error(chosen[1], f"choose one of first, per_category and sample (also given: {chosen[0]})")
    if s.has("seed") and select.sample is None:
        raise s.error("seed", "a seed goes with sample")
    s.done()
    return select


def _fewshot(s: Section | None, base: Path) -> FewshotSpec:
    if s is None:
        return FewshotSpec()
    path = s.text("path")
    fewshot = FewshotSpec(count=s.integer("count", required=True), path=(base / path) if path else None,
                          split=s.text("split"), seed=s.integer("seed", default=1234),
                          sampler=s.text("sampler", default="random", choices=SAMPLERS),
                          delimiter=s.value("delimiter", str, default="\n\n"),
                          description=s.value("description", str, default=""))
    if fewshot.path and fewshot.split:
        raise s.error("split", "give either path (a file of examples) or split (another split), not both")
    if s.has("seed") and fewshot.sampler != "random":
        raise s.error("seed", "a seed goes with sampler = \"random\"")
    s.done()
    return fewshot


def _official(s: Section | None) -> OfficialSpec:
    if s is None:
        return OfficialSpec()
    difficulties = s.value("difficulties", dict, default={})
    for name, count in difficulties.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise s.error("difficulties", f"{name}: must be a count")
    answers = s.value("answers", list, default=[])
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in answers):
        raise s.error("answers", "must be counts of each answer position")
    official = OfficialSpec(items=s.integer("items", minimum=1), categories=s.integer("categories", minimum=1),
                            per_category=s.integer("per_category", minimum=1), difficulties=dict(difficulties),
                            answers=tuple(answers), all_scored=s.flag("all_scored"), checks=s.text("checks"))
    s.done()
    return official


def _category(s: Section) -> Category:
    elos = s.value("item_elo", dict, default={})
    for name, elo in elos.items():
        if isinstance(elo, bool) or not isinstance(elo, (int, float)):
            raise s.error("item_elo", f"{name}: must be a number")
    category = Category(title=s.text("title", required=True), weight=s.number("weight", required=True),
                        item_elo={k: float(v) for k, v in elos.items()})
    s.done()
    return category


# -- finding specs ------------------------------------------------------------------------------


def builtin_specs() -> list[BenchmarkSpec]:
    """Every spec shipped in the package, by id."""
    return sorted((load_spec(p, builtin=True) for p in BUILTIN_DIR.glob("*.toml")), key=lambda s: s.id)


def is_spec_path(text: str) -> bool:
    """True when a benchmark argument names a file rather than an id (a `.toml` suffix or a path separator)."""
    return text.endswith(".toml") or "/" in text or Path(text).is_file()


def resolve(name: str, evaluator: str | None = None) -> BenchmarkSpec:
    """A built-in benchmark by id or alias (any case), or a spec file by path; BadInput listing the choices otherwise."""
    if is_spec_path(name):
        spec = load_spec(name)
    else:
        known = builtin_specs()
        spec = next((s for s in known if name.casefold() in {n.casefold() for n in s.names}), None)
        if spec is None:
            names = ", ".join(s.id + (f" ({', '.join(s.aliases)})" if s.aliases else "") for s in known
                              if evaluator is None or s.evaluator == evaluator)
            raise BadInput(f"unknown benchmark {name!r}: give a spec file (.toml) or one of {names}")
    if evaluator is not None and spec.evaluator != evaluator:
        raise BadInput(f"{spec.file}: benchmark {spec.id} is a {spec.evaluator} benchmark, not a {evaluator} one")
    return spec
