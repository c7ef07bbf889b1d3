"""The stuck monitor: decides from Pi's events and the proxy's traffic when to stop an attempt.

It reacts to: the wall-clock limit (status `timeout`); and with status `stuck` to no Pi event and
no model traffic for `idle_s`, the same tool call `repeat_call` times in a row, a cycle of 2–4
calls repeated `cycle_repeats` times, the same assistant message `repeat_message` times in a row,
one response over `max_chunks` streamed chunks (runaway generation, cut off by the proxy), and
more than `max_tool_calls` tool calls; and with status `failed` to a workspace that filled its
size-limited file system (`workspace_full`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from evaluators.agent.sandbox.limits import Limits


@dataclass(frozen=True)
class Verdict:
    status: str          # "timeout", "stuck", or "failed" (workspace_full)
    reason: str          # stuck_reason: timeout, idle, repeated_call, cycle, repeated_message, runaway, tool_calls,
                         # workspace_full
    detail: str


def call_key(name: str, args: Any) -> str:
    """A tool call's identity: its name and canonical arguments."""
    return name + " " + json.dumps(args, sort_keys=True, separators=(",", ":"), default=str)


def message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = [c.get("text", "") for c in content or [] if isinstance(c, dict) and c.get("type") == "text"]
    return "".join(parts)


class StuckMonitor:
    """Feed it every Pi event with `observe`; ask `check` periodically for a verdict."""

    def __init__(self, limits: Limits, *, clock=time.monotonic):
        self.limits = limits
        self.clock = clock
        self.started = clock()
        self.last_event = self.started
        self.calls: list[str] = []
        self.messages: list[str] = []
        self.verdict: Verdict | None = None

    def observe(self, event: dict[str, Any]) -> Verdict | None:
        self.last_event = self.clock()
        kind = event.get("type")
        if kind == "tool_execution_start":
            self.calls.append(call_key(str(event.get("toolName")), event.get("args")))
            self._decide(self._calls_verdict())
        elif kind == "message_end":
            message = event.get("message") or {}
            if message.get("role") == "assistant":
                text = message_text(message).strip()
                if text:
                    self.messages.append(text)
                    self._decide(self._message_verdict())
        return self.verdict

    def check(self, *, last_traffic: float | None = None, runaway: bool = False,
              workspace_full: bool = False) -> Verdict | None:
        """Time-based conditions, the proxy's runaway flag and a full workspace."""
        now = self.clock()
        if workspace_full:
            self._decide(Verdict("failed", "workspace_full",
                                 f"the workspace reached its {self.limits.workspace_mb} MiB size limit (enforced by the "
                                 "kernel); the attempt was stopped"))
        if runaway:
            self._decide(Verdict("stuck", "runaway", f"a response passed {self.limits.max_chunks} chunks"))
        if now - self.started > self.limits.timeout_s:
            self._decide(Verdict("timeout", "timeout", f"wall clock passed {self.limits.timeout_s:g} s"))
        last = max(self.last_event, last_traffic or 0.0)
        if now - last > self.limits.idle_s:
            self._decide(Verdict("stuck", "idle", f"no Pi event and no model traffic for {self.limits.idle_s:g} s"))
        return self.verdict

    def _decide(self, verdict: Verdict | None) -> None:
        if verdict is not None and self.verdict is None:
            self.verdict = verdict

    def _calls_verdict(self) -> Verdict | None:
        calls, lim = self.calls, self.limits
        if len(calls) > lim.max_tool_calls:
            return Verdict("stuck", "tool_calls", f"more than {lim.max_tool_calls} tool calls")
        n = lim.repeat_call
        if len(calls) >= n and len(set(calls[-n:])) == 1:
            return Verdict("stuck", "repeated_call", f"the same tool call {n} times in a row: {calls[-1][:120]}")
        reps = lim.cycle_repeats
        for length in (2, 3, 4):
            span = length * reps
            if len(calls) < span:
                continue
            cycle = calls[-length:]
            if len(set(cycle)) > 1 and calls[-span:] == cycle * reps:
                return Verdict("stuck", "cycle", f"a cycle of {length} tool calls repeated {reps} times")
        return None

    def _message_verdict(self) -> Verdict | None:
        n = self.limits.repeat_message
        if len(self.messages) >= n and len(set(self.messages[-n:])) == 1:
            return Verdict("stuck", "repeated_message", f"the same message {n} times in a row")
        return None
