"""Per-attempt numbers computed from Pi's event stream alone, so `agent backfill` can redo them.

Tokens come from each assistant message's `usage` (Pi reports `input` = prompt − cached,
`cacheRead` = cached, `output` = completion tokens); the context an assistant message used is
input + cacheRead + cacheWrite + output. Compactions are finished `compaction_end` events.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from evaluators.agent.attempts.monitor import message_text
from evaluators.core import atomic

# Events dropped from events.jsonl: each repeats the whole partial message (megabytes per reply).
DROPPED = frozenset({"message_update", "tool_execution_update"})


def read_events(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """Events from an events.jsonl (a torn last line is skipped)."""
    return atomic.read_jsonl(path)


def _context(usage: dict[str, Any]) -> int:
    total = usage.get("totalTokens")
    if isinstance(total, (int, float)) and total > 0:
        return int(total)
    return int(sum(usage.get(k) or 0 for k in ("input", "output", "cacheRead", "cacheWrite")))


def summarize(events: Iterable[dict[str, Any]], context_window: int | None) -> dict[str, Any]:
    """Metrics and facts of one attempt: turns, tool calls, tokens, context, compactions, final message."""
    turns = 0
    by_name: Counter[str] = Counter()
    errors = 0
    tokens = {"input": 0, "output": 0, "cache": 0}
    contexts: list[int] = []
    compactions = 0
    final_message = ""
    stop_reason = None
    error_message = None
    agent_ends = 0
    for event in events:
        kind = event.get("type")
        if kind == "turn_end":
            turns += 1
        elif kind == "tool_execution_start":
            by_name[str(event.get("toolName"))] += 1
        elif kind == "tool_execution_end" and event.get("isError"):
            errors += 1
        elif kind == "message_end":
            message = event.get("message") or {}
            if message.get("role") != "assistant":
                continue
            usage = message.get("usage") or {}
            tokens["input"] += int(usage.get("input") or 0)
            tokens["output"] += int(usage.get("output") or 0)
            tokens["cache"] += int(usage.get("cacheRead") or 0)
            used = _context(usage)
            if used:
                contexts.append(used)
            stop_reason = message.get("stopReason")
            error_message = message.get("errorMessage")
            text = message_text(message).strip()
            if text:
                final_message = text
        elif kind == "compaction_end" and event.get("result") and not event.get("aborted"):
            compactions += 1
        elif kind == "agent_end":
            agent_ends += 1
    peak = max(contexts, default=0)
    final = contexts[-1] if contexts else 0
    share = (lambda v: round(v / context_window, 4)) if context_window else (lambda v: None)
    return {
        "turns": turns,
        "tool_calls": sum(by_name.values()),
        "tool_errors": errors,
        "tool_calls_by_name": dict(sorted(by_name.items())),
        "tokens_input": tokens["input"],
        "tokens_output": tokens["output"],
        "tokens_cache": tokens["cache"],
        "context_final": final,
        "context_peak": peak,
        "context_final_share": share(final),
        "context_peak_share": share(peak),
        "compactions": compactions,
        "final_message": final_message,
        "stop_reason": stop_reason,
        "error_message": error_message,
        "agent_ends": agent_ends,
    }


# The numeric fields of `summarize` that go to `attempt_metrics`.
EVENT_METRICS = ("turns", "tool_calls", "tool_errors", "tokens_input", "tokens_output", "tokens_cache",
                 "context_final", "context_peak", "context_final_share", "context_peak_share", "compactions")
