"""A loglik benchmark from its spec: how choices are scored, and its records as multiple-choice items.

`[scoring]` of a loglik spec:

    metrics = { acc_norm = "mean", acc = "sum" }   # metric name -> choice rule; the first is each item's verdict
    tokenization = "joint"                         # or "separate"
    weighted = false                               # also weighted accuracy (by each item's weight)
    elo = { prior_rating = 1000, prior_weight = 4, scale = 400 }   # fixed-item Elo (items need item_elo)

Choice rules (ties go to the first choice): `sum` the largest summed continuation log-prob, `mean` the
largest mean per continuation token, `chars` the largest per continuation character. Tokenization:
`joint` scores the tokens of context + choice after the context's own tokens (a choice whose boundary
does not fall on a token boundary is rejected, as the base-evals protocol asks); `separate` tokenizes
context and choice apart (Base Bench 1.1's rule).

`[record]` maps `context`, `choices` (a list of strings) and `answer` (the correct choice: its index,
its letter, or one of `choice_labels`); optional `id` (default: a content hash), `category`,
`difficulty`, `weight` and `item_elo`.

`[build]` (optional): how `bananabench loglik build` makes the benchmark's splits from their sources
(see `evaluators/loglik/build.py`); with it, a split is official only when the manifest says it was
built from the pinned source named here:

    [build]
    seed = 42          # random.Random(seed) samples the rows, then each row's extra choices
    sample = 500       # rows per split (a smaller pool is kept whole)
    choices = 4        # choices per item: fewer is dropped, more are subsampled (the answer kept)
    [build.sources.my_split]
    repo = "owner/name"  revision = "<commit>"  split = "test"  format = "hellaswag"  config = "main"
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.core.contract import AttemptKey, Metric
from evaluators.core.errors import BadInput, located
from evaluators.core.records import MappingError, RecordMapper, read_records, select, type_name
from evaluators.core.secrets import is_secret_key
from evaluators.core.spec import BenchmarkSpec, resolve
from evaluators.core.spec_data import DataFile
from evaluators.loglik import basebench
from evaluators.loglik.metrics import RESERVED, RULES, Aggregates, Elo

_METRIC = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
TOKENIZATIONS = ("joint", "separate")
REQUIRED = ("context", "choices", "answer")
OPTIONAL = ("id", "category", "difficulty", "weight", "item_elo", "choice_labels")
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Scoring:
    metrics: dict[str, str]  # metric -> rule, the verdict's first
    tokenization: str
    weighted: bool
    elo: Elo | None

    @property
    def verdict(self) -> str:
        return next(iter(self.metrics))

    def signature(self) -> dict[str, Any]:
        return {"metrics": self.metrics, "tokenization": self.tokenization, "weighted": self.weighted,
                "elo": None if self.elo is None else vars(self.elo)}

    def aggregates(self, by_category: bool) -> Aggregates:
        return Aggregates(tuple(self.metrics), weighted=self.weighted, elo=self.elo, by_category=by_category)


@dataclass(frozen=True)
class Item:
    """One multiple-choice item: the context, its continuations, the correct one's index."""

    id: str
    context: str
    choices: tuple[str, ...]
    label: int
    line: int
    category: str | None = None
    difficulty: str | None = None
    weight: float | None = None
    item_elo: float | None = None


@dataclass(frozen=True)
class Source:
    """Where one split of a built benchmark comes from, and the formatting rule that reads its rows."""

    split: str
    repo: str
    revision: str
    source_split: str
    format: str
    config: str | None = None  # preferred config folder when the repo has several


@dataclass(frozen=True)
class Build:
    """The `[build]` table: the sampling rules and each split's pinned source."""

    seed: int
    sample: int
    choices: int
    sources: dict[str, Source]


@dataclass
class Benchmark:
    """A loglik spec read and checked: what the runner, `validate` and `show` use."""

    spec: BenchmarkSpec
    scoring: Scoring
    build: Build | None = None

    @property
    def metrics(self) -> list[str]:
        """Every overall metric a run reports, the headline's candidates."""
        out = list(self.scoring.metrics)
        if self.scoring.weighted:
            out.append(Metric.WEIGHTED_ACCURACY)
        if self.scoring.elo:
            out.append(Metric.ELO)
        return out


def load_benchmark(name: str) -> Benchmark:
    """A built-in loglik benchmark by id, or a spec file."""
    return parse(resolve(name, "loglik"))


def parse(spec: BenchmarkSpec) -> Benchmark:
    s = spec.scoring
    metrics = s.value("metrics", dict, required=True)
    if not metrics:
        raise s.error("metrics", "name at least one metric")
    for metric, rule in metrics.items():
        if metric in RESERVED:
            raise s.error("metrics", f"{metric!r} is reserved (name the accuracy metrics something else)")
        if not _METRIC.match(metric) or is_secret_key(AttemptKey.verdict(metric)):
            raise s.error("metrics", f"{metric!r}: use lower-case letters, digits and '_', not ending in 'token' "
                                     "(keys so named are masked as secrets)")
        if rule not in RULES:
            raise s.error("metrics", f"{metric}: the rule must be one of {', '.join(RULES)}, not {rule!r}")
    elo = s.section("elo")
    scoring = Scoring(metrics=dict(metrics), tokenization=s.text("tokenization", default="joint",
                                                                 choices=TOKENIZATIONS),
                      weighted=s.flag("weighted"),
                      elo=None if elo is None else Elo(**{k: elo.number(k, default=getattr(Elo, k))
                                                          for k in ("prior_rating", "prior_weight", "scale")}))
    if elo is not None:
        elo.done()
    s.done()
    bench = Benchmark(spec, scoring)
    if spec.headline not in bench.metrics:
        raise spec.error(("headline",), f"{spec.headline!r} is not one of this benchmark's metrics "
                                        f"({', '.join(bench.metrics)})")
    spec.check_record(REQUIRED, OPTIONAL, "loglik")
    for key, setting, needed in (("item_elo", "elo", scoring.elo is not None), ("weight", "weighted", scoring.weighted)):
        if needed and key not in spec.record:
            raise spec.error(("scoring", setting), f"needs record.{key} (map the field that holds it)")
    if spec.official.checks not in (None, basebench.CHECKS):
        raise spec.error(("official", "checks"), f"unknown checks {spec.official.checks!r} (known: {basebench.CHECKS})")
    if spec.build is not None:
        bench.build = _build(spec)
    return bench


def _build(spec: BenchmarkSpec) -> Build:
    from evaluators.loglik.formats import FORMATS

    s = spec.build
    if not spec.data.manifest:
        raise s.error(None, "a built benchmark's data is a folder of splits: give [data] manifest")
    sources = {}
    table = s.section("sources", required=True)
    for split in table.data:
        t = table.section(split)
        sources[split] = Source(split=split, repo=t.text("repo", required=True),
                                revision=t.text("revision", required=True),
                                source_split=t.text("split", required=True),
                                format=t.text("format", required=True, choices=FORMATS),
                                config=t.text("config"))
        t.done()
    if not sources:
        raise table.error(None, "name at least one split ([build.sources.<split>])")
    table.done()
    build = Build(seed=s.integer("seed", required=True), sample=s.integer("sample", required=True, minimum=1),
                  choices=s.integer("choices", default=4, minimum=2), sources=sources)
    s.done()
    return build


def choice_index(value: Any, n: int, labels: list[str] | None) -> int:
    """The answer's position: a label from `labels`, an index, a digit string or a letter."""
    if labels is not None:
        if str(value) not in labels:
            raise ValueError(f"{value!r} is not one of the choice labels {labels}")
        return labels.index(str(value))
    if isinstance(value, bool):
        raise ValueError(f"must be a choice index, letter or label, not {type_name(value)}")
    if isinstance(value, int):
        index = value
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        index = int(value)
    elif isinstance(value, str) and len(value.strip()) == 1 and value.strip().upper() in LETTERS:
        index = LETTERS.index(value.strip().upper())
    else:
        raise ValueError(f"must be a choice index, letter or label, not {value!r}")
    if not 0 <= index < n:
        raise ValueError(f"must be 0 to {n - 1}, not {index}")
    return index


def _item(fields: dict[str, Any], line: int) -> Item:
    def text(key: str, required: bool = True) -> str | None:
        value = fields.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value:
            raise MappingError(key, f"must be a non-empty string, not {type_name(value)}")
        return value

    def number(key: str) -> float | None:
        value = fields.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise MappingError(key, f"must be a finite number, not {value!r}")
        return float(value)

    choices = fields["choices"]
    if not isinstance(choices, (list, tuple)) or len(choices) < 2:
        raise MappingError("choices", f"must be a list of at least two strings, not {type_name(choices)}")
    for k, choice in enumerate(choices):
        if not isinstance(choice, str) or not choice:
            raise MappingError("choices", f"choice {k} must be a non-empty string, not {type_name(choice)}")
    labels = fields.get("choice_labels")
    if labels is not None:
        if not isinstance(labels, (list, tuple)) or len(labels) != len(choices):
            raise MappingError("choice_labels", f"must be a list of {len(choices)} labels")
        labels = [str(x) for x in labels]
    try:
        label = choice_index(fields["answer"], len(choices), labels)
    except ValueError as exc:
        raise MappingError("answer", str(exc)) from None
    context = text("context")
    item_id = fields.get("id")
    if item_id is None:
        from evaluators.core.records import content_id

        item_id = content_id(context, list(choices))
    if isinstance(item_id, bool) or not isinstance(item_id, (str, int)) or not str(item_id).strip():
        raise MappingError("id", f"must be a non-empty string or integer, not {item_id!r}")
    return Item(id=str(item_id), context=context, choices=tuple(choices), label=label, line=line,
                category=text("category", False), difficulty=text("difficulty", False), weight=number("weight"),
                item_elo=number("item_elo"))


@dataclass
class Items:
    """A data file's selected items, and the category table row(s) each category matched (where checked)."""

    items: list[Item]
    category_rows: dict[str, list[str]]


def _seed_checks(bench: Benchmark, path: Path, records: list[tuple[int, dict[str, Any]]]) -> dict[str, list[str]]:
    """The record checks a seed demands beyond what a spec says (`[official] checks`)."""
    if bench.spec.official.checks == basebench.CHECKS:
        basebench.check_records(path, records)
        return basebench.match_categories(path, records, bench.spec.categories)
    return {}


def read_items(bench: Benchmark, data: DataFile) -> Items:
    """Every record of `data` mapped to an item (the first bad one is a BadInput naming its line), duplicates
    refused, the row count checked against the manifest, then the spec's selection."""
    records = read_records(data.path, bench.spec.data.format)
    category_rows = _seed_checks(bench, data.path, records)
    mapper = RecordMapper(bench.spec)
    items, seen = [], {}
    for line, record in records:
        try:
            item = _item(mapper.map(record), line)
        except MappingError as err:
            raise mapper.error(data.path, line, err) from None
        if item.id in seen:
            raise BadInput(located(data.path, line, "id", f"duplicate id {item.id!r} (first on line {seen[item.id]})"))
        seen[item.id] = line
        items.append(item)
    if not items:
        raise BadInput(f"{data.path}: no records")
    data.check_rows(len(records))
    return Items(select(items, bench.spec.select, lambda i: i.category), category_rows)


def official_reasons(bench: Benchmark, items: list[Item], data: DataFile) -> list[str]:
    """Why a run over these items would not be official (empty when it is): data that is not the pinned
    one, and the spec's [official] counts. A split of a built benchmark must also be one of its splits,
    built from the pinned source: a manifest only vouches that the files are the ones it lists, not that
    they are the benchmark."""
    rule = bench.spec.official
    reasons = list(data.notes) if not data.pinned else []
    if bench.build is not None and data.split is not None:
        source = bench.build.sources.get(data.split)
        if source is None:
            return [*reasons, f"{data.split} is not one of the {len(bench.build.sources)} {bench.spec.id} splits"]
        named = data.provenance or {}
        if (named.get("repo"), named.get("revision")) != (source.repo, source.revision):
            where = f"{named.get('repo')}@{named.get('revision')}" if named else "not named in the manifest"
            reasons.append(f"source {where}, not the pinned {source.repo}@{source.revision}")
    if rule.items is not None and len(items) != rule.items:
        reasons.append(f"{len(items)} rows, not the {rule.items} of the official {data.split} split" if data.split
                       else f"{len(items)} examples instead of {rule.items}")
    cats = Counter(i.category for i in items)
    if rule.categories is not None and len(cats) != rule.categories:
        reasons.append(f"{len(cats)} categories instead of {rule.categories}")
    if rule.per_category is not None:
        off = {c: n for c, n in cats.items() if n != rule.per_category}
        if off:
            reasons.append(f"category counts differ from {rule.per_category}: "
                           + ", ".join(f"{c}={n}" for c, n in sorted(off.items(), key=lambda kv: str(kv[0]))))
    if rule.difficulties:
        diffs = Counter(i.difficulty for i in items)
        if {d: diffs.get(d, 0) for d in rule.difficulties} != rule.difficulties:
            reasons.append("difficulty counts " + "/".join(str(diffs.get(d, 0)) for d in rule.difficulties)
                           + " instead of " + "/".join(map(str, rule.difficulties.values())))
    if rule.answers:
        labels = Counter(i.label for i in items)
        if tuple(labels.get(k, 0) for k in range(len(rule.answers))) != rule.answers:
            reasons.append("answer positions " + "/".join(str(labels.get(k, 0)) for k in range(len(rule.answers)))
                           + " instead of " + "/".join(map(str, rule.answers)))
    return reasons


def describe(bench: Benchmark) -> dict[str, Any]:
    """The evaluator's part of `benchmarks show`."""
    shown: dict[str, Any] = {"scoring": bench.scoring.signature(), "metrics": bench.metrics}
    if bench.build is not None:
        shown["build"] = {"seed": bench.build.seed, "sample": bench.build.sample, "choices": bench.build.choices,
                          "sources": {k: {"repo": v.repo, "revision": v.revision, "split": v.source_split,
                                          "format": v.format, **({"config": v.config} if v.config else {})}
                                      for k, v in bench.build.sources.items()}}
    return shown


def load_items(name: str, data: str, splits: list[str] | None = None) -> list[Item]:
    """Every selected item of a benchmark (id or spec file) over `data` (a local copy or hub id), all splits
    in order: for tools and tests that score items outside a run."""
    from evaluators.core.spec_data import locate

    bench = load_benchmark(name)
    return [item for file in locate(bench.spec, data, splits=splits) for item in read_items(bench, file).items]


def validate(bench: Benchmark, data: DataFile) -> tuple[int, list[str]]:
    """Map every record of `data`: (items selected, why a run over them would not be official)."""
    items = read_items(bench, data).items
    return len(items), official_reasons(bench, items, data)
