"""Keep tokens and API keys out of configs, the store, logs and the site.

Two defences: values under secret-looking keys are redacted wherever a dict is
persisted, and every secret value the process reads (e.g. `HF_TOKEN`) is
registered so that it is masked even where it appears inside free text.
"""

from __future__ import annotations

import logging
import re
from typing import Any

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
