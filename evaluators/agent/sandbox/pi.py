"""Driving Pi in RPC mode: its configuration, its command line, and the event loop of one attempt.

Pi keeps its default configuration; the runner writes only `models.json` (one provider pointing
at the in-container bridge, with the detected context window) and the few settings it must own
(default model and thinking level), plus any `[pi.settings]` the user's config file adds.
RPC mode (not json mode) is used because it survives context-overflow compaction: the attempt
ends when Pi is idle after its last `agent_end`, not at the first one.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from evaluators.agent.attempts.events import DROPPED

PROVIDER = "bench"
BRIDGE_PORT = 8080
# Flags that keep a task's repository from changing Pi (extensions, skills, templates, themes).
PI_FLAGS = ("--mode", "rpc", "--no-extensions", "--no-skills", "--no-prompt-templates", "--no-themes",
            "--session-dir", "/home/agent/.pi/sessions")
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")


@dataclass(frozen=True)
class PiOptions:
    model_id: str
    context_window: int
    max_tokens: int | None = None
    reasoning: bool = False
    thinking: str | None = None
    settings: dict[str, Any] | None = None


def _deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        out[key] = _deep_merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def write_config(directory: Path, options: PiOptions) -> None:
    """models.json and settings.json for PI_CODING_AGENT_DIR."""
    directory.mkdir(parents=True, exist_ok=True)
    model: dict[str, Any] = {"id": options.model_id, "name": options.model_id, "contextWindow": options.context_window,
                             "reasoning": options.reasoning, "input": ["text"],
                             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}
    if options.max_tokens:
        model["maxTokens"] = options.max_tokens
    models = {"providers": {PROVIDER: {
        "baseUrl": f"http://127.0.0.1:{BRIDGE_PORT}/v1", "api": "openai-completions", "apiKey": "sandbox",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False, "supportsStore": False,
                   "supportsStrictMode": False, "maxTokensField": "max_tokens"},
        "models": [model],
    }}}
    settings: dict[str, Any] = {"defaultProvider": PROVIDER, "defaultModel": options.model_id}
    if options.thinking:
        settings["defaultThinkingLevel"] = options.thinking
    settings = _deep_merge(settings, options.settings or {})
    (directory / "models.json").write_text(json.dumps(models, indent=2) + "\n")
    (directory / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")


def container_argv(config_mount: str, socket_path: str, entry: str) -> list[str]:
    """What the agent container runs: copy the config into the writable home, start the bridge, run Pi from
    `entry` (`Image.pi_entry`)."""
    script = (f'mkdir -p "$PI_CODING_AGENT_DIR" && cp {config_mount}/*.json "$PI_CODING_AGENT_DIR"/ && '
              f'exec node /opt/bananabench/bridge.js {socket_path} {BRIDGE_PORT} -- node {entry} '
              + " ".join(PI_FLAGS))
    return ["/bin/sh", "-c", script]


class PiProcess:
    """The `podman run -i` process running Pi; events arrive on a queue, the kept ones go to a file."""

    def __init__(self, argv: list[str], events_path: Path, stderr_path: Path, cwd: str | None = None):
        self.events_path = events_path
        self._stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                     bufsize=0, cwd=cwd)
        self.queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.last_output = time.monotonic()
        self._events = open(events_path, "w", encoding="utf-8")
        self._reader = threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True)
        self._reader.start()
        self._next_id = 0

    def _read(self, stream: IO[bytes]) -> None:
        """Split on LF only (RPC framing), drop the huge partial-update events, keep the rest."""
        buffer = b""
        try:
            while True:
                block = stream.read(1 << 16)
                if not block:
                    break
                self.last_output = time.monotonic()
                buffer += block
                *lines, buffer = buffer.split(b"\n")
                for raw in lines:
                    self._line(raw)
            if buffer:
                self._line(buffer)
        finally:
            self._events.close()
            self.queue.put(None)

    def _line(self, raw: bytes) -> None:
        raw = raw.rstrip(b"\r")
        if not raw.strip():
            return
        # Cheap check before parsing: partial updates are the bulk of the stream.
        head = raw[:60]
        if b'"type":"message_update"' in head or b'"type":"tool_execution_update"' in head:
            self.queue.put({"type": "_activity"})
            return
        try:
            event = json.loads(raw)
        except ValueError:
            event = {"type": "_unparsed", "text": raw[:2000].decode(errors="replace")}
        if not isinstance(event, dict):
            return
        if event.get("type") in DROPPED:
            self.queue.put({"type": "_activity"})
            return
        event.setdefault("_t", round(time.time(), 3))
        self._events.write(json.dumps(event, ensure_ascii=False) + "\n")
        self._events.flush()
        self.queue.put(event)

    def send(self, command: dict[str, Any]) -> str:
        self._next_id += 1
        command = {"id": f"bb-{self._next_id}", **command}
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(command) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        return command["id"]

    def close_stdin(self) -> None:
        if self.proc.stdin and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def finish(self) -> None:
        self.close_stdin()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._reader.join(timeout=10)
        self._stderr.close()
