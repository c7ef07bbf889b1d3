"""Reference runs: Pi applies each task's own reference solution, through the whole real pipeline.

`ReplayServer` stands where a model server would and answers Pi's chat requests from a script,
never from a model: the first request of an attempt (the task's prompt) gets `write` tool calls that
put every file of the task's `solution/` into the workspace (and a `bash` call applying its
`solution.patch`, if any); the next request gets a closing message. Everything else is real: the
sandbox, the proxy, Pi, the diff, the hidden verification and the screenshots. The run is stored
under its own name with `runs.extra[RunKey.REFERENCE_RUN]` saying what it is, so the site shows it as a
reference run on every page, never as a model's work. It gives graders what a task's reference
looks like next to the models' attempts, and checks the pipeline end to end.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from evaluators.agent.corpus import datasets
from evaluators.core.errors import BadInput

log = logging.getLogger("bananabench")

NAME = "reference-solution"
NOTE = ("Pi applied each task's own reference solution (its solution/ folder), replayed by a script; "
        "no language model wrote it")
CONTEXT = 32768
PATCH = "solution.patch"


def solution_calls(task: datasets.Task) -> list[dict[str, Any]]:
    """The tool calls that turn the task's start state into its reference solution."""
    root = task.solution_dir
    if not root.is_dir():
        raise BadInput(f"{task.id}: no solution/ folder to replay")
    calls = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name != PATCH):
        try:
            content = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise BadInput(f"{path}: a binary file; a reference run can only write text files") from None
        calls.append({"name": "write", "arguments": {"path": path.relative_to(root).as_posix(), "content": content}})
    if (root / PATCH).is_file():
        patch = (root / PATCH).read_text(encoding="utf-8")
        calls.append({"name": "bash", "arguments": {"command": "patch -p1 --forward <<'BANANABENCH_PATCH'\n"
                                                               f"{patch}\nBANANABENCH_PATCH"}})
    if not calls:
        raise BadInput(f"{root}: an empty solution/ folder")
    return calls


class ReplayServer:
    """An OpenAI-compatible endpoint that replays reference solutions: `with ReplayServer(tasks) as s:`."""

    def __init__(self, tasks: list[datasets.Task], *, model_id: str = NAME, slots: int = 1):
        self.model_id = model_id
        self.slots = slots
        self._calls = {task.prompt.strip(): (task, solution_calls(task)) for task in tasks}
        self._httpd: ThreadingHTTPServer | None = None

    def __enter__(self) -> ReplayServer:
        handler = type("ReplayHandler", (_Handler,), {"server_state": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def reply(self, body: dict[str, Any]) -> tuple[str | None, list[dict[str, Any]]]:
        """(closing text, tool calls) for one chat request: the solution first, then a closing message."""
        messages = body.get("messages") or []
        user = "\n".join(_text(m) for m in messages if m.get("role") == "user")
        match = next(((task, calls) for prompt, (task, calls) in self._calls.items() if prompt in user), None)
        if match is None:
            return "This request is not one of the replayed tasks' prompts; nothing to replay.", []
        task, calls = match
        if any(m.get("role") == "assistant" for m in messages):
            return f"Applied the reference solution of {task.id} ({len(calls)} step(s)).", []
        return None, calls


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


class _Handler(BaseHTTPRequestHandler):
    server_state: ReplayServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("replay: " + format, *args)

    def _json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        state = self.server_state
        path = self.path.split("?")[0]
        if path == "/health":
            return self._json(200, {"status": "ok"})
        if path == "/v1/models":
            return self._json(200, {"object": "list", "data": [{"id": state.model_id, "object": "model",
                                                                "owned_by": "bananabench-replay"}]})
        if path == "/props":
            return self._json(200, {"total_slots": state.slots, "model_alias": state.model_id,
                                    "default_generation_settings": {"n_ctx": CONTEXT},
                                    "build_info": "bananabench reference replay"})
        return self._json(404, {"error": {"code": 404, "message": "not found"}})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            return self._json(400, {"error": {"code": 400, "message": "invalid JSON"}})
        if self.path.split("?")[0] != "/v1/chat/completions":
            return self._json(404, {"error": {"code": 404, "message": "not found"}})
        text, calls = self.server_state.reply(body)
        tool_calls = [{"index": i, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                       "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                      for i, c in enumerate(calls)]
        finish = "tool_calls" if calls else "stop"
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        head = {"id": f"chatcmpl-{uuid.uuid4().hex[:16]}", "created": int(time.time()),
                "model": self.server_state.model_id}
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if tool_calls:
                message["tool_calls"] = tool_calls
            return self._json(200, {**head, "object": "chat.completion", "usage": usage,
                                    "choices": [{"index": 0, "message": message, "finish_reason": finish}]})
        chunk = {**head, "object": "chat.completion.chunk"}
        delta: dict[str, Any] = {"role": "assistant", "content": text}
        if tool_calls:
            delta["tool_calls"] = tool_calls
        events = [{**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}]
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append({**chunk, "choices": [], "usage": usage})
        data = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def run_reference(results: str | Path | None, *, tasks_dir: str | None = None, only: Sequence[str] = (),
                  exclude: Sequence[str] = (), categories: Sequence[str] = (), tags: Sequence[str] = (),
                  rerun: bool = False, name: str = NAME, **options: Any) -> dict[str, Any]:
    """A reference run of the selected tasks into `results` (the agent runner's summary); `options` are
    further `AgentRunOptions` fields (e.g. `workspace_mb`)."""
    from evaluators.agent.attempts.run import AgentRunOptions, run_agent_benchmark
    from evaluators.models.backends.discovery import ServerOptions

    root = datasets.tasks_root(tasks_dir)
    tasks = datasets.select(datasets.load_tasks(root), only=only, exclude=exclude, categories=categories, tags=tags)
    if not tasks:
        raise BadInput(f"no task under {root} matches the selection")
    with ReplayServer(tasks, model_id=name) as server:
        return run_agent_benchmark(AgentRunOptions(
            name=name, server=ServerOptions(base_url=server.base_url), results=None if results is None else str(results),
            tasks_dir=str(root), only=[t.id for t in tasks], parallel=1, rerun=rerun, reference=NOTE, **options))
