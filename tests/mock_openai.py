"""A scripted OpenAI-compatible stand-in for a model server: it plays the MODEL's answers only.

Tests use it where the content of an answer matters (thinking-first outputs, tool-call loops,
runaway generation, stalls, 500s mid-run, a server that goes away) and for llama.cpp router
mode; the plumbing itself is tested against a real llama.cpp server. It speaks what
llama-server speaks: `/v1/chat/completions` (streaming SSE with `delta.content`,
`delta.reasoning_content`, `delta.tool_calls`, a usage chunk with
`stream_options.include_usage`, llama.cpp `timings`; and non-streaming), `/v1/completions`,
`/v1/models`, `/health`, `/props` (with `?model=`), `/slots`, and the router's `/models`.

In-process, as a context manager:

    with MockOpenAI(replies=[Reply(content="The answer is B")]) as mock:
        ...  # talk to mock.base_url; then look at mock.requests

As a subprocess (`python tests/mock_openai.py --config script.json`): prints one JSON line
`{"port": N, "base_url": "..."}` and serves until SIGTERM/SIGINT. The script file holds
`models`, `router`, `replies`, `rules`, `default` (see `MockOpenAI.from_config`); the
control endpoints `GET /__mock__/requests`, `POST /__mock__/script` (more replies/rules) and
`POST /__mock__/reset` let another process drive it.

Which reply answers a generation request: the first rule whose pattern matches (rules can be
limited to N firings), else the next queued reply, else `default`, else HTTP 500
"mock script exhausted". Every request (control endpoints excepted) is recorded.
"""

from __future__ import annotations

import argparse
import json
import re
import select
import signal
import socket
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

DEFAULT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def count_tokens(text: str | None) -> int:
    """A deterministic stand-in for a tokenizer: about four characters per token."""
    return (len(text) + 3) // 4 if text else 0


@dataclass
class Reply:
    """One scripted model answer and how to deliver it.

    `repeat` adds that many extra content chunks of `repeat_text` after `content` (a runaway
    generation); -1 streams until the client hangs up. `drop_after` closes the connection after
    that many SSE chunks (0, or any value for a non-streaming request: before any response). `stall_s` pauses after the first chunk.
    `status` other than 200 answers with an OpenAI-style error body instead.
    """

    content: str | None = ""
    reasoning: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    status: int = 200
    error: str | None = None
    delay_s: float = 0.0
    chunk_delay_s: float = 0.0
    chunk_chars: int = 8
    stall_s: float = 0.0
    drop_after: int | None = None
    repeat: int = 0
    repeat_text: str = "and so on "
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int = 0
    timings: dict[str, float] | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any] | str) -> Reply:
        if isinstance(data, str):
            return cls(content=data)
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown reply fields {sorted(unknown)}")
        return cls(**data)

    def finish(self) -> str:
        if self.finish_reason:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


@dataclass
class Rule:
    """Answer requests whose text matches `match` (a regex, or a predicate on the request body).

    `on` picks the text: `last_user` (the last user message, or the prompt of a completion),
    `last` (the last message of any role, e.g. a tool result), `all` (every message joined) or
    `prompt`. A list of replies is played in order, one per firing, the last one repeating.
    `times` limits how often the rule fires; `model` limits it to requests for that model.
    """

    match: str | Callable[[dict[str, Any]], bool]
    reply: Reply | list[Reply] | Callable[[dict[str, Any]], Reply]
    on: str = "last_user"
    times: int | None = None
    model: str | None = None
    fired: int = 0

    def matches(self, body: dict[str, Any]) -> bool:
        if self.times is not None and self.fired >= self.times:
            return False
        if self.model is not None and body.get("model") != self.model:
            return False
        if callable(self.match):
            return bool(self.match(body))
        return re.search(self.match, request_text(body, self.on) or "", re.S) is not None

    def take(self, body: dict[str, Any]) -> Reply:
        n = self.fired
        self.fired += 1
        if callable(self.reply):
            return self.reply(body)
        if isinstance(self.reply, list):
            return self.reply[min(n, len(self.reply) - 1)]
        return self.reply

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rule:
        reply = data["reply"]
        replies = [Reply.from_dict(r) for r in reply] if isinstance(reply, list) else Reply.from_dict(reply)
        return cls(match=data["match"], reply=replies, on=data.get("on", "last_user"),
                   times=data.get("times"), model=data.get("model"))


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def request_text(body: dict[str, Any], on: str = "last_user") -> str | None:
    """The part of a request a rule looks at (see `Rule`)."""
    messages = body.get("messages")
    if not messages:
        prompt = body.get("prompt")
        return prompt if isinstance(prompt, str) else json.dumps(prompt)
    if on == "last":
        return _message_text(messages[-1])
    if on == "all" or on == "prompt":
        return "\n".join(_message_text(m) for m in messages)
    for message in reversed(messages):
        if message.get("role") == "user":
            return _message_text(message)
    return None


@dataclass
class ModelSpec:
    """A model the stand-in serves; `status` and `args` matter in router mode only."""

    id: str = "mock-model"
    n_ctx: int = 4096  # per slot, as llama.cpp reports it in /props and /slots
    slots: int = 1
    status: str = "loaded"  # router: loaded | unloaded | loading | sleeping
    args: list[str] | None = None  # router: the launch arguments of the model instance
    preset: str | None = None
    path: str | None = None
    chat_template: str = DEFAULT_TEMPLATE
    bos_token: str = "<s>"
    eos_token: str = "</s>"
    build_info: str = "b9999-mock"

    @classmethod
    def from_dict(cls, data: dict[str, Any] | str) -> ModelSpec:
        return cls(id=data) if isinstance(data, str) else cls(**data)


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    at: float

    def as_dict(self) -> dict[str, Any]:
        return {"method": self.method, "path": self.path, "query": self.query, "headers": self.headers,
                "body": self.body, "at": self.at}


class _Dropped(Exception):
    """The scripted reply asked to cut the connection."""


class MockOpenAI:
    """The scripted server. Thread-safe; start with `start()` or use as a context manager."""

    def __init__(self, replies: Iterable[Reply | str] = (), *, rules: Iterable[Rule] = (),
                 default: Reply | str | None = None, models: Iterable[ModelSpec | str] | None = None,
                 router: bool = False, autoload: bool = True, disable: Iterable[str] = (),
                 props_extra: dict[str, Any] | None = None, health_failures: int = 0,
                 host: str = "127.0.0.1", port: int = 0):
        self.replies: deque[Reply] = deque(_reply(r) for r in replies)
        self.rules: list[Rule] = list(rules)
        self.default = _reply(default) if default is not None else None
        specs = [ModelSpec.from_dict(m) if not isinstance(m, ModelSpec) else m for m in (models or [ModelSpec()])]
        self.models: dict[str, ModelSpec] = {m.id: m for m in specs}
        self.router = router
        self.autoload = autoload
        self.disabled = set(disable)
        self.props_extra = props_extra or {}
        self.health_failures = health_failures
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._host, self._port = host, port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    @classmethod
    def from_config(cls, config: dict[str, Any], **kwargs: Any) -> MockOpenAI:
        """Build from a JSON-able script: models, router, autoload, disable, replies, rules, default."""
        return cls(
            replies=[Reply.from_dict(r) for r in config.get("replies", [])],
            rules=[Rule.from_dict(r) for r in config.get("rules", [])],
            default=Reply.from_dict(config["default"]) if config.get("default") is not None else None,
            models=[ModelSpec.from_dict(m) for m in config.get("models", [])] or None,
            router=config.get("router", False), autoload=config.get("autoload", True),
            disable=config.get("disable", ()), props_extra=config.get("props_extra"),
            health_failures=config.get("health_failures", 0), **kwargs,
        )

    def start(self) -> MockOpenAI:
        handler = type("Handler", (_Handler,), {"mock": self})
        self._httpd = ThreadingHTTPServer((self._host, self._port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="mock-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> MockOpenAI:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}"

    # -- scripting ---------------------------------------------------------------------------

    def add(self, *replies: Reply | str) -> None:
        with self._lock:
            self.replies.extend(_reply(r) for r in replies)

    def add_rule(self, rule: Rule) -> None:
        with self._lock:
            self.rules.append(rule)

    def next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            for rule in self.rules:
                if rule.matches(body):
                    return rule.take(body)
            if self.replies:
                return self.replies.popleft()
            if self.default is not None:
                return self.default
        return Reply(status=500, error="mock script exhausted: no reply left for this request")

    def generation_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path in ("/v1/chat/completions", "/v1/completions",
                                                       "/chat/completions", "/completions")]

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def sleep(self, seconds: float) -> None:
        """Sleep, but wake up when the server stops (so never-ending replies end with it)."""
        self._stopping.wait(seconds)

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    # -- llama.cpp-shaped documents ----------------------------------------------------------

    def model_for(self, name: str | None) -> ModelSpec | None:
        if name is None or name == "":
            return next(iter(self.models.values())) if not self.router else None
        if name in self.models:
            return self.models[name]
        return None if self.router else next(iter(self.models.values()))

    def props(self, spec: ModelSpec) -> dict[str, Any]:
        props = {
            "default_generation_settings": {
                "id": 0, "id_task": -1, "n_ctx": spec.n_ctx, "speculative": False, "is_processing": False,
                "params": {"n_predict": -1, "temperature": 0.8, "top_k": 40, "top_p": 0.95, "min_p": 0.05,
                           "seed": 4294967295, "stop": [], "samplers": ["top_k", "top_p", "min_p", "temperature"]},
            },
            "total_slots": spec.slots,
            "model_path": spec.path or f"/models/{spec.id}.gguf",
            "model_alias": spec.id,
            "chat_template": spec.chat_template,
            "bos_token": spec.bos_token,
            "eos_token": spec.eos_token,
            "build_info": spec.build_info,
            "modalities": {"vision": False, "audio": False},
            "is_sleeping": False,
        }
        props.update(self.props_extra)
        return props

    def slots(self, spec: ModelSpec) -> list[dict[str, Any]]:
        return [{"id": i, "id_task": -1, "n_ctx": spec.n_ctx, "speculative": False, "is_processing": False,
                 "params": {"temperature": 0.8}} for i in range(spec.slots)]

    def model_entry(self, spec: ModelSpec) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": spec.id, "object": "model", "owned_by": "llamacpp", "created": 1700000000,
                                 "meta": {"n_ctx_train": spec.n_ctx * spec.slots, "n_params": 1000, "size": 4096}}
        if self.router:
            status: dict[str, Any] = {"value": spec.status}
            if spec.args is not None and spec.status != "unloaded":
                status["args"] = list(spec.args)
            entry.update({"path": spec.path or f"/models/{spec.id}.gguf", "in_cache": False, "status": status})
            if spec.preset is not None:
                entry["preset"] = spec.preset
        return entry


def _reply(reply: Reply | str) -> Reply:
    return Reply(content=reply) if isinstance(reply, str) else reply


class _Handler(BaseHTTPRequestHandler):
    mock: MockOpenAI
    protocol_version = "HTTP/1.1"
    server_version = "mock-llama-server"
    counted = False  # this request counts in `mock.in_flight`

    def _answered(self) -> None:
        """The request stops counting as in flight just before the bytes that end its response for the client
        (the JSON body, a stream's [DONE]): once they are sent, the client may send its next request before this
        thread runs again, and the two would be counted as overlapping."""
        if self.counted:
            self.counted = False
            self.mock._leave()

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read `mock.requests`
        pass

    # -- plumbing ----------------------------------------------------------------------------

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw.decode("utf-8", "replace")

    def _send_json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self._answered()
        self.wfile.write(data)

    def _error(self, status: int, message: str, kind: str = "server_error") -> None:
        self._send_json(status, {"error": {"code": status, "message": message, "type": kind}})

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        raise _Dropped

    def _dispatch(self, method: str) -> None:
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        body = self._body() if method == "POST" else None
        path = url.path.rstrip("/") or "/"
        if path.startswith("/__mock__/"):
            return self._control(path, body)
        self.mock.record(RecordedRequest(method, path, query, dict(self.headers.items()), body, time.time()))
        try:
            self._route(method, path, query, body)
        except _Dropped:
            pass
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    # -- routes ------------------------------------------------------------------------------

    def _route(self, method: str, path: str, query: dict[str, str], body: Any) -> None:
        mock = self.mock
        if path in mock.disabled:
            return self._error(404, f"File Not Found: {path}", "not_found_error")
        if method == "GET" and path == "/health":
            with mock._lock:
                failing = mock.health_failures > 0
                mock.health_failures -= 1 if failing else 0
            if failing:
                return self._error(503, "Loading model", "unavailable_error")
            return self._send_json(200, {"status": "ok"})
        if method == "GET" and path in ("/v1/models", "/models"):
            if path == "/models" and not mock.router:
                return self._error(404, "File Not Found", "not_found_error")
            data = [mock.model_entry(m) for m in mock.models.values()]
            return self._send_json(200, {"object": "list", "data": data})
        if method == "GET" and path == "/props":
            return self._props(query)
        if method == "GET" and path == "/slots":
            spec = self._spec_for_get(query)
            if spec is not None:
                self._send_json(200, mock.slots(spec))
            return None
        if method == "POST" and path in ("/v1/chat/completions", "/chat/completions"):
            return self._generate(body, chat=True)
        if method == "POST" and path in ("/v1/completions", "/completions"):
            return self._generate(body, chat=False)
        return self._error(404, f"File Not Found: {path}", "not_found_error")

    def _spec_for_get(self, query: dict[str, str]) -> ModelSpec | None:
        """The model a GET addresses; in router mode `?model=` is required (and may autoload)."""
        mock = self.mock
        name = query.get("model")
        if not mock.router:
            return mock.model_for(name)
        if not name:
            self._error(400, "model name is missing from the request", "invalid_request_error")
            return None
        spec = mock.models.get(name)
        if spec is None:
            self._error(400, f"model '{name}' not found", "invalid_request_error")
            return None
        if not self._ensure_loaded(spec, query.get("autoload")):
            return None
        return spec

    def _ensure_loaded(self, spec: ModelSpec, autoload: str | None = None) -> bool:
        if spec.status == "loaded":
            return True
        allowed = self.mock.autoload if autoload is None else autoload.lower() == "true"
        if not allowed:
            self._error(400, f"model '{spec.id}' is not loaded", "invalid_request_error")
            return False
        spec.status = "loaded"
        return True

    def _props(self, query: dict[str, str]) -> None:
        mock = self.mock
        if mock.router and not query.get("model"):
            return self._send_json(200, {"role": "router", "build_info": "b9999-mock", "max_instances": 4,
                                         "models_autoload": mock.autoload})
        spec = self._spec_for_get(query)
        if spec is not None:
            self._send_json(200, mock.props(spec))

    def _generate(self, body: Any, *, chat: bool) -> None:
        mock = self.mock
        if not isinstance(body, dict):
            return self._error(400, "request body must be a JSON object", "invalid_request_error")
        if chat and not isinstance(body.get("messages"), list):
            return self._error(400, "'messages' is required", "invalid_request_error")
        if not chat and "prompt" not in body:
            return self._error(400, "'prompt' is required", "invalid_request_error")
        spec = mock.model_for(body.get("model"))
        if spec is None:
            return self._error(400, f"model '{body.get('model')}' not found", "invalid_request_error")
        if mock.router and not self._ensure_loaded(spec):
            return None
        reply = mock.next_reply(body)
        mock._enter()
        self.counted = True
        try:
            if reply.delay_s:
                mock.sleep(reply.delay_s)
            if reply.drop_after == 0 or (reply.drop_after is not None and not body.get("stream")):
                self._drop()
            if reply.status != 200:
                return self._error(reply.status, reply.error or HTTPStatus(reply.status).phrase)
            if body.get("stream"):
                self._stream(body, reply, spec, chat)
            else:
                self._send_json(200, _whole_response(body, reply, spec, chat))
        finally:
            self._answered()

    def _stream(self, body: dict[str, Any], reply: Reply, spec: ModelSpec, chat: bool) -> None:
        mock = self.mock
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        sent = 0
        for event in _events(body, reply, spec, chat, include_usage, mock):
            if reply.drop_after is not None and sent >= reply.drop_after:
                self._drop()
            payload = event if isinstance(event, str) else json.dumps(event)
            if payload == "[DONE]":  # a client stops reading here, before the stream's closing chunk
                self._answered()
            self._chunk(f"data: {payload}\n\n".encode())
            sent += 1
            if sent == 1 and reply.stall_s:
                self._stall(reply.stall_s)
            elif reply.chunk_delay_s:
                mock.sleep(reply.chunk_delay_s)
            if mock.stopping:
                self._drop()
        self._chunk(b"")

    def _stall(self, seconds: float) -> None:
        """Send nothing for `seconds`, but end the request when its client goes away, as llama-server does."""
        deadline = time.monotonic() + seconds
        while not self.mock.stopping and (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], min(left, 0.1))
            if readable:
                if not self.connection.recv(1, socket.MSG_PEEK):
                    self._drop()
                self.mock.sleep(min(left, 0.1))  # bytes of a next request: no client gone, nothing to wait on

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    # -- control -----------------------------------------------------------------------------

    def _control(self, path: str, body: Any) -> None:
        mock = self.mock
        if path == "/__mock__/requests":
            with mock._lock:
                return self._send_json(200, [r.as_dict() for r in mock.requests])
        if path == "/__mock__/script" and isinstance(body, dict):
            for reply in body.get("replies", []):
                mock.add(Reply.from_dict(reply))
            for rule in body.get("rules", []):
                mock.add_rule(Rule.from_dict(rule))
            if body.get("default") is not None:
                mock.default = Reply.from_dict(body["default"])
            return self._send_json(200, {"queued": len(mock.replies), "rules": len(mock.rules)})
        if path == "/__mock__/reset":
            with mock._lock:
                mock.requests.clear()
                mock.replies.clear()
                mock.rules.clear()
            return self._send_json(200, {"ok": True})
        return self._error(404, f"unknown control path {path}")


# -- response bodies ---------------------------------------------------------------------------


def _usage(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    prompt = reply.prompt_tokens if reply.prompt_tokens is not None else count_tokens(request_text(body, "all"))
    completion = reply.completion_tokens if reply.completion_tokens is not None else (
        count_tokens(reply.content) + count_tokens(reply.reasoning)
        + sum(count_tokens(json.dumps(c)) for c in reply.tool_calls)
        + max(reply.repeat, 0) * count_tokens(reply.repeat_text))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": reply.cached_tokens}}


def _timings(usage: dict[str, Any], reply: Reply) -> dict[str, float]:
    if reply.timings is not None:
        return dict(reply.timings)
    prompt_n = usage["prompt_tokens"] - reply.cached_tokens
    predicted_n = usage["completion_tokens"]
    prompt_ms, predicted_ms = max(prompt_n, 1) * 0.5, max(predicted_n, 1) * 2.0
    return {"cache_n": reply.cached_tokens, "prompt_n": prompt_n, "prompt_ms": prompt_ms,
            "prompt_per_token_ms": prompt_ms / max(prompt_n, 1), "prompt_per_second": 1000 * prompt_n / prompt_ms,
            "predicted_n": predicted_n, "predicted_ms": predicted_ms,
            "predicted_per_token_ms": predicted_ms / max(predicted_n, 1),
            "predicted_per_second": 1000 * predicted_n / predicted_ms}


def _tool_call(call: dict[str, Any], index: int) -> dict[str, Any]:
    arguments = call.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    return {"index": index, "id": call.get("id") or f"call_{uuid.uuid4().hex[:12]}", "type": "function",
            "function": {"name": call["name"], "arguments": arguments}}


def _head(body: dict[str, Any], spec: ModelSpec, chat: bool, streaming: bool) -> dict[str, Any]:
    kind = ("chat.completion" if chat else "text_completion") + (".chunk" if streaming and chat else "")
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:16]}", "object": kind, "created": int(time.time()),
            "model": body.get("model") or spec.id, "system_fingerprint": spec.build_info}


def _whole_response(body: dict[str, Any], reply: Reply, spec: ModelSpec, chat: bool) -> dict[str, Any]:
    content = (reply.content or "") + (reply.repeat_text * max(reply.repeat, 0))
    usage = _usage(body, reply)
    if chat:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        if reply.tool_calls:
            message["tool_calls"] = [_tool_call(c, i) for i, c in enumerate(reply.tool_calls)]
        choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": reply.finish()}
    else:
        choice = {"index": 0, "text": content, "logprobs": None, "finish_reason": reply.finish()}
    return {**_head(body, spec, chat, False), "choices": [choice], "usage": usage,
            "timings": _timings(usage, reply)}


def _pieces(text: str | None, size: int) -> Iterator[str]:
    text = text or ""
    for i in range(0, len(text), max(size, 1)):
        yield text[i:i + size]


def _events(body: dict[str, Any], reply: Reply, spec: ModelSpec, chat: bool, include_usage: bool,
            mock: MockOpenAI) -> Iterator[dict[str, Any] | str]:
    head = _head(body, spec, chat, True)

    def chunk(delta: dict[str, Any] | None = None, text: str | None = None,
              finish: str | None = None) -> dict[str, Any]:
        if chat:
            return {**head, "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}
        return {**head, "choices": [{"index": 0, "text": text or "", "logprobs": None, "finish_reason": finish}]}

    if chat:
        yield chunk({"role": "assistant", "content": None})
        for piece in _pieces(reply.reasoning, reply.chunk_chars):
            yield chunk({"reasoning_content": piece})
    for piece in _pieces(reply.content, reply.chunk_chars):
        yield chunk({"content": piece}, piece)
    n = 0
    while reply.repeat < 0 or n < reply.repeat:
        if mock.stopping:
            return
        yield chunk({"content": reply.repeat_text}, reply.repeat_text)
        n += 1
    if chat:
        for i, call in enumerate(reply.tool_calls):
            full = _tool_call(call, i)
            arguments = full["function"]["arguments"]
            yield chunk({"tool_calls": [{**full, "function": {"name": full["function"]["name"], "arguments": ""}}]})
            for piece in _pieces(arguments, reply.chunk_chars):
                yield chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    usage = _usage(body, reply)
    final = chunk(finish=reply.finish())
    final["timings"] = _timings(usage, reply)
    yield final
    if include_usage:
        yield {**head, "choices": [], "usage": usage, "timings": final["timings"]}
    yield "[DONE]"


# -- subprocess -------------------------------------------------------------------------------


class MockProcess:
    """The stand-in in its own process (`python tests/mock_openai.py`), for tests that need one.

    `stop()` sends SIGTERM; `kill()` SIGKILLs it, which is how a test makes a server vanish.
    """

    def __init__(self, config: dict[str, Any], workdir: str, port: int = 0):
        self.config = config
        self.workdir = workdir
        self.port = port
        self.proc: Any = None
        self.base_url = ""

    def start(self) -> MockProcess:
        import os
        import subprocess

        path = os.path.join(self.workdir, f"mock-script-{uuid.uuid4().hex[:8]}.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.config, fh)
        self.proc = subprocess.Popen([sys.executable, __file__, "--config", path, "--port", str(self.port)],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()  # the port line, or EOF if it died
        if not line:
            self.proc.kill()
            raise RuntimeError("mock server subprocess did not start")
        info = json.loads(line)
        self.port, self.base_url = info["port"], info["base_url"]
        return self

    def requests(self) -> list[dict[str, Any]]:
        from urllib.request import urlopen

        with urlopen(self.base_url + "/__mock__/requests", timeout=10) as resp:
            return json.loads(resp.read())

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def __enter__(self) -> MockProcess:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


# -- subprocess entry point --------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible stand-in for a model server.")
    parser.add_argument("--config", help="JSON script (models, router, replies, rules, default)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    config = json.loads(open(args.config, encoding="utf-8").read()) if args.config else {}
    mock = MockOpenAI.from_config(config, host=args.host, port=args.port).start()
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    print(json.dumps({"port": mock.port, "base_url": mock.base_url}), flush=True)
    done.wait()
    mock.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
