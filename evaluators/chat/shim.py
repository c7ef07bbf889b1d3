"""The llama-server <-> lm-eval adapter: translations, exact prompt log-probs, a reverse proxy otherwise.

llama-server and lm-eval (`tokenizer_backend=remote`, `local-completions`) disagree on four things:

- `GET /tokenizer_info` does not exist upstream: it is served from upstream `/props`
  (`bos_token`, `eos_token`, `chat_template`).
- `POST /tokenize {"prompt"}` -> upstream `{"content"}` (and `add_special_tokens` -> `add_special`);
  the answer `{"tokens"}` passes through. `POST /detokenize {"tokens"}` -> upstream, whose
  `{"content"}` answer goes back as `{"prompt"}`.
- `/v1/completions` log-probs: upstream returns the chat shape `content[{token, logprob,
  top_logprobs}]`; lm-eval reads the legacy `{tokens, token_logprobs, top_logprobs, text_offset}`.
  Translated field for field, streamed chunks too.
- `/v1/completions` with `echo`: llama-server ignores it, so lm-eval's log-likelihood requests (multiple-
  choice tasks) would get no prompt log-probs and score every choice 0. They are answered here by
  teacher forcing (`echo.EchoAnswers`: the numbers `loglik --backend server` gets); what cannot be
  answered exactly is refused with HTTP 400, a server without next-token distributions with HTTP 502.
  An upstream that echoes prompt log-probs itself (vLLM) gets the request unchanged.

Every other request is forwarded unchanged (method, path, query, headers, body), and streamed
answers are passed on as they arrive.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import signal
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from evaluators.chat.echo import BadEcho, EchoAnswers
from evaluators.core.errors import BadInput, BananaError
from evaluators.core.http import normalize_base_url

log = logging.getLogger("bananabench")

HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailers",
              "transfer-encoding", "upgrade", "content-length", "host"}


def legacy_logprobs(logprobs: Any) -> Any:
    """llama-server's `{"content": [{token, logprob, top_logprobs: [...]}]}` as the legacy completions shape."""
    if not isinstance(logprobs, dict) or not isinstance(logprobs.get("content"), list):
        return logprobs
    tokens, token_logprobs, top_logprobs, offsets = [], [], [], []
    offset = 0
    for entry in logprobs["content"]:
        token = entry.get("token", "")
        tokens.append(token)
        token_logprobs.append(entry.get("logprob"))
        top_logprobs.append({t.get("token", ""): t.get("logprob") for t in entry.get("top_logprobs") or []})
        offsets.append(offset)
        offset += len(token)
    return {"tokens": tokens, "token_logprobs": token_logprobs, "top_logprobs": top_logprobs, "text_offset": offsets}


def translate_completion(obj: Any) -> Any:
    if isinstance(obj, dict):
        for choice in obj.get("choices") or []:
            if isinstance(choice, dict) and "logprobs" in choice:
                choice["logprobs"] = legacy_logprobs(choice["logprobs"])
    return obj


class Shim:
    """`with Shim(upstream, port=0) as shim: shim.base_url` serves until the block ends."""

    def __init__(self, upstream: str, *, host: str = "127.0.0.1", port: int = 0, timeout_s: float = 600.0):
        if not 0 <= port <= 65535:
            raise BadInput(f"--port must be 0..65535, got {port}")
        self.upstream = normalize_base_url(upstream)
        parts = urlsplit(self.upstream)
        self._up_scheme, self._up_host, self._up_port, self._up_prefix = parts.scheme, parts.hostname, parts.port, parts.path
        self.timeout_s = timeout_s
        self.echo = EchoAnswers(self.upstream)
        self._host, self._port = host, port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> Shim:
        handler = type("ShimHandler", (_Handler,), {"shim": self})
        try:
            self._httpd = ThreadingHTTPServer((self._host, self._port), handler)
        except OSError as exc:
            raise BadInput(f"cannot listen on {self._host}:{self._port}: {exc.strerror or exc}") from exc
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="chat-shim", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def serve_until_signalled(self, on_ready: Callable[[], None] = lambda: None) -> None:
        """Serve until SIGINT or SIGTERM. The handlers are in place before `on_ready` announces the shim,
        so a signal sent the moment the announcement is seen still ends it cleanly (no race with start-up)."""
        stop = threading.Event()
        previous = {signum: signal.signal(signum, lambda *_: stop.set()) for signum in (signal.SIGINT, signal.SIGTERM)}
        try:
            on_ready()
            while not stop.wait(0.5) and self._thread is not None and self._thread.is_alive():
                pass
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def __enter__(self) -> Shim:
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

    def connect(self) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._up_scheme == "https" else http.client.HTTPConnection
        return cls(self._up_host, self._up_port, timeout=self.timeout_s)


class _Handler(BaseHTTPRequestHandler):
    shim: Shim
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("shim: " + format, *args)

    # -- helpers -----------------------------------------------------------------------------

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, data: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _send_json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode())

    def _upstream(self, method: str, path: str, body: bytes | None,
                  headers: dict[str, str] | None = None) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        conn = self.shim.connect()
        try:
            conn.request(method, self.shim._up_prefix + path, body=body, headers=headers or {})
            return conn, conn.getresponse()
        except BaseException:
            conn.close()
            raise

    def _upstream_json(self, method: str, path: str, obj: Any = None) -> tuple[int, Any]:
        body = json.dumps(obj).encode() if obj is not None else None
        conn, resp = self._upstream(method, path, body, {"Content-Type": "application/json"} if body else {})
        try:
            raw = resp.read()
        finally:
            conn.close()
        try:
            return resp.status, json.loads(raw) if raw else None
        except json.JSONDecodeError:
            return resp.status, {"error": {"code": resp.status, "message": raw.decode("utf-8", "replace")[:300]}}

    def _forward_headers(self) -> dict[str, str]:
        return {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}

    # -- dispatch ----------------------------------------------------------------------------

    def _handle(self) -> None:
        path = urlsplit(self.path).path.rstrip("/")
        body = self._read_body() if self.command in ("POST", "PUT", "PATCH", "DELETE") else None
        try:
            if self.command == "GET" and path == "/tokenizer_info":
                return self._tokenizer_info()
            if self.command == "POST" and path == "/tokenize":
                return self._tokenize(body or b"")
            if self.command == "POST" and path == "/detokenize":
                return self._detokenize(body or b"")
            if self.command == "POST" and path in ("/v1/completions", "/completions"):
                obj = _json_object(body)
                if obj is not None and obj.get("echo"):
                    return self._echo(obj, body)
                return self._proxy(body, translate=True)
            return self._proxy(body, translate=False)
        except (ConnectionError, TimeoutError, OSError, http.client.HTTPException) as exc:
            if isinstance(exc, (BrokenPipeError, ConnectionResetError)) and self.wfile.closed:
                return None
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._send_json(502, {"error": {"code": 502, "type": "bad_gateway",
                                                "message": f"upstream {self.shim.upstream}: {exc}"}})

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _handle  # noqa: N815

    def _error(self, status: int, kind: str, message: str) -> None:
        self._send_json(status, {"error": {"code": status, "type": kind, "message": message}})

    def _echo(self, obj: dict[str, Any], body: bytes | None) -> None:
        """Prompt log-probs: the upstream's own if it echoes (vLLM), else teacher forcing, else an error."""
        try:
            if self.shim.echo.backend().method == "echo":
                return self._proxy(body, translate=False)
            return self._send_json(200, self.shim.echo.answer(obj))
        except BadEcho as exc:
            return self._error(400, "invalid_request_error", str(exc))
        except BananaError as exc:
            log.warning("shim: echo request refused: %s", exc)
            return self._error(502, "bad_gateway", f"no exact prompt log-probs from {self.shim.upstream}: {exc}")

    def _tokenizer_info(self) -> None:
        status, props = self._upstream_json("GET", "/props")
        if status != 200 or not isinstance(props, dict):
            return self._send_json(status if status >= 400 else 502, props)
        self._send_json(200, {"bos_token": props.get("bos_token"), "eos_token": props.get("eos_token"),
                              "chat_template": props.get("chat_template")})

    def _json_body(self, body: bytes) -> dict[str, Any] | None:
        try:
            obj = json.loads(body) if body else {}
        except json.JSONDecodeError:
            obj = None
        if not isinstance(obj, dict):
            self._send_json(400, {"error": {"code": 400, "type": "invalid_request_error",
                                            "message": "expected a JSON object"}})
            return None
        return obj

    def _tokenize(self, body: bytes) -> None:
        obj = self._json_body(body)
        if obj is None:
            return
        if "prompt" in obj and "content" not in obj:
            obj["content"] = obj.pop("prompt")
        if "add_special_tokens" in obj and "add_special" not in obj:
            obj["add_special"] = obj.pop("add_special_tokens")
        status, answer = self._upstream_json("POST", "/tokenize", obj)
        self._send_json(status, answer)

    def _detokenize(self, body: bytes) -> None:
        obj = self._json_body(body)
        if obj is None:
            return
        status, answer = self._upstream_json("POST", "/detokenize", obj)
        if status == 200 and isinstance(answer, dict) and "content" in answer and "prompt" not in answer:
            answer["prompt"] = answer.pop("content")
        self._send_json(status, answer)

    def _proxy(self, body: bytes | None, *, translate: bool) -> None:
        conn, resp = self._upstream(self.command, self.path, body, self._forward_headers())
        try:
            content_type = resp.getheader("Content-Type") or ""
            streaming = resp.getheader("Content-Length") is None and self.command != "HEAD"
            if translate and resp.status == 200 and "text/event-stream" not in content_type and not streaming:
                obj = json.loads(resp.read())
                return self._send_json(200, translate_completion(obj))
            self.send_response(resp.status)
            for key, value in resp.getheaders():
                if key.lower() not in HOP_BY_HOP:
                    self.send_header(key, value)
            if not streaming:
                data = resp.read()
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                return None
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if translate and "text/event-stream" in content_type:
                self._relay_sse(resp)
            else:
                while chunk := resp.read1(65536):
                    self._chunk(chunk)
            self._chunk(b"")
        finally:
            conn.close()

    def _relay_sse(self, resp: http.client.HTTPResponse) -> None:
        for raw in resp:
            line = raw.decode("utf-8", "replace")
            if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
                try:
                    event = translate_completion(json.loads(line[5:]))
                    line = "data: " + json.dumps(event) + "\n"
                except json.JSONDecodeError:
                    pass
            self._chunk(line.encode())

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _json_object(body: bytes | None) -> dict[str, Any] | None:
    try:
        obj = json.loads(body) if body else None
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return obj if isinstance(obj, dict) else None
