"""The three chat tasks: where their items come from, how they are validated and selected.

| task  | source (pinned)                                   | items                                    |
|-------|---------------------------------------------------|------------------------------------------|
| arc   | allenai/ai2_arc, ARC-Challenge, test              | the first 100                            |
| mmlu  | cais/mmlu, all, test                              | the first 2 of each subject (57 x 2)     |
| gsm8k | tinyBenchmarks/tinyGSM8k, main, test              | all 100                                  |

Records keep the hub datasets' own fields, so a local copy (`--data DIR` holding
`<task>.jsonl`, `<task>.parquet` or the hub's file layout) and lm-eval's `doc` objects are read by
the same code. Every item gets a stable id (ARC's own id; a content hash within the subject for
MMLU; a content hash for GSM8K) and a content hash of what is asked and expected.
ARC items have 3-5 options labelled A-E or 1-5: they are presented and scored as letters.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput, EvaluationFailure, located
from evaluators.core.runs import sha256_file

log = logging.getLogger("bananabench")

LETTERS = "ABCDEFGH"
SAMPLES_DIR = Path(__file__).resolve().parent.parent.parent / "tasks" / "samples" / "chat"


@dataclass(frozen=True)
class TaskDef:
    """A chat task and its pinned source on the Hugging Face Hub."""

    name: str
    benchmark: str  # the store's benchmark id
    title: str
    kind: str  # "letter" or "number": how answers are extracted
    repo: str
    config: str
    split: str
    revision: str  # a commit sha where we could verify one, else the branch we resolve at download
    hub_file: str | None  # the data file inside the repo; None: find `<config>/<split>-*` at download
    hub_sha256: str | None  # the file's LFS sha256 at `revision`, where known
    max_tokens: int
    description: str


TASKS: dict[str, TaskDef] = {
    "arc": TaskDef(
        name="arc", benchmark="arc_challenge_chat", title="ARC-Challenge (generative, letter answer)",
        kind="letter", repo="allenai/ai2_arc", config="ARC-Challenge", split="test",
        revision="210d026faf9955653af8916fad021475a3f00453",
        hub_file="ARC-Challenge/test-00000-of-00001.parquet",
        hub_sha256="62f03257e737aed263f55c6abf87c7bb0028a44a6bdd2a26eb1279eb42c1d1e9",
        max_tokens=1024, description="the first 100 questions of the ARC-Challenge test split",
    ),
    "mmlu": TaskDef(
        name="mmlu", benchmark="mmlu_generative", title="MMLU (generative, letter answer, 2 per subject)",
        kind="letter", repo="cais/mmlu", config="all", split="test",
        revision="c30699e8356da336a370243923dbaf21066bb9fe",
        hub_file="all/test-00000-of-00001.parquet",
        hub_sha256="74a41822ce7d3def56e1682f958469c04642a5336a5ce912fa375fdb90fb25d7",
        max_tokens=2048, description="the first 2 test questions of each of the 57 MMLU subjects",
    ),
    "gsm8k": TaskDef(
        name="gsm8k", benchmark="tinyGSM8k", title="tinyGSM8k (generative, numeric answer)",
        kind="number", repo="tinyBenchmarks/tinyGSM8k", config="main", split="test",
        revision="main", hub_file=None, hub_sha256=None,
        max_tokens=1024, description="the 100 problems of tinyGSM8k",
    ),
}
SELECTION = {"arc": 100, "mmlu": 2, "gsm8k": 100}  # arc/gsm8k: first N items; mmlu: first N per subject


@dataclass(frozen=True)
class Item:
    """One question, ready to prompt and score."""

    item_id: str
    task: str
    question: str
    options: tuple[str, ...]  # empty for numeric tasks
    gold: str  # a letter, or a canonical number
    category: str | None
    content_hash: str
    index: int  # position in the source

    @property
    def letters(self) -> str:
        return LETTERS[:len(self.options)]


@dataclass
class TaskData:
    """The selected items of one task and where they came from."""

    task: TaskDef
    items: list[Item]
    source: dict[str, Any] = field(default_factory=dict)  # repo/revision/file/sha256, or the local path
    official_source: bool = False  # the pinned hub file, byte for byte

    @property
    def dataset_sha256(self) -> str:
        """Identifies exactly the selected items (not the file they came from)."""
        joined = "\n".join(f"{i.item_id}:{i.content_hash}" for i in self.items)
        return hashlib.sha256(joined.encode()).hexdigest()

    @property
    def version(self) -> str:
        if self.source.get("kind") == "hub":
            return f"{self.task.repo}@{self.source['revision']}"
        return f"local:{self.source.get('sha256', '')[:12]}"


def task_names(text: str) -> list[str]:
    """`arc,mmlu` / `all` -> task names, validated."""
    names = [t.strip().lower() for t in text.split(",") if t.strip()]
    if names == ["all"]:
        return list(TASKS)
    unknown = [n for n in names if n not in TASKS]
    if unknown or not names:
        raise BadInput(f"--task: unknown task {', '.join(unknown) or '(none)'}; choose from {', '.join(TASKS)} or all")
    return list(dict.fromkeys(names))


def canonical_number(text: str | None) -> str | None:
    """'1,234', '$18.00', '-5', '40%' -> '1234', '18', '-5', '40'; None if not a number."""
    if text is None:
        return None
    cleaned = text.strip().replace(",", "").replace("$", "").replace("%", "").replace("\u2212", "-")
    cleaned = cleaned.rstrip(".").lstrip("+").strip()
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        return None
    if not value.is_finite():
        return None
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def _hash(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _text(record: dict[str, Any], key: str, where: str, line: int | None) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise BadInput(located(where, line, key, "expected a non-empty string"))
    return value


def item_from_record(task: str, record: dict[str, Any], index: int, *, where: str = "<record>",
                     line: int | None = None) -> Item:
    """Validate one source record (the hub dataset's fields) and turn it into an Item."""
    if not isinstance(record, dict):
        raise BadInput(located(where, line, None, "expected a JSON object"))
    question = _text(record, "question", where, line)
    if task == "arc":
        choices = record.get("choices")
        if not isinstance(choices, dict) or not isinstance(choices.get("text"), list) \
                or not isinstance(choices.get("label"), list):
            raise BadInput(located(where, line, "choices", "expected {\"text\": [...], \"label\": [...]}"))
        texts, labels = [str(t) for t in choices["text"]], [str(lab) for lab in choices["label"]]
        if len(texts) != len(labels) or not 2 <= len(texts) <= len(LETTERS):
            raise BadInput(located(where, line, "choices", f"expected 2-{len(LETTERS)} options with one label each"))
        if len(set(labels)) != len(labels):
            raise BadInput(located(where, line, "choices.label", f"duplicate labels {labels}"))
        key = str(record.get("answerKey", ""))
        if key not in labels:
            raise BadInput(located(where, line, "answerKey", f"{key!r} is not one of the labels {labels}"))
        gold = LETTERS[labels.index(key)]
        item_id = str(record.get("id") or "") or f"arc/{_hash([question, texts])[:12]}"
        options, category = tuple(texts), None
    elif task == "mmlu":
        choices = record.get("choices")
        if not isinstance(choices, list) or not 2 <= len(choices) <= len(LETTERS):
            raise BadInput(located(where, line, "choices", f"expected a list of 2-{len(LETTERS)} options"))
        answer = record.get("answer")
        if isinstance(answer, str) and answer in LETTERS[:len(choices)]:
            answer = LETTERS.index(answer)
        if not isinstance(answer, int) or isinstance(answer, bool) or not 0 <= answer < len(choices):
            raise BadInput(located(where, line, "answer", f"expected an option index 0-{len(choices) - 1}"))
        category = _text(record, "subject", where, line)
        options, gold = tuple(str(c) for c in choices), LETTERS[answer]
        item_id = f"{category}/{_hash([question, list(options)])[:12]}"
    elif task == "gsm8k":
        answer = _text(record, "answer", where, line)
        match = re.search(r"####\s*(.+?)\s*$", answer)
        gold_number = canonical_number(match.group(1)) if match else None
        if gold_number is None:
            raise BadInput(located(where, line, "answer", "expected a solution ending in '#### <number>'"))
        options, gold, category = (), gold_number, None
        item_id = f"gsm8k/{_hash(question)[:12]}"
    else:
        raise BadInput(f"unknown task {task!r}")
    content = _hash({"question": question, "options": list(options), "gold": gold})
    return Item(item_id=item_id, task=task, question=question, options=options, gold=gold,
                category=category, content_hash=content, index=index)


def select(task: str, items: Sequence[Item]) -> list[Item]:
    """The task's fixed selection (first N; MMLU: first N per subject, subjects in file order)."""
    n = SELECTION[task]
    if task != "mmlu":
        return list(items[:n])
    per_subject: dict[str, list[Item]] = {}
    for item in items:
        bucket = per_subject.setdefault(item.category or "", [])
        if len(bucket) < n:
            bucket.append(item)
    return [item for bucket in per_subject.values() for item in bucket]


def _check_unique(items: Iterable[Item], where: str) -> None:
    seen: dict[str, int] = {}
    for item in items:
        if item.item_id in seen:
            raise BadInput(f"{where}: item {item.item_id!r} appears twice (records {seen[item.item_id]} and {item.index})")
        seen[item.item_id] = item.index


def read_records(path: Path) -> list[tuple[int | None, dict[str, Any]]]:
    """(line number or None, record) from a .jsonl, .json (a list) or .parquet file."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
        except Exception as exc:
            raise BadInput(f"{path}: cannot read parquet: {exc}") from exc
        return [(None, row) for row in table.to_pylist()]
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: cannot read: {exc}") from exc
    if suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BadInput(located(path, exc.lineno, None, f"invalid JSON: {exc.msg}")) from exc
        if not isinstance(data, list):
            raise BadInput(f"{path}: expected a JSON list of records")
        return [(None, row) for row in data]
    records = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append((n, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise BadInput(located(path, n, None, f"invalid JSON: {exc.msg}")) from exc
    return records


def items_from_file(task: str, path: Path) -> list[Item]:
    rows = read_records(path)
    if not rows:
        raise BadInput(f"{path}: no records")
    items = [item_from_record(task, rec, i, where=str(path), line=line) for i, (line, rec) in enumerate(rows)]
    _check_unique(items, str(path))
    return items


def local_file(task: TaskDef, data: Path) -> Path:
    """The file for `task` under `--data`: the path itself, `<task>.{jsonl,json,parquet}`, or the hub layout."""
    if data.is_file():
        return data
    if not data.is_dir():
        raise BadInput(f"--data {data}: no such file or directory")
    candidates = [data / f"{task.name}{ext}" for ext in (".jsonl", ".json", ".parquet")]
    if task.hub_file:
        candidates.append(data / task.hub_file)
    candidates += sorted(data.glob(f"{task.config}/{task.split}-*.parquet"))
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    names = ", ".join(str(c.relative_to(data)) for c in candidates[:4])
    raise BadInput(f"--data {data}: no data for task {task.name} (looked for {names})")


def hub_file(task: TaskDef) -> tuple[Path, dict[str, Any]]:
    """Download the task's file at its pinned revision; return it with what identifies it."""
    from evaluators.core import data as hub

    if task.hub_file:
        path, commit = hub.download_file(task.repo, task.hub_file, repo_type="dataset", revision=task.revision)
        filename = task.hub_file
    else:  # the file name is not pinned: take `<config>/<split>-*` (the Hub's parquet layout) or `data/<split>-*`
        patterns = [f"{task.config}/{task.split}[-.]*", f"data/{task.split}[-.]*"]
        folder, commit = hub.snapshot(task.repo, repo_type="dataset", revision=task.revision, allow_patterns=patterns)
        found = sorted(p for pattern in patterns for p in folder.glob(pattern)
                       if p.suffix in (".parquet", ".jsonl", ".json"))
        if not found:
            raise EvaluationFailure(f"{task.repo}@{commit}: no {task.config}/{task.split} data file")
        path, filename = found[0], found[0].relative_to(folder).as_posix()
    digest = hub.sha256_path(path)
    if task.hub_sha256 and digest != task.hub_sha256:
        raise EvaluationFailure(f"{task.repo}@{commit}/{filename}: sha256 {digest} differs from the pinned "
                                f"{task.hub_sha256}; the download is corrupt or the pin is wrong")
    return path, {"kind": "hub", "repo": task.repo, "revision": commit, "file": filename, "sha256": digest}


def load_task(name: str, data: str | os.PathLike | None = None, limit: int | None = None) -> TaskData:
    """The task's selected items: from `data` (a local copy) or the pinned Hub revision."""
    task = TASKS[name]
    if data is not None:
        path = local_file(task, Path(data))
        digest = sha256_file(path)
        source = {"kind": "local", "path": str(path), "sha256": digest}
        official = bool(task.hub_sha256) and digest == task.hub_sha256
    else:
        path, source = hub_file(task)
        official = True  # the pinned file (checked by hash where a hash is pinned), revision recorded
    items = select(name, items_from_file(name, path))
    if limit is not None:
        items = items[:limit]
    if not items:
        raise BadInput(f"{path}: no items selected for task {name}")
    return TaskData(task=task, items=items, source=source, official_source=official)
