"""Atomic file outputs: write a temp file beside the target, fsync, rename.

A reader never sees a half-written file, and an existing final output is never
silently replaced: callers must say `overwrite=True`.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput


def write_bytes(path: str | os.PathLike, data: bytes, *, overwrite: bool = False) -> Path:
    path = Path(path)
    if path.exists() and not overwrite:
        raise BadInput(f"{path}: already exists; refusing to overwrite it")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if overwrite:
            os.replace(tmp, path)
        else:
            # link() fails if the target appeared meanwhile: no silent overwrite even in a race.
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise BadInput(f"{path}: already exists; refusing to overwrite it") from None
            finally:
                os.unlink(tmp)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def write_text(path: str | os.PathLike, text: str, *, overwrite: bool = False) -> Path:
    return write_bytes(path, text.encode("utf-8"), overwrite=overwrite)


def write_json(path: str | os.PathLike, obj: Any, *, overwrite: bool = False) -> Path:
    text = json.dumps(obj, indent=2, sort_keys=False, ensure_ascii=False, default=str, allow_nan=False)
    return write_text(path, text + "\n", overwrite=overwrite)
