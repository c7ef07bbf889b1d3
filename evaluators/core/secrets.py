"""Keep tokens and API keys out of configs, the store, logs and the site.

Two defences: values under secret-looking keys are redacted wherever a dict is
persisted, and every secret value the process reads (e.g. `HF_TOKEN`) is
registered so that it is masked even where it appears inside free text.
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any

from evaluators.core.errors import BadInput

REDACTED = "<redacted>"
# A key names a secret if it holds one of these words, or ends in "token" (hf_token, access_token),
# except the tokenizer's special-token strings; "max_tokens", "n_tokens", "tokenizer" are not secrets.
_SECRET_KEY = re.compile(r"(api[_-]?key|secret|password|passwd|authorization|cookie|credential|token$)", re.I)
_TOKENIZER_KEY = re.compile(r"^(bos|eos|pad|unk|sep|cls|mask|eot)_token$", re.I)
_registered: set[str] = set()


def register_secret(value: str | None) -> None:
    """Remember a secret value so `scrub` masks it wherever it shows up."""
    if value and len(value) >= 4:
        _registered.add(value)


API_KEY_ENVS = ("BANANABENCH_API_KEY", "OPENAI_API_KEY")


def api_key_from_env(var: str | None = None) -> str | None:
    """A server API key from the environment (never a flag value: flags end up in shell history and logs).

    `var` is the user's `--api-key-env VAR` (an error when empty); without it the first of
    `$BANANABENCH_API_KEY`, `$OPENAI_API_KEY` that is set, else no key.
    """
    for name in (var,) if var else API_KEY_ENVS:
        value = os.environ.get(name)
        if value:
            register_secret(value)
            return value
    if var:
        raise BadInput(f"--api-key-env {var}: that environment variable is empty or not set")
    return None


def is_secret_key(key: str) -> bool:
    return bool(_SECRET_KEY.search(key)) and not _TOKENIZER_KEY.match(key)


def scrub_text(text: str) -> str:
    for value in sorted(_registered, key=len, reverse=True):
        if value in text:
            text = text.replace(value, REDACTED)
    return text


def scrub(obj: Any) -> Any:
    """Return a copy of `obj` with secret-named keys and registered secret values masked."""
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if isinstance(key, str) and is_secret_key(key) and value not in (None, "", False):
                out[key] = REDACTED
            else:
                out[key] = scrub(value)
        return out
    if isinstance(obj, (list, tuple)):
        return [scrub(v) for v in obj]
    if isinstance(obj, str):
        return scrub_text(obj)
    return obj


class ScrubFilter(logging.Filter):
    """Logging filter that masks registered secrets in every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _registered:
            record.msg = scrub_text(record.getMessage())
            record.args = ()
        return True
