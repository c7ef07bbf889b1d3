"""Incremental publish: a content hash of each output's inputs, so a publish rewrites only what changed.

Every page, item chunk and export partition gets a key: the SHA-256 of what it is made from (its
template context, or the rows it holds, plus the software version, the templates and the site-wide
inputs such as the benchmark menu). The keys of the last publish live in the site's marker file; an
output whose key is unchanged and whose file is still there is neither rendered nor written, and a
file that nothing produces any more is removed. `publish --full` ignores the keys and rebuilds the
site from scratch (in a fresh folder, swapped in at the end).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from evaluators import __version__

FORMAT = 1


def digest(*parts: Any) -> str:
    """A stable hash of plain data and dataclasses (by their repr: fields in order, datetimes included)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(repr(part).encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()[:32]


def tree_digest(folder: Path) -> str:
    """A hash of every file under `folder` (names and contents): the templates a site was rendered with."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(path.relative_to(folder).as_posix().encode() + b"\x00" + path.read_bytes() + b"\x00")
    return h.hexdigest()[:32]


class Manifest:
    """The keys of one publish: `previous` (read from the site) and `current` (this build's)."""

    def __init__(self, previous: dict[str, str], site_key: str, *, children: dict[str, list[str]] | None = None,
                 cache: dict[str, Any] | None = None):
        self.previous = previous
        self.site_key = site_key
        self.current: dict[str, str] = {}
        self.previous_children = children or {}
        self.children: dict[str, list[str]] = {}  # files a page brings along (its app page, screenshots)
        self.previous_cache = cache or {}
        self.cache: dict[str, Any] = {}  # results worth keeping between publishes (the rank bootstraps)
        self.produced: set[str] = set()  # every file this build made or kept
        self._lock = threading.Lock()
        self.kept = 0

    @classmethod
    def read(cls, marker: Path, site_key: str) -> Manifest:
        """The previous publish's keys, or none when the marker is missing, of another format or version."""
        try:
            data = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        ok = isinstance(data, dict) and data.get("format") == FORMAT and data.get("version") == __version__
        if not ok:
            return cls({}, site_key)
        return cls(data.get("keys", {}), site_key, children=data.get("children", {}), cache=data.get("cache", {}))

    def fresh(self, site: Path, path: str, *parts: Any) -> bool:
        """Register `path` with the key of `parts`; True when it must be (re)written."""
        key = digest(self.site_key, path, *parts)
        with self._lock:
            self.current[path] = key
            self.produced.add(path)
        if self.previous.get(path) == key and (site / path).is_file():
            with self._lock:
                self.kept += 1
                self.children[path] = self.previous_children.get(path, [])
                self.produced.update(self.children[path])
            return False
        return True

    def child(self, page: str, path: str) -> None:
        """`path` was written for `page`: kept, without looking, as long as `page` is."""
        with self._lock:
            self.children.setdefault(page, []).append(path)
            self.produced.add(path)

    def add(self, path: str) -> None:
        """A file this build wrote without a key (assets, the compare data, copied screenshots)."""
        with self._lock:
            self.produced.add(path)

    def dump(self) -> str:
        return json.dumps({"format": FORMAT, "version": __version__, "generator": "bananabench publish",
                           "keys": dict(sorted(self.current.items())),
                           "children": {k: v for k, v in sorted(self.children.items()) if v},
                           "cache": self.cache}, separators=(",", ":")) + "\n"

    def remove_orphans(self, site: Path, keep: set[str]) -> int:
        """Delete files under `site` that this build did not produce (and folders left empty)."""
        removed = 0
        for root, dirs, files in os.walk(site, topdown=False):
            for name in files:
                rel = Path(root, name).relative_to(site).as_posix()
                if rel not in self.produced and rel not in keep:
                    os.unlink(Path(root, name))
                    removed += 1
            for name in dirs:
                folder = Path(root, name)
                if not any(folder.iterdir()):
                    folder.rmdir()
        return removed
