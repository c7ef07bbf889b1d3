"""Where a benchmark's data files are: the spec's pinned hub file, a local copy, or `--data`.

`--data` overrides the spec: a local file, a local folder (the spec's file inside it, by its repo
path, its base name, `<benchmark id>.<format>` or the spec's glob patterns), or another hub dataset
id (the spec's file or patterns in that repo, at `--data-revision`). A spec without `path` or `repo`
needs `--data`. A spec with `manifest` reads a folder whose manifest lists each split's file,
SHA-256 and row count, and every file is verified against it before anything runs.

A file is *pinned* when it is the one the spec vouches for: its SHA-256 equals the spec's, or (for a
spec that gives none) it is the spec's own path or repo and revision. A mismatch on a download at a
pinned commit means a corrupt download and stops. Only pinned data makes an official run.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.core import data as hub
from evaluators.core.errors import BadInput, EvaluationFailure, located
from evaluators.runs.runs import sha256_file
from evaluators.specs.records import SUFFIXES
from evaluators.specs.spec import BenchmarkSpec

_COMMIT = re.compile(r"^[0-9a-f]{40}$")


@dataclass
class DataFile:
    """One data file of a benchmark (one per split with a manifest) and what vouches for it."""

    path: Path
    sha256: str
    source: dict[str, Any]  # {"kind": "hub", repo, revision, file} or {"kind": "local", path}
    pinned: bool
    split: str | None = None
    rows: int | None = None  # the manifest's row count, checked when the file is read
    manifest_sha256: str | None = None
    manifest: Path | None = None  # the manifest that lists this file
    notes: list[str] = field(default_factory=list)  # why the data is not the pinned one
    provenance: dict[str, Any] | None = None  # the manifest's account of where the split came from

    def check_rows(self, rows: int) -> None:
        """BadInput, naming the manifest's entry, when the file does not hold the rows the manifest lists."""
        if self.rows is not None and rows != self.rows:
            raise BadInput(located(self.manifest, None, f"splits.{self.split}.rows",
                                   f"{self.source.get('file', self.path)} has {rows} rows, the manifest says {self.rows}"))

    def describe(self) -> str:
        """`owner/name@commit` for hub data, the path otherwise."""
        if self.source.get("kind") == "hub":
            return f"{self.source['repo']}@{self.source['revision']}"
        return str(self.source.get("path", self.path))


def locate(spec: BenchmarkSpec, data: str | None = None, revision: str | None = None,
           splits: list[str] | None = None) -> list[DataFile]:
    """The data files to read (one, or one per split), fetched from the hub when that is where they are."""
    if splits and not spec.data.manifest:
        raise BadInput(f"{spec.id} has no splits (got {', '.join(splits)})")
    if data is not None:
        if hub.is_repo_id(data):
            return _from_hub(spec, data, revision, splits, own=False)
        return _local(spec, Path(data).expanduser(), splits, own=False)
    if spec.data.path is not None:
        return _local(spec, spec.data.path, splits, own=True)
    if spec.data.repo is not None:
        return _from_hub(spec, spec.data.repo, revision or spec.data.revision, splits,
                         own=revision is None or revision == spec.data.revision)
    what = f"a folder with {spec.data.manifest} and the split files it lists" if spec.data.manifest \
        else "a data file or folder"
    raise BadInput(f"{spec.id} needs --data: {what}, or a hub dataset repo id holding it (its spec "
                   f"{spec.file} names no data location)")


def _pin(spec: BenchmarkSpec, digest: str, *, own_pinned_source: bool, where: str) -> tuple[bool, list[str]]:
    """Whether data with `digest` is the spec's pinned data, and why not."""
    if spec.data.sha256 is None:
        return own_pinned_source, [] if own_pinned_source else ["data is not the spec's pinned source"]
    if digest == spec.data.sha256:
        return True, []
    if own_pinned_source and spec.data.revision and _COMMIT.match(spec.data.revision):
        raise EvaluationFailure(f"{where}: SHA-256 {digest} differs from the pinned {spec.data.sha256}; the "
                                "download is corrupt or the pin is wrong")
    return False, [f"data SHA-256 {digest[:12]}… is not the official {spec.data.sha256[:12]}…"]


def _from_hub(spec: BenchmarkSpec, repo: str, revision: str | None, splits: list[str] | None,
              *, own: bool) -> list[DataFile]:
    if spec.data.manifest:
        patterns = [spec.data.manifest, *(spec.data.files or ["data/*"])]
        folder, commit = hub.snapshot(repo, repo_type="dataset", revision=revision, allow_patterns=patterns)
        source = {"kind": "hub", "repo": repo, "revision": commit}
        # A spec that names no location pins its splits by the manifest's provenance, not by where they are.
        return _manifest(spec, folder, splits, source, own or spec.data.repo is None)
    if spec.data.file:
        path, commit = hub.download_file(repo, spec.data.file, repo_type="dataset", revision=revision)
        name = spec.data.file
    elif spec.data.files:
        folder, commit = hub.snapshot(repo, repo_type="dataset", revision=revision,
                                      allow_patterns=list(spec.data.files))
        found = _globbed(folder, spec.data.files)
        if not found:
            raise EvaluationFailure(f"{repo}@{commit}: no file matching {', '.join(spec.data.files)}")
        path, name = found[0], found[0].relative_to(folder).as_posix()
    else:
        raise BadInput(f"{spec.file}: [data] names no file in {repo}; give --data a local copy")
    digest = hub.sha256_path(path)
    pinned, notes = _pin(spec, digest, own_pinned_source=own, where=f"{repo}@{commit}/{name}")
    return [DataFile(path, digest, {"kind": "hub", "repo": repo, "revision": commit, "file": name},
                     pinned, notes=notes)]


def _local(spec: BenchmarkSpec, path: Path, splits: list[str] | None, *, own: bool) -> list[DataFile]:
    if spec.data.manifest:
        if not path.is_dir():
            raise BadInput(f"{path}: not a folder ({spec.id} --data is a folder with {spec.data.manifest}, or a "
                           "hub dataset repo id)")
        return _manifest(spec, path, splits, {"kind": "local", "path": str(path)}, own=True)
    file = path if path.is_file() else _find_in(spec, path)
    digest = sha256_file(file)
    pinned, notes = _pin(spec, digest, own_pinned_source=own, where=str(file))
    return [DataFile(file, digest, {"kind": "local", "path": str(file)}, pinned, notes=notes)]


def _find_in(spec: BenchmarkSpec, folder: Path) -> Path:
    if not folder.is_dir():
        raise BadInput(f"{folder}: no such file or folder")
    candidates = []
    if spec.data.file:
        candidates += [folder / spec.data.file, folder / Path(spec.data.file).name]
    candidates += [folder / f"{name}{suffix}" for name in spec.names for suffix in SUFFIXES]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    found = _globbed(folder, spec.data.files)
    if found:
        return found[0]
    shown = ", ".join(str(c.relative_to(folder)) for c in candidates[:4])
    raise BadInput(f"{folder}: no data for {spec.id} here (looked for {shown}"
                   + (f", {', '.join(spec.data.files)}" if spec.data.files else "") + ")")


def _globbed(folder: Path, patterns: tuple[str, ...]) -> list[Path]:
    return sorted(p for pattern in patterns for p in folder.glob(pattern) if p.suffix.lower() in SUFFIXES)


def _manifest(spec: BenchmarkSpec, folder: Path, splits: list[str] | None, source: dict[str, Any],
              own: bool) -> list[DataFile]:
    """The requested splits, each file verified against the manifest (SHA-256 now, row count when read)."""
    path = folder / spec.data.manifest
    entries = read_manifest(path)
    wanted = splits or list(entries)
    unknown = [s for s in wanted if s not in entries]
    if unknown:
        raise BadInput(f"{path}: no split {unknown[0]!r} (available: {', '.join(entries)})")
    manifest_sha = sha256_file(path)
    out = []
    for name in wanted:
        entry = entries[name]
        file = folder / entry["path"]
        if not file.is_file():
            raise BadInput(located(path, None, f"splits.{name}.path", f"{file} does not exist"))
        digest = sha256_file(file)
        if digest != entry["sha256"]:
            raise BadInput(located(path, None, f"splits.{name}.sha256",
                                   f"{entry['path']} has SHA-256 {digest}, the manifest says {entry['sha256']}"))
        provenance = entry.get("source") if isinstance(entry.get("source"), dict) else None
        out.append(DataFile(file, digest, {**source, "file": entry["path"]}, pinned=own, split=name,
                            rows=entry["rows"], manifest_sha256=manifest_sha, manifest=path,
                            provenance=provenance))
    return out


def read_manifest(path: Path) -> dict[str, dict[str, Any]]:
    """`{split: {path, sha256, rows, ...}}` from a splits manifest (written by `bananabench loglik build`)."""
    if not path.is_file():
        raise BadInput(f"{path.parent}: no {path.name}; this benchmark's data folder needs one listing each "
                       "split's file, SHA-256 and row count (`bananabench loglik build` writes it)")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(located(path, getattr(exc, "lineno", None), None, f"invalid JSON ({exc})")) from None
    if not isinstance(raw, dict) or not isinstance(raw.get("splits"), dict) or not raw["splits"]:
        raise BadInput(located(path, None, "splits", "must be a non-empty object {split name: entry}"))
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
    return raw["splits"]
