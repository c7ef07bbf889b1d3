"""What an lm-eval run has computed so far, one line per request, so a killed run resumes where it stopped.

lm-eval hands a model the whole request list at once and keeps nothing until the list is done; a run
killed an hour in would start over. The journal is an append-only JSONL file in the run's output folder:
a header naming the configuration (model identity, tokenization, tasks), then one line per answered
request, flushed as it is written. Requests are keyed by what the engine sees (token ids, or a prompt and
its generation settings), so a resumed run reuses exactly the answers that apply. A line cut short by a
kill is ignored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput
from evaluators.runs.runs import canonical_json, sha256_bytes

FILE = "bananabench-requests.jsonl"


def request_key(*parts: Any) -> str:
    return sha256_bytes(canonical_json(parts).encode())[:32]


class Journal:
    """Answers by request key; `add` appends one (flushed to the OS at once, so kill -9 loses none)."""

    def __init__(self, folder: str | os.PathLike, config: dict[str, Any], *, resume: bool):
        self.path = Path(folder) / FILE
        self.answers: dict[str, Any] = {}
        if self.path.exists():
            if not resume:
                raise BadInput(f"{self.path}: this output folder holds an unfinished or earlier run; continue it "
                               f"with --resume, or give another --output_path")
            self._load(config)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a", encoding="utf-8")
        if not self.answers and self.path.stat().st_size == 0:
            self._write({"config": config})

    def _load(self, config: dict[str, Any]) -> None:
        with open(self.path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        try:
            head = json.loads(lines[0])["config"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise BadInput(f"{self.path}:1: not a bananabench request journal") from None
        if canonical_json(head) != canonical_json(config):
            changed = sorted(k for k in set(head) | set(config) if canonical_json(head.get(k)) !=
                             canonical_json(config.get(k)))
            raise BadInput(f"{self.path}: cannot resume: the configuration differs in {', '.join(changed)} "
                           f"(start again without --resume, with another --output_path)")
        for line in lines[1:]:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # the last line of a killed run may be cut short
            self.answers[entry["k"]] = entry["v"]

    def _write(self, obj: dict[str, Any]) -> None:
        self._fh.write(json.dumps(obj, allow_nan=False) + "\n")
        self._fh.flush()

    def add(self, key: str, value: Any) -> None:
        self.answers[key] = value
        self._write({"k": key, "v": value})

    def close(self) -> None:
        """Stop writing; a journal that holds no answer yet is removed (nothing to resume)."""
        self._fh.close()
        if not self.answers:
            self.path.unlink(missing_ok=True)

    def remove(self) -> None:
        """The run finished and its outputs are written: nothing is left to resume."""
        if not self._fh.closed:
            self._fh.close()
        self.path.unlink(missing_ok=True)
