"""Model-written files that the site republishes: screenshots, and (opt-in) the frontend apps.

Apps are model-written code. They are copied only with `--include-apps`, shown only inside a
sandboxed iframe (scripts allowed, same origin not), and every HTML file gets a
Content-Security-Policy that forbids loading anything from outside the app's own folder, so
viewing the gallery never contacts a third party.
"""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

from evaluators.publish.queries import Queries
from evaluators.publish.views import Attempt

log = logging.getLogger("bananabench")

APP_CAP_BYTES = 20_000_000
SKIP_DIRS = {"node_modules", ".git", "__pycache__", ".venv", "venv", ".cache"}
ENTRY_CANDIDATES = ("index.html", "dist/index.html", "build/index.html", "public/index.html")
APP_CSP = ("default-src 'self' 'unsafe-inline' data: blob:; connect-src 'none'; form-action 'none'; "
           "base-uri 'none'; frame-src 'none'")
_CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{APP_CSP}">'
_DOCTYPE = re.compile(rb"^\s*(?:\xef\xbb\xbf)?\s*<!doctype[^>]*>", re.I)

_MAGIC = ((b"\x89PNG\r\n\x1a\n", ".png"), (b"\xff\xd8\xff", ".jpg"))


def image_suffix(path: Path) -> str | None:
    """`.png`/`.jpg`/`.webp` when the file really is such an image (never SVG or HTML)."""
    with open(path, "rb") as fh:
        head = fh.read(12)
    for magic, suffix in _MAGIC:
        if head.startswith(magic):
            return suffix
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return ".webp"
    return None


def find_entry(q: Queries, att: Attempt) -> tuple[Path, str] | None:
    """(app folder, entry page relative to it) for an attempt's app, if it has one."""
    explicit = q.resolve(att.extra.get("app"))
    if explicit is not None and explicit.is_file() and explicit.suffix == ".html":
        return explicit.parent, explicit.name
    workspace = q.resolve(att.extra.get("workspace"))  # the agent runner keeps manual tasks' workspaces
    if workspace is None:
        artifacts = q.resolve(att.extra.get("artifacts"))
        if artifacts is None:
            return None
        workspace = artifacts / "workspace"
    for candidate in ENTRY_CANDIDATES:
        if (workspace / candidate).is_file():
            return workspace, candidate
    return None


def _with_csp(data: bytes) -> bytes:
    match = _DOCTYPE.match(data)
    cut = match.end() if match else 0
    return data[:cut] + _CSP_META.encode() + data[cut:]


def copy_app(entry: tuple[Path, str], target: Path) -> str | None:
    """Copy an app folder (no symlinks, no dependency folders, at most APP_CAP_BYTES) into the site."""
    folder, index = entry
    files = []
    total = 0
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts) or path.is_symlink():
            continue
        if path.is_file():
            total += path.stat().st_size
            files.append(rel)
    if total > APP_CAP_BYTES:
        log.warning("%s: app is %d bytes (over %d); not published", folder, total, APP_CAP_BYTES)
        return None
    for rel in files:
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if rel.suffix.lower() in (".html", ".htm"):
            dest.write_bytes(_with_csp((folder / rel).read_bytes()))
        else:
            shutil.copyfile(folder / rel, dest)
    return index
