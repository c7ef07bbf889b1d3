"""`bananabench loglik build ID_OR_FILE`: rebuild a benchmark's splits offline from local source copies.

A loglik spec with a `[build]` table (the built-in one: the base-evals seed's provenance, made
concrete; its published hashes need not match, the seed does not give every formatting rule) names,
per split, the hub dataset it comes from at a pinned revision, the source split, and the formatting
rule (`evaluators/loglik/sources/formats.py`). The build:

1. reads the source rows from `SOURCES/<owner>/<name>/` (a copy of the hub repo at the pinned
   revision): the parquet/JSONL/JSON files of the source split, in sorted path order;
2. formats each row by its source's rule; rows a rule excludes and rows with fewer than `choices`
   choices are dropped;
3. `random.Random(seed)` (a fresh generator per split) picks `sample` of the remaining rows with
   `rng.sample(range(len(pool)), sample)`, kept in source order; a pool of `sample` or fewer is kept
   whole;
4. a row with more than `choices` choices keeps its answer and `rng.sample` of the others (the same
   generator, continuing), in their source order; the label is re-indexed;
5. strips every context's trailing whitespace (each rule gives every choice one leading space).

Ids are `<split>-<source row index, 5 digits>`. Output: `OUT/data/<split>-00000-of-00001.parquet`
(columns id, context, choices, label), `OUT/<manifest>` (per split: path, sha256, rows, source
repo/revision/split, pool size, selected source indices, kept choice indices), and the sources'
cards under `OUT/sources/`.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from pathlib import Path
from typing import Any

from evaluators.core import atomic
from evaluators.core.errors import BadInput
from evaluators.loglik.sources.formats import FORMATS, Formatted
from evaluators.loglik.spec import Benchmark, Build, Source
from evaluators.runs.runs import sha256_file

DATA_SUFFIXES = (".parquet", ".jsonl", ".json")


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
           if p.is_file() and p.suffix in DATA_SUFFIXES and p.name != "manifest.json"}
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

def build_split(source: Source, rules: Build, sources: Path) -> tuple[list[dict[str, Any]], dict]:
    """The split's rows and its manifest provenance entry."""
    repo_dir = _repo_dir(sources, source.repo)
    files = _split_files(repo_dir, source.source_split, source.config)
    raw: list[dict[str, Any]] = []
    for f in files:
        raw.extend(_read_rows(f))
    pool: list[tuple[int, Formatted]] = []
    fewer = f"fewer_than_{rules.choices}_choices"
    excluded = {"rule": 0, fewer: 0}
    for index, row in enumerate(raw):
        try:
            formatted = FORMATS[source.format](row)
        except (KeyError, TypeError, ValueError) as exc:
            raise BadInput(f"{files[0].parent}: {source.repo} row {index}: cannot format ({exc})") from None
        if formatted is None:
            excluded["rule"] += 1
            continue
        context, choices, label = formatted
        if not 0 <= label < len(choices):
            raise BadInput(f"{source.repo} row {index}: label {label} out of range for {len(choices)} choices")
        if len(choices) < rules.choices:
            excluded[fewer] += 1
            continue
        pool.append((index, formatted))
    rng = random.Random(rules.seed)
    if len(pool) > rules.sample:
        chosen = [pool[i] for i in sorted(rng.sample(range(len(pool)), rules.sample))]
    else:
        chosen = pool
    rows, kept_choices = [], {}
    for index, (context, choices, label) in chosen:
        if len(choices) > rules.choices:
            wrong = [k for k in range(len(choices)) if k != label]
            keep = sorted([label, *rng.sample(wrong, rules.choices - 1)])
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


def build(bench: Benchmark, sources: str | os.PathLike, out: str | os.PathLike, *,
          splits: list[str] | None = None) -> dict[str, Any]:
    """Build the benchmark's splits into `out` (empty or absent) and return the manifest written there."""
    rules = bench.build
    if rules is None:
        raise BadInput(f"{bench.spec.file}: {bench.spec.id} has no [build] table: there is nothing to build")
    src, dest = Path(sources), Path(out)
    if not src.is_dir():
        raise BadInput(f"{src}: not a folder")
    if dest.exists() and any(dest.iterdir()):
        raise BadInput(f"{dest}: output folder is not empty; choose another")
    unknown = sorted(set(splits or []) - set(rules.sources))
    if unknown:
        raise BadInput(f"--splits: unknown split {unknown[0]!r} (known: {', '.join(rules.sources)})")
    wanted = [s for name, s in rules.sources.items() if splits is None or name in splits]
    built = [(s, *build_split(s, rules, src)) for s in wanted]  # all validated before anything is written
    dest.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "format": f"bananabench.{bench.spec.id}.manifest/1", "dataset": bench.spec.id,
        "rules": {"seed": rules.seed, "sample_size": rules.sample, "choices": rules.choices,
                  "doc": "see evaluators/loglik/sources/build.py (docs/loglik.md)"},
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
    atomic.write_json(dest / bench.spec.data.manifest, manifest)
    return manifest
