"""The item tables of run pages, as compact script chunks loaded on demand (no fetch: works from file://).

An item's text (reference, category, difficulty, prompt, choices) is published once per item set — one
benchmark version's split over one dataset — since every model answers the same items; each run ships
only its outcomes, scores and the model's output, indexed by the item's place in its set, and the run
page's script joins the two in the browser. Both are cut into chunks of `CHUNK` rows that the page
loads as it needs them (a page of the table needs one chunk; a filter or search loads the rest).

Each chunk is deflated JSON in base64 inside a script that stores it in `window.BBDATA`; the page
inflates it with the browser's `DecompressionStream`. On the publish_scale store this is about an
eighth of plain JSON (benchmarks/publish_scale.py prints both); Parquet through DuckDB-WASM would need
several MB of WebAssembly and a fetch, which `file://` forbids.
"""

from __future__ import annotations

import base64
import hashlib
import zlib
from typing import Any

CHUNK = 2500  # rows of a run, or items of a set, per chunk file
LEVEL = 6  # zlib level: 1 is a third faster and a fifth larger


def set_key(run: dict[str, Any]) -> str:
    """What makes two runs answer the same items: benchmark, version, split and dataset."""
    return "\x00".join(str(run.get(k) or "") for k in ("benchmark", "benchmark_version", "split", "dataset_sha256"))


def set_slug(bench_slug: str, key: str) -> str:
    return f"{bench_slug}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"


def script(key: str, payload: str) -> str:
    """A chunk file: the deflated, base64-encoded JSON `payload` under `BBDATA[key]`."""
    return f'(window.BBDATA=window.BBDATA||{{}})["{key}"]="{pack(payload)}";\n'


def pack(text: str) -> str:
    """Deflated, base64-encoded `text`: what site.js's `BB.inflate` reads back (chunks, artifacts)."""
    return base64.b64encode(zlib.compress(text.encode(), LEVEL)).decode("ascii")


def unpack(text: str) -> str:
    """The JSON a chunk file holds (for checks and tests)."""
    return unpack_text(text.split('"]="', 1)[1].rsplit('";', 1)[0])


def unpack_text(packed: str) -> str:
    """The text `pack` made (for checks and tests)."""
    return zlib.decompress(base64.b64decode(packed)).decode()
