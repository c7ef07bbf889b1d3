"""Hugging Face Hub access (models and datasets), token handling, and content hashes.

Downloads go through huggingface_hub's own cache (so `HF_HOME`, `HF_HUB_CACHE`, `HF_ENDPOINT` and
offline mode behave as users expect) and always report the commit they resolved to, which runs record.
Tokens: `HF_TOKEN`, else the one saved by `hf auth login`; only when the Hub refuses access do we ask on
the terminal (hidden input) and retry. Every token is registered as a secret, so logs never show it.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import json
import logging
import os
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.core.secrets import register_secret

log = logging.getLogger("bananabench")

T = TypeVar("T")
REPO_TYPES = ("model", "dataset")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_CACHE_MIN_BYTES = 64 << 20  # smaller files are cheaper to hash than to look up
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_prompted_token: str | None = None  # typed on the terminal during this process; never written anywhere

TOKEN_HELP = ("set HF_TOKEN=<token> or run `hf auth login` (tokens: https://huggingface.co/settings/tokens), "
              "or run from a terminal to be asked for one")


def resolve_token() -> str | None:
    """The token to send: `HF_TOKEN`, else `hf auth login`'s saved token, else one typed earlier in this process."""
    from huggingface_hub import get_token

    token = get_token() or _prompted_token
    register_secret(token)
    return token


def is_repo_id(text: str) -> bool:
    """True for `owner/name` strings that are not an existing local path (how `--data`/`--model` decide)."""
    return bool(_REPO_ID.match(text)) and not Path(text).exists()


def download_file(repo_id: str, filename: str, *, repo_type: str = "model",
                  revision: str | None = None) -> tuple[Path, str]:
    """One file of a Hub repo into the local cache: (local path, commit sha it came from)."""
    from huggingface_hub import hf_hub_download

    _check(repo_id, repo_type)

    def fetch(token: str | bool) -> str:
        return hf_hub_download(repo_id, filename, repo_type=repo_type, revision=revision, token=token)

    path = Path(_with_access(repo_id, repo_type, revision, fetch, filename=filename))
    snapshot_dir = path
    for _ in Path(filename).parts:
        snapshot_dir = snapshot_dir.parent
    return path, _commit_of(snapshot_dir, repo_id, revision)


def snapshot(repo_id: str, *, repo_type: str = "model", revision: str | None = None,
             allow_patterns: Sequence[str] | None = None) -> tuple[Path, str]:
    """A whole repo (or the files matching `allow_patterns`) in the local cache: (folder, commit sha)."""
    from huggingface_hub import snapshot_download

    _check(repo_id, repo_type)

    def fetch(token: str | bool) -> str:
        return snapshot_download(repo_id, repo_type=repo_type, revision=revision, token=token,
                                 allow_patterns=list(allow_patterns) if allow_patterns else None)

    folder = Path(_with_access(repo_id, repo_type, revision, fetch))
    return folder, _commit_of(folder, repo_id, revision)


def sha256_path(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes; for a folder, of its sorted `relative/path:sha256` lines (hidden files skipped)."""
    path = Path(path)
    if path.is_file():
        return _sha256_file(path)
    if not path.is_dir():
        raise BadInput(f"{path}: no such file or folder")
    lines = [f"{p.relative_to(path).as_posix()}:{_sha256_file(p)}"
             for p in sorted(path.rglob("*")) if p.is_file() and not _hidden(p.relative_to(path))]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def files_sha256(folder: str | os.PathLike, patterns: Sequence[str]) -> dict[str, str]:
    """`{relative path: SHA-256}` for the files in `folder` matching any glob in `patterns`."""
    folder = Path(folder)
    found: dict[str, str] = {}
    for pattern in patterns:
        for p in sorted(folder.glob(pattern)):
            rel = p.relative_to(folder).as_posix()
            if p.is_file() and rel not in found:
                found[rel] = _sha256_file(p)
    return dict(sorted(found.items()))


# -- internals ---------------------------------------------------------------------------------------


def _with_access(repo_id: str, repo_type: str, revision: str | None, fetch: Callable[[str | bool], T],
                 filename: str | None = None) -> T:
    """Run `fetch(token)`; if the Hub refuses access, ask for a token on the terminal once and retry."""
    global _prompted_token
    token = resolve_token()
    try:
        return _translate(lambda: fetch(token or False), repo_id, repo_type, revision, filename, token)
    except _Refused as refused:
        if not _can_prompt():
            raise BadInput(f"{refused}; {TOKEN_HELP}") from None
        typed = _ask_token(refused)
    register_secret(typed)
    try:
        result = _translate(lambda: fetch(typed), repo_id, repo_type, revision, filename, typed)
    except _Refused as refused:
        raise BadInput(f"{refused} (also with the token you typed); {TOKEN_HELP}") from None
    _prompted_token = typed
    return result


class _Refused(Exception):
    """The Hub refused access (gated, private, or a bad token): worth asking for a token."""


def _translate(call: Callable[[], T], repo_id: str, repo_type: str, revision: str | None,
               filename: str | None, token: str | None) -> T:
    """Run a huggingface_hub call, turning its errors into one-line messages with the right exit code."""
    from huggingface_hub.errors import (
        EntryNotFoundError,
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    where = f"{repo_type} repo {repo_id}" + (f" at revision {revision}" if revision else "")
    try:
        return call()
    except GatedRepoError:
        page = f"https://huggingface.co/{'datasets/' if repo_type == 'dataset' else ''}{repo_id}"
        raise _Refused(f"{where} is gated: access refused for this token (request access at {page})" if token
                       else f"{where} is gated: access refused without a token") from None
    except RepositoryNotFoundError:
        if token is None:
            raise _Refused(f"{where} was not found, or it is private and needs a token") from None
        raise BadInput(f"{where} was not found (or this token cannot see it)") from None
    except RevisionNotFoundError:
        raise BadInput(f"{where}: no such revision on the Hub") from None
    except (LocalEntryNotFoundError, OfflineModeIsEnabled) as exc:
        raise EvaluationFailure(f"{where}: cannot reach the Hub and no cached copy: {_first_line(exc)}") from None
    except EntryNotFoundError:
        raise BadInput(f"{where}: no file {filename!r} in the repo") from None
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status in (401, 403):
            raise _Refused(f"{where}: access refused ({status}"
                           + (", the token was not accepted)" if token else ")")) from None
        raise EvaluationFailure(f"{where}: the Hub answered {status}: {_first_line(exc)}") from None
    except (ConnectionError, TimeoutError) as exc:
        raise EvaluationFailure(f"{where}: cannot reach the Hub: {_first_line(exc)}") from None


def _can_prompt() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except ValueError:  # stdin closed
        return False


def _ask_token(refused: _Refused) -> str:
    print(f"bananabench: {refused}.", file=sys.stderr, flush=True)
    try:
        typed = getpass.getpass("Hugging Face token (input hidden; not saved): ").strip()
    except (EOFError, KeyboardInterrupt):
        typed = ""
    if not typed:
        raise BadInput(f"{refused}; no token given; {TOKEN_HELP}")
    return typed


def _commit_of(snapshot_dir: Path, repo_id: str, revision: str | None) -> str:
    """The commit sha of a huggingface_hub cache snapshot folder (`.../snapshots/<sha>`)."""
    if _COMMIT.fullmatch(snapshot_dir.name) and snapshot_dir.parent.name == "snapshots":
        return snapshot_dir.name
    raise EvaluationFailure(f"{repo_id}@{revision or 'main'}: unexpected cache layout {snapshot_dir}")


def _check(repo_id: str, repo_type: str) -> None:
    if repo_type not in REPO_TYPES:
        raise BadInput(f"repo type must be one of {', '.join(REPO_TYPES)}, got {repo_type!r}")
    if not _REPO_ID.match(repo_id):
        raise BadInput(f"{repo_id!r} is not a Hub repo id (expected owner/name)")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _hidden(rel: Path) -> bool:
    return any(part.startswith(".") for part in rel.parts)


def _sha256_file(path: Path) -> str:
    """SHA-256 of a file, without re-reading gigabytes when we can trust a name or an earlier result.

    huggingface_hub stores LFS files (the weights) as `blobs/<sha256>`; other big files are remembered
    by (real path, size, mtime) in a small cache, like `make` trusts timestamps.
    """
    real = path.resolve()
    if real.parent.name == "blobs" and _SHA256.fullmatch(real.name):
        return real.name
    stat = real.stat()
    if stat.st_size < _CACHE_MIN_BYTES:
        return _hash_bytes(real)
    cache_file = _hash_cache_file()
    key, stamp = str(real), [stat.st_size, stat.st_mtime_ns]
    try:
        cache = json.loads(cache_file.read_text())
    except (OSError, ValueError):
        cache = {}
    if isinstance(cache.get(key), list) and cache[key][:2] == stamp:
        return cache[key][2]
    digest = _hash_bytes(real)
    cache[key] = [*stamp, digest]
    with contextlib.suppress(OSError):
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".sha256.", dir=cache_file.parent)
        with os.fdopen(fd, "w") as fh:
            json.dump(cache, fh)
        os.replace(tmp, cache_file)
    return digest


def _hash_bytes(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _hash_cache_file() -> Path:
    root = os.environ.get("BANANABENCH_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "bananabench"
    return Path(root) / "sha256.json"
