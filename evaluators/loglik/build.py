"""`bananabench loglik build base-evals`: rebuild the seven splits offline from local source copies.

The seed's provenance, made concrete (its published hashes need not match: the seed does not give
every formatting rule):

1. Source rows are read from `SOURCES/<owner>/<name>/` (a copy of the hub repo at the pinned revision):
   the parquet/JSONL/JSON files of the source split, in sorted path order.
2. Each row is formatted by its source's rule (below); rows a rule excludes (ArithMark 3.0
   `time_session` prompts without a duration) and rows with fewer than four choices are dropped.
3. `random.Random(42)` (a fresh generator per split) picks 500 of the remaining rows with
   `rng.sample(range(len(pool)), 500)`, kept in source order; a pool of 500 or fewer is kept whole
   (so OpenBookQA keeps its full test set).
4. A row with more than four choices keeps its answer and `rng.sample` of three incorrect ones (the
   same generator, continuing), in their source order; the label is re-indexed.
5. Every context is stripped of trailing whitespace and every choice gets exactly one leading ASCII
   space (`context + choices[i]` is the model input).

Formatting rules: ArithMark and LogicMark use the prompt as is; HellaSwag uses lm-eval's cleanup
(`activity_label: ctx_a Ctx_b`, `[title]` → `. `, other `[...]` removed, double spaces collapsed);
OpenBookQA uses `question_stem`; TruthfulQA uses `Q: {question}\\nA:`; PythonIO uses LF line endings,
`Input: {input}\\nOutput:` and choices with trailing whitespace removed (indentation kept).
Ids are `<split>-<source row index, 5 digits>`.

Output: `OUT/data/<split>-00000-of-00001.parquet` (columns id, context, choices, label),
`OUT/manifest.json` (per split: path, sha256, rows, source repo/revision/split, pool size, selected
source indices, kept choice indices), and the sources' cards under `OUT/sources/`.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.core import atomic
from evaluators.core.errors import BadInput
from evaluators.core.runs import sha256_file
from evaluators.loglik import datasets as ds

SEED = 42
SAMPLE_SIZE = ds.OFFICIAL_SPLIT_ROWS
N_CHOICES = 4
DATA_SUFFIXES = (".parquet", ".jsonl", ".json")

Formatted = tuple[str, list[str], int]


@dataclass(frozen=True)
class Source:
    split: str
    repo: str
    revision: str
    source_split: str
    format: Callable[[dict[str, Any]], Formatted | None]
    config: str | None = None  # preferred config folder when the repo has several


# -- field helpers -----------------------------------------------------------------------------------

def _field(row: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in row and row[name] is not None:
            return row[name]
    raise KeyError(f"none of the fields {', '.join(names)}")


def _number(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _choice_list(value: Any) -> list[Any]:
    if isinstance(value, dict):  # {"text": [...], "label": [...]}
        value = value.get("text")
    if not isinstance(value, list):
        raise KeyError("choices are not a list")
    return value


def _label(value: Any, labels: list[str] | None = None) -> int:
    if isinstance(value, bool):
        raise KeyError("boolean label")
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if text.lstrip("-").isdigit():
        return int(text)
    if labels and text in labels:
        return labels.index(text)
    if len(text) == 1 and text.isalpha():
        return ord(text.upper()) - ord("A")
    raise KeyError(f"label {value!r}")


def _spaced(choice: str) -> str:
    return " " + choice


# -- per-source rules ---------------------------------------------------------------------------------

_DURATION = re.compile(r"\d+(\.\d+)?\s*(hours?|hrs?|minutes?|mins?|seconds?|secs?|h\b|m\b)", re.IGNORECASE)


def _mark(row: dict[str, Any]) -> Formatted:
    text = str(_field(row, "prompt", "question", "expression", "problem", "context", "input"))
    options = [_number(o) for o in _choice_list(_field(row, "options", "choices"))]
    return text.rstrip(), [_spaced(o) for o in options], _label(_field(row, "answer_index", "label", "answer_idx"))


def _arithmark3(row: dict[str, Any]) -> Formatted | None:
    kind = next((str(row[k]) for k in ("category", "type", "task", "subtype", "template") if row.get(k)), "")
    text = str(_field(row, "prompt", "question", "expression", "problem", "context", "input"))
    if kind == "time_session" and not _DURATION.search(text):
        return None
    return _mark(row)


def _logicmark(row: dict[str, Any]) -> Formatted:
    if "premises" in row and "question" in row:
        premises = row["premises"]
        if isinstance(premises, list):
            premises = "\n".join(map(str, premises))
        row = {**row, "prompt": f"{str(premises).rstrip()}\n{row['question']}"}
    return _mark(row)


def _hellaswag_clean(text: str) -> str:
    text = text.strip().replace(" [title]", ". ")
    text = re.sub(r"\[.*?\]", "", text)
    return text.replace("  ", " ")


def _hellaswag(row: dict[str, Any]) -> Formatted:
    ctx = f"{row['activity_label']}: {row['ctx_a']} {str(row['ctx_b']).capitalize()}"
    endings = [_spaced(_hellaswag_clean(str(e))) for e in _choice_list(row["endings"])]
    return _hellaswag_clean(ctx).rstrip(), endings, _label(row["label"])


def _openbookqa(row: dict[str, Any]) -> Formatted:
    choices = row["choices"]
    texts = _choice_list(choices)
    labels = choices.get("label") if isinstance(choices, dict) else None
    return (str(row["question_stem"]).strip(), [_spaced(str(t).strip()) for t in texts],
            _label(row["answerKey"], labels))


def _pythonio(row: dict[str, Any]) -> Formatted:
    source = str(_field(row, "input", "code", "question", "prompt")).replace("\r\n", "\n").replace("\r", "\n")
    choices = [str(c).replace("\r\n", "\n").replace("\r", "\n").rstrip()
               for c in _choice_list(_field(row, "choices", "options"))]
    return f"Input: {source.rstrip()}\nOutput:", [_spaced(c) for c in choices], _label(
        _field(row, "label", "answer_index", "answer"))


def _truthfulqa(row: dict[str, Any]) -> Formatted:
    choices = [_spaced(str(c).strip()) for c in _choice_list(row["choices"])]
    return f"Q: {str(row['question']).strip()}\nA:", choices, _label(row["label"])


_FORMATS: dict[str, tuple[Callable[[dict[str, Any]], Formatted | None], str | None]] = {
    "tiny_arithmark_2_0": (_mark, None), "tiny_arithmark_3_0": (_arithmark3, None),
    "tiny_hellaswag": (_hellaswag, None), "tiny_logicmark": (_logicmark, None),
    "tiny_openbookqa": (_openbookqa, "main"), "tiny_pythonio": (_pythonio, None),
    "tiny_truthfulqa": (_truthfulqa, None),
}
# Each split's pinned source (datasets.BASE_EVALS_SOURCES) with its formatting rule and preferred config.
SOURCES: tuple[Source, ...] = tuple(
    Source(split, repo, revision, source_split, *_FORMATS[split])
    for split, (repo, revision, source_split) in ds.BASE_EVALS_SOURCES.items())


# -- reading sources ----------------------------------------------------------------------------------

def _repo_dir(sources: Path, repo: str) -> Path:
    for candidate in (sources / repo, sources / repo.split("/", 1)[1]):
        if candidate.is_dir():
            return candidate
    raise BadInput(f"{sources}: no local copy of {repo} (expected {sources / repo}/)")


def _split_files(repo_dir: Path, split: str, config: str | None) -> list[Path]:
    # Skip a `.cache` folder inside the repo copy (hub download metadata), judged on the path relative
    # to the repo: a checkout that itself lives under some `.cache/` must still be read.
    rel = {p: p.relative_to(repo_dir) for p in repo_dir.rglob("*")
           if p.is_file() and p.suffix in DATA_SUFFIXES and p.name != ds.MANIFEST}
    files = sorted(p for p, r in rel.items() if ".cache" not in r.parts)
    matching = [p for p in files if split in re.split(r"[-_.]", p.stem) or split in rel[p].parts[:-1]]
    if config:
        preferred = [p for p in matching if config in rel[p].parts[:-1]]
        matching = preferred or matching
    if not matching and len(files) == 1:
        matching = files
    if not matching:
        raise BadInput(f"{repo_dir}: no data file for split {split!r} (looked for *{split}*.parquet/jsonl/json)")
    return matching


def _read_rows(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise BadInput(f"{path}:{number}: invalid JSON ({exc.msg})") from None
        return rows
    data = json.loads(text)
    if isinstance(data, dict):
        data = data.get("data") or data.get("rows") or next((v for v in data.values() if isinstance(v, list)), [])
    if not isinstance(data, list):
        raise BadInput(f"{path}: expected a JSON list of rows")
    return data


# -- building ------------------------------------------------------------------------------------------

def build_split(source: Source, sources: Path, sample_size: int = SAMPLE_SIZE) -> tuple[list[dict[str, Any]], dict]:
    """The split's rows and its manifest provenance entry."""
    repo_dir = _repo_dir(sources, source.repo)
    files = _split_files(repo_dir, source.source_split, source.config)
    raw: list[dict[str, Any]] = []
    for f in files:
        raw.extend(_read_rows(f))
    pool: list[tuple[int, Formatted]] = []
    excluded = {"rule": 0, "fewer_than_4_choices": 0}
    for index, row in enumerate(raw):
        try:
            formatted = source.format(row)
        except (KeyError, TypeError, ValueError) as exc:
            raise BadInput(f"{files[0].parent}: {source.repo} row {index}: cannot format ({exc})") from None
        if formatted is None:
            excluded["rule"] += 1
            continue
        context, choices, label = formatted
        if not 0 <= label < len(choices):
            raise BadInput(f"{source.repo} row {index}: label {label} out of range for {len(choices)} choices")
        if len(choices) < N_CHOICES:
            excluded["fewer_than_4_choices"] += 1
            continue
        pool.append((index, formatted))
    rng = random.Random(SEED)
    if len(pool) > sample_size:
        chosen = [pool[i] for i in sorted(rng.sample(range(len(pool)), sample_size))]
    else:
        chosen = pool
    rows, kept_choices = [], {}
    for index, (context, choices, label) in chosen:
        if len(choices) > N_CHOICES:
            wrong = [k for k in range(len(choices)) if k != label]
            keep = sorted([label, *rng.sample(wrong, N_CHOICES - 1)])
            kept_choices[str(index)] = keep
            choices, label = [choices[k] for k in keep], keep.index(label)
        rows.append({"id": f"{source.split}-{index:05d}", "context": context, "choices": choices, "label": label})
    provenance = {
        "repo": source.repo, "revision": source.revision, "split": source.source_split,
        "files": [str(f.relative_to(repo_dir)) for f in files], "source_rows": len(raw), "pool_rows": len(pool),
        "excluded": excluded, "indices": [index for index, _ in chosen], "kept_choices": kept_choices,
    }
    return rows, provenance


def _write_parquet(path: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("id", pa.string()), ("context", pa.string()), ("choices", pa.list_(pa.string())),
                        ("label", pa.int64())])
    table = pa.Table.from_pylist(rows, schema=schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, path)


def build_base_evals(sources: str | os.PathLike, out: str | os.PathLike, *, splits: list[str] | None = None,
                     sample_size: int = SAMPLE_SIZE) -> dict[str, Any]:
    """Build the splits into `out` (empty or absent) and return the manifest written there."""
    src, dest = Path(sources), Path(out)
    if not src.is_dir():
        raise BadInput(f"{src}: not a folder")
    if dest.exists() and any(dest.iterdir()):
        raise BadInput(f"{dest}: output folder is not empty; choose another")
    wanted = [s for s in SOURCES if splits is None or s.split in splits]
    unknown = sorted(set(splits or []) - {s.split for s in SOURCES})
    if unknown:
        raise BadInput(f"--splits: unknown split {unknown[0]!r} (known: {', '.join(s.split for s in SOURCES)})")
    built = [(s, *build_split(s, src, sample_size)) for s in wanted]  # all validated before anything is written
    dest.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "format": ds.MANIFEST_FORMAT, "dataset": ds.BASE_EVALS,
        "rules": {"seed": SEED, "sample_size": sample_size, "choices": N_CHOICES,
                  "doc": "see evaluators/loglik/build.py (docs/loglik.md)"},
        "splits": {},
    }
    for source, rows, provenance in built:
        rel = f"data/{source.split}-00000-of-00001.parquet"
        _write_parquet(dest / rel, rows)
        manifest["splits"][source.split] = {"path": rel, "sha256": sha256_file(dest / rel), "rows": len(rows),
                                            "source": provenance}
        card = _repo_dir(src, source.repo) / "README.md"
        if card.is_file():
            target = dest / "sources" / source.repo / "README.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(card, target)
    atomic.write_json(dest / ds.MANIFEST, manifest)
    return manifest
