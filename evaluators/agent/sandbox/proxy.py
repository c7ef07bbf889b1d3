"""The host side of the sandbox's only way out: a filtering HTTP proxy on a unix socket.

The agent container has no network. A bridge inside it maps 127.0.0.1:8080 to this socket, and
this proxy forwards only `POST /v1/chat/completions`, `POST /v1/completions` and `GET /v1/models`
to the model server (or to its replicas: the least loaded one, and another one when its connection
fails before an answer starts), pinning the `model` field to the model under test. Everything else gets 403.
Requests come from the agent, so they are bounded before anything is read: a `Content-Length`
that is not a plain decimal number gets 400, one over MAX_BODY 413; bodies waiting to be forwarded
may hold at most MAX_BUFFERED bytes in all (503 beyond), an attempt gets at most MAX_CONNECTIONS
connections at once (more are closed unanswered), and a client that stops sending is dropped. A request's head (request line and headers) is read under
request_head's bounds before anything parses it (431 and close beyond), and what the proxy
keeps per attempt is bounded too: the first MAX_LOGGED refused requests (403 and 431 alike) and MAX_RECORDS
forwarded ones, with counters of the rest.
On the way it measures the traffic the monitor and the metrics need: request count, streamed
chunks per response (a runaway response is cut off), time to first token, token usage and
llama.cpp's timings, upstream failures, and the time of the last activity (idle detection).
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import socket
import socketserver
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from evaluators.agent.sandbox.request_head import HeadFirst, read_head
from evaluators.core.http import describe_error, normalize_base_url
from evaluators.models.backends.replicas import ReplicaSet

log = logging.getLogger("bananabench")

ALLOWED = {("POST", "/v1/chat/completions"), ("POST", "/v1/completions"), ("GET", "/v1/models")}
MAX_BODY = 32 << 20           # one request body
MAX_BUFFERED = 64 << 20       # all request bodies held at once, per attempt
MAX_DENIED_BODY = 1 << 20     # a refused request's body is drained (to answer cleanly) only up to this
MAX_CONNECTIONS = 16          # open connections per attempt
CLIENT_TIMEOUT_S = 120.0      # a client that sends nothing for this long is dropped
MAX_LOGGED = 100              # refused requests named in the attempt's record
MAX_RECORDS = 20000           # forwarded requests measured one by one
SOCKET_NAME = "model.sock"


@dataclass
class RequestRecord:
    """One forwarded model request, as measured by the proxy."""

    path: str
    status: int | None = None
    chunks: int = 0
    ttft_s: float | None = None
    duration_s: float = 0.0
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    completion_tokens: int | None = None
    prefill_tps: float | None = None
    decode_tps: float | None = None
    error: str | None = None
    cut_off: bool = False


@dataclass
class Traffic:
    """Everything the proxy saw during one attempt (thread-safe updates)."""

    requests: list[RequestRecord] = field(default_factory=list)
    n_requests: int = 0
    denied: list[str] = field(default_factory=list)
    n_denied: int = 0
    last_activity: float = field(default_factory=time.monotonic)
    active: int = 0
    runaway: bool = False
    buffered: int = 0
    connections: int = 0
    refused_connections: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def reserve(self, n: int) -> bool:
        """Take `n` bytes of the buffer budget (False when it would pass MAX_BUFFERED)."""
        with self.lock:
            if self.buffered + n > MAX_BUFFERED:
                return False
            self.buffered += n
            return True

    def release(self, n: int) -> None:
        with self.lock:
            self.buffered -= n

    def deny(self, what: str) -> None:
        """Count a refused request; the first MAX_LOGGED are named in the record."""
        with self.lock:
            self.n_denied += 1
            if len(self.denied) < MAX_LOGGED:
                self.denied.append(what[:200])

    def touch(self) -> None:
        self.last_activity = time.monotonic()

    def upstream_failures(self) -> list[RequestRecord]:
        return [r for r in self.requests if r.error or (r.status is not None and r.status >= 500)]

    def summary(self) -> dict[str, Any]:
        """Aggregates for the attempt's metrics (llm_* and throughput)."""
        with self.lock:
            done = [r for r in self.requests if r.status == 200 and not r.error]
            prefill = [r.prefill_tps for r in done if r.prefill_tps]
            decode = [r.decode_tps for r in done if r.decode_tps]
            ttft = [r.ttft_s for r in done if r.ttft_s is not None]
            return {
                "llm_requests": self.n_requests,
                "llm_requests_unmeasured": self.n_requests - len(self.requests),
                "llm_failed_requests": len(self.upstream_failures()),
                "llm_prompt_tokens": sum(r.prompt_tokens or 0 for r in done),
                "llm_cached_tokens": sum(r.cached_tokens or 0 for r in done),
                "llm_completion_tokens": sum(r.completion_tokens or 0 for r in done),
                "llm_largest_prompt": max((r.prompt_tokens or 0 for r in done), default=0),
                "prefill_tps": sum(prefill) / len(prefill) if prefill else None,
                "decode_tps": sum(decode) / len(decode) if decode else None,
                "ttft_s": sum(ttft) / len(ttft) if ttft else None,
                "max_chunks": max((r.chunks for r in self.requests), default=0),
                "denied": list(self.denied),
                "denied_not_listed": self.n_denied - len(self.denied),
                "refused_connections": self.refused_connections,
            }


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64
    traffic: Traffic

    def process_request(self, request, client_address) -> None:
        """At most MAX_CONNECTIONS at once: more are closed before a thread or a byte is spent on them."""
        with self.traffic.lock:
            if self.traffic.connections >= MAX_CONNECTIONS:
                self.traffic.refused_connections += 1
                refuse = True
            else:
                self.traffic.connections += 1
                refuse = False
        if refuse:
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def handle_error(self, request, client_address) -> None:
        log.debug("proxy: a sandbox connection failed", exc_info=True)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self.traffic.lock:
                self.traffic.connections -= 1


def _cut(conn: http.client.HTTPConnection) -> None:
    try:
        conn.sock.shutdown(socket.SHUT_RDWR)
    except (AttributeError, OSError):
        pass


class ModelProxy:
    """A filtering proxy listening on `<directory>/model.sock`; use as a context manager."""

    def __init__(self, directory: str | os.PathLike, upstream: str | ReplicaSet, model_id: str, *,
                 api_key: str | None = None, max_chunks: int = 32000, upstream_timeout_s: float = 600.0):
        """`upstream`: the model server's URL, or the replicas shared by every attempt of a run."""
        self.directory = Path(directory)
        self.socket_path = self.directory / SOCKET_NAME
        if isinstance(upstream, str):
            parts = urlsplit(upstream.rstrip("/"))
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"model server URL must be http(s)://host[:port], not {upstream!r}")
            upstream = ReplicaSet([normalize_base_url(upstream)], slots=1, api_key=api_key)
        self.replicas = upstream
        self.model_id = model_id
        self.max_chunks = max_chunks
        self.upstream_timeout_s = upstream_timeout_s
        self.traffic = Traffic()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._upstream_lock = threading.Lock()
        self._upstream: set[http.client.HTTPConnection] | None = set()  # None once closed

    def start(self) -> ModelProxy:
        self._upstream = set()
        self.directory.mkdir(parents=True, exist_ok=True)
        os.chmod(self.directory, 0o755)
        if self.socket_path.exists():
            self.socket_path.unlink()
        proxy = self

        class Handler(_Handler):
            owner = proxy

        self._server = _Server(str(self.socket_path), Handler, bind_and_activate=False)
        self._server.traffic = self.traffic
        self._server.server_bind()
        self._server.server_activate()
        # The container's unprivileged user must be able to connect.
        os.chmod(self.socket_path, 0o666)
        self._thread = threading.Thread(target=self._server.serve_forever, name="model-proxy", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop listening and cut the requests still open upstream: a stopped attempt must not keep a
        server slot busy (llama-server ends a generation whose client has gone)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        with self._upstream_lock:
            cut, self._upstream = self._upstream or set(), None
        for conn in cut:
            _cut(conn)
        if self.socket_path.exists():
            self.socket_path.unlink()

    def hold(self, conn: http.client.HTTPConnection) -> None:
        """Note an upstream connection a request holds, for `close` to cut (at once if closed already)."""
        with self._upstream_lock:
            if self._upstream is not None:
                self._upstream.add(conn)
                return
        _cut(conn)

    def let_go(self, conn: http.client.HTTPConnection) -> None:
        with self._upstream_lock:
            if self._upstream is not None:
                self._upstream.discard(conn)

    def __enter__(self) -> ModelProxy:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()


class _Handler(BaseHTTPRequestHandler):
    owner: ModelProxy
    protocol_version = "HTTP/1.1"
    server_version = "bananabench-proxy"
    timeout = CLIENT_TIMEOUT_S

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the runner logs what matters
        log.debug("proxy: " + format, *args)

    def address_string(self) -> str:
        return "sandbox"

    def handle_one_request(self) -> None:
        """Read the request's head under its bounds, then let the standard handler parse it from memory."""
        rfile = self.rfile.source if isinstance(self.rfile, HeadFirst) else self.rfile
        head, problem = read_head(rfile)
        if problem is not None:
            self.close_connection = True
            if problem != "closed":
                self.owner.traffic.deny(f"request head refused (431): {problem}")
                body = json.dumps({"error": {"message": problem, "type": "proxy"}}).encode()
                try:
                    self.wfile.write(b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json"
                                     b"\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                except OSError:
                    pass
            return
        self.rfile = HeadFirst(head, rfile)
        super().handle_one_request()

    def _reply(self, status: int, message: str) -> None:
        body = json.dumps({"error": {"message": message, "type": "proxy"}}).encode()
        self.close_connection = True
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass                                # the client is gone; nothing to tell it

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def do_HEAD(self) -> None:
        self._handle("HEAD")

    def do_OPTIONS(self) -> None:
        self._handle("OPTIONS")

    def _length(self) -> int | None:
        """The request's Content-Length (0 when absent); None after answering 400/411/413 for a bad one."""
        if self.headers.get("Transfer-Encoding"):
            self._reply(411, "send a Content-Length, not Transfer-Encoding")
            return None
        values = self.headers.get_all("Content-Length") or []
        if not values:
            return 0
        value = values[0].strip()
        if len(values) > 1 or not value.isascii() or not value.isdigit():
            self._reply(400, "Content-Length must be one non-negative decimal number")
            return None
        if len(value) > 12 or int(value) > MAX_BODY:
            self._reply(413, f"request body over {MAX_BODY} bytes")
            return None
        return int(value)

    def _handle(self, method: str) -> None:
        proxy = self.owner
        traffic = proxy.traffic
        traffic.touch()
        path = self.path
        length = self._length()
        if length is None:
            return
        if (method, path) not in ALLOWED:
            # Drain a small body first: closing on unread data would reset the connection.
            if 0 < length <= MAX_DENIED_BODY:
                self.rfile.read(length)
            traffic.deny(f"{method} {path}")
            self._reply(403, f"{method} {path} is not allowed from the sandbox")
            return
        body = b""
        if method == "POST":
            if not traffic.reserve(length):
                self._reply(503, "the proxy is holding too many request bodies; retry later")
                return
            try:
                body = self.rfile.read(length)
                if len(body) != length:
                    self.close_connection = True
                    return
                try:
                    payload = json.loads(body)
                except ValueError:
                    self._reply(400, "request body must be JSON")
                    return
                if isinstance(payload, dict):
                    payload["model"] = proxy.model_id
                    body = json.dumps(payload).encode()
                self._count_and_forward(method, path, body)
            finally:
                traffic.release(length)
            return
        self._count_and_forward(method, path, body)

    def _count_and_forward(self, method: str, path: str, body: bytes) -> None:
        traffic = self.owner.traffic
        record = RequestRecord(path=path)
        with traffic.lock:
            traffic.n_requests += 1
            if len(traffic.requests) < MAX_RECORDS:
                traffic.requests.append(record)
            traffic.active += 1
        started = time.monotonic()
        try:
            self._forward(method, path, body, record, started)
        finally:
            record.duration_s = time.monotonic() - started
            with traffic.lock:
                traffic.active -= 1
            traffic.touch()

    def _forward(self, method: str, path: str, body: bytes, record: RequestRecord, started: float) -> None:
        replicas = self.owner.replicas
        headers = {"Content-Type": "application/json", "Accept": self.headers.get("Accept", "*/*")}
        for moved in range(len(replicas.replicas) + 1):
            replica = replicas.acquire(block=False)  # the server queues beyond its slots, as it would unproxied
            try:
                conn, resp = replica.client.open(method, path, body or None, timeout=self.owner.upstream_timeout_s,
                                                 headers=headers)
                self.owner.hold(conn)
                break
            except (OSError, http.client.HTTPException) as exc:
                replicas.release(replica, ok=False, failure=describe_error(exc))
                if moved < len(replicas.replicas) and replicas.others_up(replica):
                    log.info("replica %s failed (%s); the request moves to another", replica.url, describe_error(exc))
                    continue
                record.error = f"upstream unreachable: {exc}"
                self._reply(502, record.error)
                return
        record.status = resp.status
        try:
            self.send_response(resp.status)
            ctype = resp.getheader("Content-Type", "application/json")
            self.send_header("Content-Type", ctype)
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            if "text/event-stream" in ctype:
                self._stream(resp, record, started)
            else:
                data = resp.read()
                self.wfile.write(data)
                _usage_from(_json_or_none(data), record)
        except (OSError, http.client.HTTPException) as exc:
            record.error = record.error or f"stream broken: {exc}"
        finally:
            self.owner.let_go(conn)
            conn.close()
            replicas.release(replica, ok=record.error is None)

    def _stream(self, resp: http.client.HTTPResponse, record: RequestRecord, started: float) -> None:
        proxy = self.owner
        traffic = proxy.traffic
        while True:
            line = resp.readline()
            if not line:
                break
            traffic.touch()
            if line.startswith(b"data:"):
                data = line[5:].strip()
                if data and data != b"[DONE]":
                    record.chunks += 1
                    event = _json_or_none(data)
                    if record.ttft_s is None and _has_content(event):
                        record.ttft_s = time.monotonic() - started
                    _usage_from(event, record)
                if record.chunks > proxy.max_chunks:
                    record.cut_off = True
                    traffic.runaway = True
                    break
            self.wfile.write(line)
            self.wfile.flush()


def _json_or_none(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None


def _has_content(event: Any) -> bool:
    if not isinstance(event, dict):
        return False
    for choice in event.get("choices") or []:
        delta = choice.get("delta") or {}
        if delta.get("content") or delta.get("reasoning_content") or delta.get("tool_calls") or choice.get("text"):
            return True
    return False


def _usage_from(event: Any, record: RequestRecord) -> None:
    """Take token usage and llama.cpp timings from a (final) chunk or a whole response."""
    if not isinstance(event, dict):
        return
    usage = event.get("usage")
    if isinstance(usage, dict):
        record.prompt_tokens = usage.get("prompt_tokens", record.prompt_tokens)
        record.completion_tokens = usage.get("completion_tokens", record.completion_tokens)
        details = usage.get("prompt_tokens_details") or {}
        if isinstance(details, dict) and details.get("cached_tokens") is not None:
            record.cached_tokens = details["cached_tokens"]
    timings = event.get("timings")
    if isinstance(timings, dict):
        record.prefill_tps = timings.get("prompt_per_second", record.prefill_tps)
        record.decode_tps = timings.get("predicted_per_second", record.decode_tps)
        if record.cached_tokens is None and timings.get("cache_n") is not None:
            record.cached_tokens = timings["cache_n"]
        if record.prompt_tokens is None and timings.get("prompt_n") is not None:
            record.prompt_tokens = timings["prompt_n"] + (timings.get("cache_n") or 0)
        if record.completion_tokens is None and timings.get("predicted_n") is not None:
            record.completion_tokens = timings["predicted_n"]
