"""An attempt's files on its page: text artifacts and checklist (capped), screenshots copied into the site.

The files are model-written: symlinks are never followed, text is capped and decoded leniently
(and escaped by the templates), and only real PNG/JPEG/WebP images are copied.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Any

from evaluators.core.contract import AttemptKey
from evaluators.publish import apps
from evaluators.publish.links import Links
from evaluators.publish.queries import Queries
from evaluators.publish.views import Attempt

log = logging.getLogger("bananabench")

ARTIFACT_CAP = 100_000  # bytes of one text artifact shown on an attempt page
TEXT_ARTIFACTS = (".md", ".diff", ".patch", ".log", ".txt")  # events.jsonl stays in the results folder
FIRST_ARTIFACTS = ("final_message.md", "changes.diff", "verify.log")
VIEWS = ("desktop", "mobile")


def read_text(q: Queries, relpath: Any) -> str | None:
    """A results-relative text file (e.g. the checklist), capped; None when absent or unsafe."""
    path = q.resolve(relpath)
    return read_capped(path) if path is not None and path.is_file() else None


def read_artifacts(q: Queries, att: Attempt) -> list[tuple[str, str]]:
    """The attempt's text artifacts (not symlinks: the folder holds model-written files)."""
    folder = q.resolve(att.extra.get(AttemptKey.ARTIFACTS))
    if folder is None or not folder.is_dir():
        return []
    with os.scandir(folder) as entries:
        files = [e for e in entries if e.is_file(follow_symlinks=False) and e.name.endswith(TEXT_ARTIFACTS)]
    files.sort(key=lambda e: (FIRST_ARTIFACTS.index(e.name) if e.name in FIRST_ARTIFACTS else 99, e.name))
    return [(e.name, read_capped(Path(e.path))) for e in files]


def copy_screenshots(q: Queries, links: Links, site: Path, att: Attempt) -> dict[str, str]:
    """Copy the attempt's screenshots into the site (images only, checked by their magic bytes)."""
    shots = att.extra.get(AttemptKey.SCREENSHOTS)
    out: dict[str, str] = {}
    if not isinstance(shots, dict):
        return out
    for kind in VIEWS:
        path = q.resolve(shots.get(kind))
        if path is None or not path.is_file():
            continue
        suffix = apps.image_suffix(path)
        if suffix is None:
            log.warning("%s: not a PNG/JPEG/WebP image; not published", path)
            continue
        target = links.media(att.run_id, att.item_id, att.attempt, kind, suffix)
        dest = site / target
        if not (dest.is_file() and dest.stat().st_size == path.stat().st_size):  # a recorded attempt's files
            dest.parent.mkdir(parents=True, exist_ok=True)                      # never change: copied once
            shutil.copyfile(path, dest)
        out[kind] = target
    return out


def read_capped(path: Path) -> str:
    """A text file for a page: at most ARTIFACT_CAP bytes, undecodable bytes replaced."""
    with open(path, "rb") as fh:
        data = fh.read(ARTIFACT_CAP + 1)
    text = data[:ARTIFACT_CAP].decode("utf-8", errors="replace")
    if len(data) > ARTIFACT_CAP:
        text += f"\n… (truncated; the full file is {path.stat().st_size:,} bytes in the results folder)"
    return text
