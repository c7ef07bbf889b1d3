"""A loglik benchmark from its spec: how choices are scored, and its records as multiple-choice items.

`[scoring]` of a loglik spec:

    metrics = { acc_norm = "mean", acc = "sum" }   # metric name -> choice rule; the first is each item's verdict
    tokenization = "joint"                         # or "separate"
    target_delimiter = " "                         # between a context and its choice (lm-eval's, default " ")
    weighted = false                               # also weighted accuracy (by each item's weight)
    elo = { prior_rating = 1000, prior_weight = 4, scale = 400 }   # fixed-item Elo (items need item_elo)
    kind = "rolling"                               # instead: perplexity of whole documents (no metrics key)

Choice rules (ties go to the first choice): `sum` the largest summed continuation log-prob, `mean` the
largest mean per continuation token, `chars` the largest per character of the choice. Tokenization:
`joint` scores the tokens of context + choice after the context's own tokens (a choice whose boundary
does not fall on a token boundary is rejected, as the base-evals protocol asks); `separate` tokenizes
context and choice apart (Base Bench 1.1's rule). A choice is scored as lm-eval scores it: the
continuation is `target_delimiter` + the choice (the built-in specs' choices carry their own space
and set it to "").

`[record]` maps `context`, `choices` (a list of strings) and `answer` (the correct choice: its index,
its letter, or one of `choice_labels`), or, for one continuation after a different context per choice
(Winogrande), `contexts` (a list) and `continuation` instead of `context` and `choices`; optional `id`
(default: a content hash), `category`, `difficulty`, `weight` and `item_elo`. A `kind = "rolling"`
spec maps `text` (a whole document; optional `id`, `category`) and reports lm-eval's word and byte
perplexity and bits per byte.

`[fewshot]` (see `specs.spec.FewshotSpec`) puts solved examples before each context: the example's
context, the delimiter, its correct choice, then `[fewshot] delimiter`, as lm-eval renders them.

`[build]` (optional): how `bananabench loglik build` makes the benchmark's splits from their sources
(see `evaluators/loglik/sources/build.py`); with it, a split is official only when the manifest says it was
built from the pinned source named here:

    [build]
    seed = 42          # random.Random(seed) samples the rows, then each row's extra choices
    sample = 500       # rows per split (a smaller pool is kept whole)
    choices = 4        # choices per item: fewer is dropped, more are subsampled (the answer kept)
    [build.sources.my_split]
    repo = "owner/name"  revision = "<commit>"  split = "test"  format = "hellaswag"  config = "main"
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.core.contract import AttemptKey, Metric
from evaluators.core.errors import BadInput, located
from evaluators.core.secrets import is_secret_key
from evaluators.loglik import basebench
from evaluators.loglik.items import Item, document_from, item_from
from evaluators.loglik.metrics import RESERVED, RULES, Aggregates, Elo
from evaluators.models import rolling
from evaluators.specs import fewshot
from evaluators.specs.records import MappingError, RecordMapper, read_records, select
from evaluators.specs.spec import BenchmarkSpec, resolve
from evaluators.specs.spec_data import DataFile

log = logging.getLogger("bananabench")
_METRIC = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
TOKENIZATIONS = ("joint", "separate")
KINDS = ("choice", "rolling")
REQUIRED = ("context", "choices", "answer")
PER_CHOICE = ("contexts", "continuation", "answer")  # Winogrande: a context per choice, one continuation
OPTIONAL = ("id", "category", "difficulty", "weight", "item_elo", "choice_labels")
ROLLING = ("text",)


@dataclass(frozen=True)
class Scoring:
    metrics: dict[str, str]  # metric -> rule, the verdict's first (rolling: its three metrics)
    tokenization: str
    weighted: bool
    elo: Elo | None
    target_delimiter: str = ""
    kind: str = "choice"

    @property
    def verdict(self) -> str:
        return next(iter(self.metrics))

    @property
    def rolling(self) -> bool:
        return self.kind == "rolling"

    def signature(self) -> dict[str, Any]:
        """What changes the numbers; keys new since the first specs appear only when set, so that the runs of
        a spec that does not use them keep their signatures."""
        sig: dict[str, Any] = {"metrics": self.metrics, "tokenization": self.tokenization, "weighted": self.weighted,
                               "elo": None if self.elo is None else vars(self.elo)}
        if self.target_delimiter:
            sig["target_delimiter"] = self.target_delimiter
        if self.rolling:
            sig["kind"] = self.kind
        return sig

    def aggregates(self, by_category: bool) -> Aggregates:
        return Aggregates(tuple(self.metrics), weighted=self.weighted, elo=self.elo, by_category=by_category)


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

    def signature(self) -> dict[str, Any]:
        """The scoring part of a run's signature: the scoring rules, and the few-shot rule when there is one."""
        few = self.spec.fewshot
        return {**self.scoring.signature(), **({"fewshot": few.signature()} if few.count else {})}

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


def _rolling(spec: BenchmarkSpec) -> Benchmark:
    """A `kind = "rolling"` spec: documents in, lm-eval's perplexities out; nothing about choices applies."""
    s = spec.scoring
    s.done()
    bench = Benchmark(spec, Scoring(metrics=dict.fromkeys(rolling.METRICS, "rolling"), tokenization="rolling",
                                    weighted=False, elo=None, kind="rolling"))
    if spec.headline not in bench.metrics:
        raise spec.error(("headline",), f"{spec.headline!r} is not one of a rolling benchmark's metrics "
                                        f"({', '.join(bench.metrics)})")
    spec.check_record(ROLLING, ("id", "category"), "rolling loglik")
    if spec.fewshot.count:
        raise spec.error(("fewshot",), "a rolling benchmark scores whole documents: it has no few-shot examples")
    for key in ("checks", "all_scored", "answers", "difficulties"):
        if getattr(spec.official, key):
            raise spec.error(("official", key), "not for a rolling benchmark")
    if spec.build is not None:
        raise spec.error(("build",), "a rolling benchmark has no [build]")
    return bench


def parse(spec: BenchmarkSpec) -> Benchmark:
    s = spec.scoring
    kind = s.text("kind", default="choice", choices=KINDS)
    if kind == "rolling":
        for key in ("metrics", "tokenization", "target_delimiter", "weighted", "elo"):
            if s.has(key):
                raise s.error(key, "not for a rolling benchmark (its metrics are word_perplexity, byte_perplexity "
                                   "and bits_per_byte)")
        return _rolling(spec)
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
                                                          for k in ("prior_rating", "prior_weight", "scale")}),
                      target_delimiter=s.value("target_delimiter", str, default=" "))
    if elo is not None:
        elo.done()
    s.done()
    bench = Benchmark(spec, scoring)
    if spec.headline not in bench.metrics:
        raise spec.error(("headline",), f"{spec.headline!r} is not one of this benchmark's metrics "
                                        f"({', '.join(bench.metrics)})")
    per_choice = "contexts" in spec.record or "continuation" in spec.record
    if per_choice and ("context" in spec.record or "choices" in spec.record):
        raise spec.error(("record", "contexts" if "contexts" in spec.record else "continuation"),
                         "per-choice contexts (contexts, continuation) replace context and choices: map one pair")
    spec.check_record(PER_CHOICE if per_choice else REQUIRED, OPTIONAL, "loglik")
    if per_choice and "choice_labels" in spec.record:
        raise spec.error(("record", "choice_labels"), "with per-choice contexts the answer is the context's index")
    for key, setting, needed in (("item_elo", "elo", scoring.elo is not None), ("weight", "weighted", scoring.weighted)):
        if needed and key not in spec.record:
            raise spec.error(("scoring", setting), f"needs record.{key} (map the field that holds it)")
    if spec.official.checks not in (None, basebench.CHECKS):
        raise spec.error(("official", "checks"), f"unknown checks {spec.official.checks!r} (known: {basebench.CHECKS})")
    if spec.build is not None:
        bench.build = _build(spec)
    return bench


def _build(spec: BenchmarkSpec) -> Build:
    from evaluators.loglik.sources.formats import FORMATS

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


@dataclass
class Items:
    """A data file's selected items (documents for a rolling benchmark), the category table row(s) each
    category matched (where checked), and each item's few-shot text (none for 0-shot)."""

    items: list[Any]
    category_rows: dict[str, list[str]]
    prefixes: dict[str, str] = field(default_factory=dict)
    fewshot_source: dict[str, Any] | None = None  # a separate file or split of examples: its path and SHA-256

    def prefix(self, item_id: str) -> str:
        return self.prefixes.get(item_id, "")


def _seed_checks(bench: Benchmark, path: Path, records: list[tuple[int, dict[str, Any]]]) -> dict[str, list[str]]:
    """The record checks a seed demands beyond what a spec says (`[official] checks`)."""
    if bench.spec.official.checks == basebench.CHECKS:
        basebench.check_records(path, records)
        return basebench.match_categories(path, records, bench.spec.categories)
    return {}


def _mapped(bench: Benchmark, path: Path, records: list[tuple[int, dict[str, Any]]]) -> list[Any]:
    """Every record mapped (the first bad one is a BadInput naming its line), duplicate ids refused."""
    mapper = RecordMapper(bench.spec)
    one = document_from if bench.scoring.rolling else item_from
    items, seen = [], {}
    for line, record in records:
        try:
            item = one(mapper.map(record), line)
        except MappingError as err:
            raise mapper.error(path, line, err) from None
        if item.id in seen:
            raise BadInput(located(path, line, "id", f"duplicate id {item.id!r} (first on line {seen[item.id]})"))
        seen[item.id] = line
        items.append(item)
    if not items:
        raise BadInput(f"{path}: no records")
    return items


def _examples(bench: Benchmark, data: DataFile, own: list[Item]) -> tuple[list[Item], dict[str, Any] | None]:
    """The few-shot pool: the data file's own records, another split of its manifest, or the spec's file."""
    few = bench.spec.fewshot
    if few.split:
        from evaluators.specs.spec_data import read_manifest

        manifest = data.manifest or data.path.parent / bench.spec.data.manifest
        entry = read_manifest(manifest).get(few.split)
        if entry is None:
            raise bench.spec.error(("fewshot", "split"), f"{manifest} lists no split {few.split!r}")
        path = manifest.parent / entry["path"]
    elif few.path:
        path = few.path
        if not path.is_file():
            raise bench.spec.error(("fewshot", "path"), f"{path}: no such file")
    else:
        return own, None
    from evaluators.runs.runs import sha256_file

    digest = sha256_file(path)
    if few.split and digest != entry["sha256"]:
        raise BadInput(located(manifest, None, f"splits.{few.split}.sha256",
                               f"{entry['path']} has SHA-256 {digest}, the manifest says {entry['sha256']}"))
    fmt = bench.spec.data.format if few.split else None
    return _mapped(bench, path, read_records(path, fmt)), {"path": str(path), "sha256": digest}


def _warn_doubled_space(bench: Benchmark, path: Path, items: list[Item]) -> None:
    """lm-eval's check: a delimiter ending in whitespace before choices that start with it scores two spaces."""
    delimiter = bench.scoring.target_delimiter
    if not delimiter[-1:].isspace():
        return
    spaced = [i for i in items if any(c[:1].isspace() for c in i.choices)]
    if spaced:
        log.warning("%s: %d of %d items have choices starting with whitespace, and [scoring] target_delimiter = %r "
                    "puts more before them (%s); set target_delimiter = \"\" if the choices carry their own "
                    "(first: %s, line %d)", path, len(spaced), len(items), delimiter,
                    bench.spec.where("scoring", "target_delimiter"), spaced[0].id, spaced[0].line)


def read_items(bench: Benchmark, data: DataFile) -> Items:
    """Every record of `data` mapped to an item, the row count checked against the manifest, then the spec's
    selection, and each selected item's few-shot examples drawn."""
    records = read_records(data.path, bench.spec.data.format)
    category_rows = _seed_checks(bench, data.path, records)
    items = _mapped(bench, data.path, records)
    data.check_rows(len(records))
    selected = select(items, bench.spec.select, lambda i: i.category)
    out = Items(selected, category_rows)
    if bench.scoring.rolling:
        return out
    _warn_doubled_space(bench, data.path, items)
    few = bench.spec.fewshot
    if few.count:
        pool, out.fewshot_source = _examples(bench, data, items)
        delimiter = bench.scoring.target_delimiter
        drawn = fewshot.draw(bench.spec, pool, selected, lambda i: i.id)
        out.prefixes = {k: few.description + "".join(ex.solved(delimiter) + few.delimiter for ex in examples)
                        for k, examples in drawn.items()}
    return out


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
    scoring = bench.scoring.signature()
    if not bench.scoring.rolling:
        scoring["target_delimiter"] = bench.scoring.target_delimiter
    shown: dict[str, Any] = {"scoring": scoring, "metrics": bench.metrics}
    if bench.build is not None:
        shown["build"] = {"seed": bench.build.seed, "sample": bench.build.sample, "choices": bench.build.choices,
                          "sources": {k: {"repo": v.repo, "revision": v.revision, "split": v.source_split,
                                          "format": v.format, **({"config": v.config} if v.config else {})}
                                      for k, v in bench.build.sources.items()}}
    return shown


def load_items(name: str, data: str, splits: list[str] | None = None) -> list[Item]:
    """Every selected item of a benchmark (id or spec file) over `data` (a local copy or hub id), all splits
    in order: for tools and tests that score items outside a run."""
    from evaluators.specs.spec_data import locate

    bench = load_benchmark(name)
    return [item for file in locate(bench.spec, data, splits=splits) for item in read_items(bench, file).items]


def validate(bench: Benchmark, data: DataFile) -> tuple[int, list[str]]:
    """Map every record of `data`: (items selected, why a run over them would not be official)."""
    items = read_items(bench, data).items
    return len(items), official_reasons(bench, items, data)
