"""Load and validate the loglik datasets: Base Bench 1.1 JSONL and base-evals parquet splits.

Schema errors are fatal and name `file:line: field: message` (BadInput, exit 2) before any run
exists. Whether a Base Bench file is the *official* one (checksum, counts, balance) is not an
error: it decides the run's `official` flag, and every reason it is not is reported.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput, located
from evaluators.core.runs import sha256_file

# -- Base Bench 1.1 ---------------------------------------------------------------------------

BASE_BENCH = "base-bench"
BASE_BENCH_TITLE = "BananaMind Base Bench 1.1"
BASE_BENCH_VERSION = "1.1"
BASE_BENCH_REPO = "BananaMind/BananaMind-Base-Bench-1.1"
BASE_BENCH_FILE = "data/test.jsonl"
OFFICIAL_SHA256 = "2f563bb46df778ca494fa20f994a8d3045d4c51fbbffeee433764e2813abea21"
DIFFICULTIES = ("easy", "medium", "hard")
DIFFICULTY_WEIGHTS = {"easy": 1.0, "medium": 1.5, "hard": 2.25}


@dataclass(frozen=True)
class CategoryRow:
    """One row of the seed's composition table. Category *names* come from the data."""

    title: str
    weight: float
    item_elo: dict[str, int]


CATEGORY_TABLE: tuple[CategoryRow, ...] = (
    CategoryRow("Language Completion", 1.00, {"easy": 750, "medium": 850, "hard": 1000}),
    CategoryRow("Commonsense", 1.10, {"easy": 800, "medium": 900, "hard": 1050}),
    CategoryRow("World Knowledge", 1.10, {"easy": 800, "medium": 900, "hard": 1050}),
    CategoryRow("Context Tracking", 1.20, {"easy": 850, "medium": 950, "hard": 1100}),
    CategoryRow("Quantitative", 1.30, {"easy": 900, "medium": 1000, "hard": 1150}),
    CategoryRow("Logical Reasoning", 1.35, {"easy": 950, "medium": 1050, "hard": 1200}),
    CategoryRow("Code Completion", 1.40, {"easy": 950, "medium": 1050, "hard": 1200}),
)
OFFICIAL_TOTAL = 350
OFFICIAL_PER_CATEGORY = 50
OFFICIAL_DIFFICULTY_COUNTS = {"easy": 117, "medium": 117, "hard": 116}
OFFICIAL_LABEL_COUNTS = (88, 88, 87, 87)
N_CHOICES = 4

# field -> (accepted python types, description used in errors)
_BB_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "id": ((str,), "a string"),
    "version": ((str,), "a string"),
    "category": ((str,), "a string"),
    "difficulty": ((str,), "a string"),
    "category_weight": ((int, float), "a number"),
    "difficulty_weight": ((int, float), "a number"),
    "item_elo": ((int, float), "a number"),
    "context": ((str,), "a string"),
    "continuations": ((list,), "a list"),
    "label": ((int,), "an integer"),
    "score_mode": ((str,), "a string"),
    "tags": ((list,), "a list"),
}


@dataclass(frozen=True)
class BaseBenchItem:
    id: str
    category: str
    difficulty: str
    category_weight: float
    difficulty_weight: float
    item_elo: float
    context: str
    continuations: tuple[str, ...]
    label: int
    tags: tuple[str, ...]
    line: int

    @property
    def point_weight(self) -> float:
        return self.category_weight * self.difficulty_weight


@dataclass
class BaseBenchData:
    path: Path
    sha256: str
    items: list[BaseBenchItem]
    # category name -> titles of the seed's table rows it matches (two rows share weights and Elos)
    category_rows: dict[str, list[str]] = field(default_factory=dict)
    source: str | None = None  # hub repo id (and revision) when downloaded

    def official_reasons(self, limit: int | None = None) -> list[str]:
        """Why a run over this data would not be official (empty when it is)."""
        reasons = []
        if self.sha256 != OFFICIAL_SHA256:
            reasons.append(f"data SHA-256 {self.sha256[:12]}… is not the official {OFFICIAL_SHA256[:12]}…")
        if len(self.items) != OFFICIAL_TOTAL:
            reasons.append(f"{len(self.items)} examples instead of {OFFICIAL_TOTAL}")
        cats = Counter(i.category for i in self.items)
        if len(cats) != len(CATEGORY_TABLE):
            reasons.append(f"{len(cats)} categories instead of {len(CATEGORY_TABLE)}")
        off = {c: n for c, n in cats.items() if n != OFFICIAL_PER_CATEGORY}
        if off:
            reasons.append("category counts differ from 50: "
                           + ", ".join(f"{c}={n}" for c, n in sorted(off.items())))
        diffs = Counter(i.difficulty for i in self.items)
        if {d: diffs.get(d, 0) for d in DIFFICULTIES} != OFFICIAL_DIFFICULTY_COUNTS:
            reasons.append("difficulty counts " + "/".join(str(diffs.get(d, 0)) for d in DIFFICULTIES)
                           + " instead of 117/117/116")
        labels = Counter(i.label for i in self.items)
        if tuple(labels.get(k, 0) for k in range(N_CHOICES)) != OFFICIAL_LABEL_COUNTS:
            reasons.append("answer positions " + "/".join(str(labels.get(k, 0)) for k in range(N_CHOICES))
                           + " instead of 88/88/87/87")
        if limit is not None and limit < len(self.items):
            reasons.append(f"--limit {limit}")
        return reasons


def _read_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of each non-blank line; invalid UTF-8 names the line and byte."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BadInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    lines = []
    for number, chunk in enumerate(raw.split(b"\n"), start=1):
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadInput(located(path, number, None, f"not valid UTF-8 (byte {exc.start + 1} of the line)")) from None
        if text.strip():
            lines.append((number, text.rstrip("\r")))
    return lines


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "an object", type(None): "null"}.get(type(value), type(value).__name__)


def _check_type(path: Path, line: int, name: str, value: Any) -> None:
    types, what = _BB_FIELDS[name]
    if isinstance(value, bool) or not isinstance(value, types):
        raise BadInput(located(path, line, name, f"must be {what}, not {_type_name(value)}"))
    if isinstance(value, float) and not math.isfinite(value):
        raise BadInput(located(path, line, name, "must be finite"))


def _parse_base_bench_record(path: Path, line: int, text: str) -> BaseBenchItem:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(located(path, line, None, f"invalid JSON ({exc.msg} at column {exc.colno})")) from None
    if not isinstance(record, dict):
        raise BadInput(located(path, line, None, f"a record must be a JSON object, not {_type_name(record)}"))
    missing = [k for k in _BB_FIELDS if k not in record]
    if missing:
        raise BadInput(located(path, line, missing[0], "missing field"))
    unknown = sorted(set(record) - set(_BB_FIELDS))
    if unknown:
        raise BadInput(located(path, line, unknown[0], "unknown field (Base Bench 1.1 records have "
                                                       + ", ".join(_BB_FIELDS) + ")"))
    for name in _BB_FIELDS:
        _check_type(path, line, name, record[name])
    if not record["id"].strip():
        raise BadInput(located(path, line, "id", "must not be empty"))
    if record["version"] != BASE_BENCH_VERSION:
        raise BadInput(located(path, line, "version", f"must be {BASE_BENCH_VERSION!r}, not {record['version']!r}"))
    if not record["category"].strip():
        raise BadInput(located(path, line, "category", "must not be empty"))
    difficulty = record["difficulty"]
    if difficulty not in DIFFICULTIES:
        raise BadInput(located(path, line, "difficulty", f"must be one of {', '.join(DIFFICULTIES)}, not {difficulty!r}"))
    if not math.isclose(record["difficulty_weight"], DIFFICULTY_WEIGHTS[difficulty]):
        raise BadInput(located(path, line, "difficulty_weight",
                               f"must be {DIFFICULTY_WEIGHTS[difficulty]} for {difficulty} items, "
                               f"not {record['difficulty_weight']}"))
    if not record["context"]:
        raise BadInput(located(path, line, "context", "must not be empty"))
    conts = record["continuations"]
    if len(conts) != N_CHOICES:
        raise BadInput(located(path, line, "continuations", f"must hold {N_CHOICES} continuations, not {len(conts)}"))
    for k, cont in enumerate(conts):
        where = f"continuations[{k}]"
        if not isinstance(cont, str):
            raise BadInput(located(path, line, where, f"must be a string, not {_type_name(cont)}"))
        if not cont[:1].isspace():
            raise BadInput(located(path, line, where, "must begin with whitespace (the token boundary)"))
        if not cont.strip():
            raise BadInput(located(path, line, where, "must contain more than whitespace"))
    if not 0 <= record["label"] < N_CHOICES:
        raise BadInput(located(path, line, "label", f"must be 0 to {N_CHOICES - 1}, not {record['label']}"))
    if record["score_mode"] != "mean_logprob":
        raise BadInput(located(path, line, "score_mode", f"must be 'mean_logprob', not {record['score_mode']!r}"))
    for k, tag in enumerate(record["tags"]):
        if not isinstance(tag, str):
            raise BadInput(located(path, line, f"tags[{k}]", f"must be a string, not {_type_name(tag)}"))
    return BaseBenchItem(
        id=record["id"], category=record["category"], difficulty=difficulty,
        category_weight=float(record["category_weight"]), difficulty_weight=float(record["difficulty_weight"]),
        item_elo=float(record["item_elo"]), context=record["context"], continuations=tuple(conts),
        label=record["label"], tags=tuple(record["tags"]), line=line,
    )


def _match_categories(path: Path, items: list[BaseBenchItem]) -> dict[str, list[str]]:
    """Each category must match one row of the seed's table (weight and all its item Elos)."""
    by_cat: dict[str, list[BaseBenchItem]] = {}
    for item in items:
        by_cat.setdefault(item.category, []).append(item)
    matches: dict[str, list[str]] = {}
    for cat, members in by_cat.items():
        first = members[0]
        rows = [r for r in CATEGORY_TABLE if math.isclose(r.weight, first.category_weight)]
        if not rows:
            raise BadInput(located(path, first.line, "category_weight",
                                   f"{first.category_weight} matches no Base Bench 1.1 category weight "
                                   f"({', '.join(f'{r.weight:.2f}' for r in CATEGORY_TABLE)})"))
        for item in members:
            if not math.isclose(item.category_weight, first.category_weight):
                raise BadInput(located(path, item.line, "category_weight",
                                       f"{item.category_weight} differs from {first.category_weight} on line "
                                       f"{first.line} for category {cat!r}"))
            fitting = [r for r in rows if math.isclose(r.item_elo[item.difficulty], item.item_elo)]
            if not fitting:
                expected = sorted({r.item_elo[item.difficulty] for r in rows})
                raise BadInput(located(path, item.line, "item_elo",
                                       f"{item.item_elo:g} is not the {item.difficulty} item Elo of a category "
                                       f"with weight {first.category_weight} ({', '.join(map(str, expected))})"))
            rows = fitting
        matches[cat] = [r.title for r in rows]
    # Categories sharing a table row signature must not outnumber the rows that carry it.
    by_rows: dict[tuple[str, ...], list[str]] = {}
    for cat, titles in matches.items():
        by_rows.setdefault(tuple(titles), []).append(cat)
    for titles, cats in by_rows.items():
        if len(cats) > len(titles):
            extra = by_cat[cats[len(titles)]][0]
            raise BadInput(located(path, extra.line, "category",
                                   f"{extra.category!r} is one category too many with weight "
                                   f"{extra.category_weight} (Base Bench 1.1 has {len(titles)}: "
                                   f"{', '.join(titles)}; this file also has {', '.join(map(repr, cats[:len(titles)]))})"))
    return matches


def resolve_base_bench_file(location: str | os.PathLike) -> Path:
    """A local copy: the JSONL file itself, or a folder holding data/test.jsonl (or test.jsonl)."""
    path = Path(location)
    if path.is_file():
        return path
    if path.is_dir():
        for candidate in (path / BASE_BENCH_FILE, path / "test.jsonl"):
            if candidate.is_file():
                return candidate
        raise BadInput(f"{path}: no {BASE_BENCH_FILE} (or test.jsonl) in this folder")
    raise BadInput(f"{path}: no such file or folder")


def load_base_bench(location: str | os.PathLike) -> BaseBenchData:
    """Read and validate every record; raise BadInput on the first schema error."""
    path = resolve_base_bench_file(location)
    items: list[BaseBenchItem] = []
    seen: dict[str, int] = {}
    for line, text in _read_lines(path):
        item = _parse_base_bench_record(path, line, text)
        if item.id in seen:
            raise BadInput(located(path, line, "id", f"duplicate id {item.id!r} (first on line {seen[item.id]})"))
        seen[item.id] = line
        items.append(item)
    if not items:
        raise BadInput(f"{path}: no records")
    rows = _match_categories(path, items)
    return BaseBenchData(path=path, sha256=sha256_file(path), items=items, category_rows=rows)


# -- base-evals ----------------------------------------------------------------------------------

BASE_EVALS = "base-evals"
BASE_EVALS_TITLE = "base-evals (0-shot, 4-choice)"
MANIFEST = "manifest.json"
MANIFEST_FORMAT = "bananabench.base-evals.manifest/1"
# What the base-evals source defines: seven splits, each built from a hub dataset at a pinned revision
# (split -> repo, revision, source split), with 500 rows (OpenBookQA's full test set is 500 rows too).
BASE_EVALS_SOURCES: dict[str, tuple[str, str, str]] = {
    "tiny_arithmark_2_0": ("AxiomicLabs/ArithMark-2.0", "5bd986c7305dcccec88432d630aae1ac9280a71f", "train"),
    "tiny_arithmark_3_0": ("AxiomicLabs/Arithmark-3.0", "6f6e59dd9b7e2c63455f7af7f838f9ecc3d0a746", "train"),
    "tiny_hellaswag": ("Rowan/hellaswag", "218ec52e09a7e7462a5400043bb9a69a41d06b76", "validation"),
    "tiny_logicmark": ("AxiomicLabs/LogicMark", "e357c145b63fb4a96813bdbb5b07a62fdb97d958", "train"),
    "tiny_openbookqa": ("allenai/openbookqa", "388097ea7776314e93a529163e0fea805b8a6454", "test"),
    "tiny_pythonio": ("XiangPan/pythonio-mc", "a85256a18bccaaa3d66d9bf86247436948b15353", "test"),
    "tiny_truthfulqa": ("EleutherAI/truthful_qa_mc", "b6468d07f67cdd1ba48292eb55a515b8a97d02ea", "validation"),
}
BASE_EVALS_SPLITS = tuple(BASE_EVALS_SOURCES)
OFFICIAL_SPLIT_ROWS = 500
SPLIT_COLUMNS = ("id", "context", "choices", "label")


@dataclass(frozen=True)
class ChoiceItem:
    id: str
    context: str
    choices: tuple[str, ...]
    label: int
    row: int  # 1-based row number in the parquet file


@dataclass
class SplitData:
    name: str
    path: Path
    sha256: str
    items: list[ChoiceItem]
    manifest_sha256: str  # hash of the manifest that vouched for this file
    source: dict[str, Any] | None = None  # the manifest's provenance of the split (repo, revision, ...)

    def official_reasons(self, limit: int | None = None) -> list[str]:
        """Why a run over this split would not be official (empty when it is): it must be one of the
        seven splits, built from its pinned source revision, with all 500 rows. A manifest only vouches
        that the files are the ones it lists, not that they are the benchmark."""
        reasons = []
        pinned = BASE_EVALS_SOURCES.get(self.name)
        if pinned is None:
            reasons.append(f"{self.name} is not one of the seven base-evals splits")
        else:
            repo, revision, _ = pinned
            source = self.source or {}
            if (source.get("repo"), source.get("revision")) != (repo, revision):
                named = f"{source.get('repo')}@{source.get('revision')}" if source else "not named in the manifest"
                reasons.append(f"source {named}, not the pinned {repo}@{revision}")
            if len(self.items) != OFFICIAL_SPLIT_ROWS:
                reasons.append(f"{len(self.items)} rows, not the {OFFICIAL_SPLIT_ROWS} of the official {self.name} split")
        if limit and limit < len(self.items):
            reasons.append(f"--limit {limit}")
        return reasons


@dataclass
class Manifest:
    path: Path
    splits: dict[str, dict[str, Any]]
    raw: dict[str, Any]


def load_manifest(folder: Path) -> Manifest:
    """Read `manifest.json` (format documented in docs/loglik.md)."""
    path = folder / MANIFEST
    if not path.is_file():
        raise BadInput(f"{folder}: no {MANIFEST}; a base-evals folder needs one listing each split's file, "
                       "SHA-256 and row count (`bananabench loglik build base-evals` writes it)")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(located(path, getattr(exc, "lineno", None), None, f"invalid JSON ({exc})")) from None
    if not isinstance(raw, dict) or not isinstance(raw.get("splits"), dict) or not raw["splits"]:
        raise BadInput(located(path, None, "splits", "must be a non-empty object {split name: entry}"))
    splits = {}
    for name, entry in raw["splits"].items():
        where = f"splits.{name}"
        if not isinstance(entry, dict):
            raise BadInput(located(path, None, where, "must be an object"))
        for key, kind in (("path", str), ("sha256", str), ("rows", int)):
            if not isinstance(entry.get(key), kind) or isinstance(entry.get(key), bool):
                raise BadInput(located(path, None, f"{where}.{key}", f"missing or not {kind.__name__}"))
        rel = Path(entry["path"])
        if rel.is_absolute() or ".." in rel.parts:
            raise BadInput(located(path, None, f"{where}.path", "must be a relative path inside the folder"))
        splits[name] = entry
    return Manifest(path=path, splits=splits, raw=raw)


def parse_bench(spec: str) -> tuple[str, list[str] | None]:
    """`base-bench`, `base-evals` or `base-evals:SPLIT,...` → (benchmark, splits or None for all)."""
    name, _, rest = spec.partition(":")
    if name not in (BASE_BENCH, BASE_EVALS):
        raise BadInput(f"--bench must be {BASE_BENCH} or {BASE_EVALS}[:SPLIT,...], not {spec!r}")
    if name == BASE_BENCH:
        if rest:
            raise BadInput(f"--bench {BASE_BENCH} has no splits (got {spec!r})")
        return name, None
    if not rest:
        return name, None
    splits = [s.strip() for s in rest.split(",") if s.strip()]
    if not splits:
        raise BadInput(f"--bench {spec!r}: empty split list")
    return name, list(dict.fromkeys(splits))


def _read_split(path: Path, name: str) -> list[ChoiceItem]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowInvalid) as exc:
        raise BadInput(f"{path}: not a readable parquet file ({exc})") from None
    missing = [c for c in SPLIT_COLUMNS if c not in table.column_names]
    if missing:
        raise BadInput(located(path, None, missing[0], f"missing column (split {name} needs {', '.join(SPLIT_COLUMNS)})"))
    items: list[ChoiceItem] = []
    seen: dict[str, int] = {}
    columns = {c: table.column(c).to_pylist() for c in SPLIT_COLUMNS}
    for i in range(table.num_rows):
        row = i + 1
        rid, context, choices, label = (columns[c][i] for c in SPLIT_COLUMNS)
        if not isinstance(rid, str) or not rid:
            raise BadInput(located(path, row, "id", f"must be a non-empty string, not {_type_name(rid)}"))
        if rid in seen:
            raise BadInput(located(path, row, "id", f"duplicate id {rid!r} (first on row {seen[rid]})"))
        seen[rid] = row
        if not isinstance(context, str) or not context:
            raise BadInput(located(path, row, "context", "must be a non-empty string"))
        if not isinstance(choices, list) or len(choices) < 2:
            raise BadInput(located(path, row, "choices", "must be a list of at least two strings"))
        for k, choice in enumerate(choices):
            if not isinstance(choice, str) or not choice:
                raise BadInput(located(path, row, f"choices[{k}]", "must be a non-empty string"))
        if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < len(choices):
            raise BadInput(located(path, row, "label", f"must be an integer from 0 to {len(choices) - 1}, not {label!r}"))
        items.append(ChoiceItem(rid, context, tuple(choices), label, row))
    if not items:
        raise BadInput(f"{path}: split {name} has no rows")
    return items


def load_base_evals(folder: str | os.PathLike, splits: list[str] | None = None) -> list[SplitData]:
    """Verify the requested splits against manifest.json (SHA-256 and row count) and read them."""
    root = Path(folder)
    if not root.is_dir():
        raise BadInput(f"{root}: not a folder (base-evals --data is a folder or a hub dataset repo id)")
    manifest = load_manifest(root)
    wanted = splits or list(manifest.splits)
    unknown = [s for s in wanted if s not in manifest.splits]
    if unknown:
        raise BadInput(f"{manifest.path}: no split {unknown[0]!r} (available: {', '.join(manifest.splits)})")
    manifest_sha = sha256_file(manifest.path)
    out = []
    for name in wanted:
        entry = manifest.splits[name]
        path = root / entry["path"]
        if not path.is_file():
            raise BadInput(located(manifest.path, None, f"splits.{name}.path", f"{path} does not exist"))
        digest = sha256_file(path)
        if digest != entry["sha256"]:
            raise BadInput(located(manifest.path, None, f"splits.{name}.sha256",
                                   f"{entry['path']} has SHA-256 {digest}, the manifest says {entry['sha256']}"))
        items = _read_split(path, name)
        if len(items) != entry["rows"]:
            raise BadInput(located(manifest.path, None, f"splits.{name}.rows",
                                   f"{entry['path']} has {len(items)} rows, the manifest says {entry['rows']}"))
        source = entry.get("source") if isinstance(entry.get("source"), dict) else None
        out.append(SplitData(name=name, path=path, sha256=digest, items=items, manifest_sha256=manifest_sha,
                             source=source))
    return out
