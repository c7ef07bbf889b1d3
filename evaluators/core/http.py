"""One HTTP client and one retry policy for every server BananaBench talks to.

Model servers (generation, log-likelihoods, discovery), the llama.cpp launcher's readiness check,
the lm-eval shim's upstream and the task importers (GitHub, Advent of Code) all go through
`HttpClient`, and everything that retries does so by `RetryPolicy`: transient failures (connection
refused or reset, timeouts, 5xx, 408/429, a cut stream) are retried with jittered exponential
backoff, anything else fails at once.

The standard library's `http.client` underneath, not a client library: streaming SSE reads with a
per-read idle timeout, one connection per call (safe across threads) and exact control over which
error is which take a few dozen lines here, while a dependency (httpx, tenacity) would bring its
own pools, timeouts and exception trees that these semantics would have to be mapped onto.
"""

from __future__ import annotations

import http.client
import json
import logging
import random
import re
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from evaluators.core.errors import BadInput
from evaluators.core.secrets import register_secret

log = logging.getLogger("bananabench")

T = TypeVar("T")


class HttpError(Exception):
    """A non-2xx answer (kept apart from connection failures so retries can tell them apart)."""

    def __init__(self, status: int, message: str):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message

    @property
    def transient(self) -> bool:
        return self.status >= 500 or self.status in (408, 429)


class CutStream(Exception):
    """A streamed answer ended before it was complete: the connection was cut."""


# Failures of the connection itself (refused, reset, timed out, a malformed reply): always transient.
TRANSIENT_ERRORS = (ConnectionError, TimeoutError, socket.timeout, http.client.HTTPException, OSError, CutStream)


def is_transient(exc: BaseException) -> bool:
    """True when trying again may succeed."""
    if isinstance(exc, HttpError):
        return exc.transient
    return isinstance(exc, TRANSIENT_ERRORS)


def describe_error(exc: BaseException) -> str:
    """A short human description of a request failure."""
    if isinstance(exc, HttpError):
        return str(exc)
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "timed out"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


@dataclass
class RetryPolicy:
    """At most `attempts` tries; the wait before try n+1 is base_s * 2^(n-1), capped at max_s, ±25% jitter."""

    attempts: int = 5
    base_s: float = 1.0
    max_s: float = 30.0

    def delay(self, attempt: int) -> float:
        return min(self.max_s, self.base_s * 2 ** (attempt - 1)) * random.uniform(0.75, 1.25)

    def tries(self, stop: Callable[[], bool] = lambda: False) -> Iterator[int]:
        """Attempt numbers 1, 2, ...: the loop body tries once and `continue`s on a transient failure.

        Waits before every try after the first; ends early when `stop()` says further tries are pointless.
        """
        for attempt in range(1, self.attempts + 1):
            if attempt > 1:
                if stop():
                    return
                time.sleep(self.delay(attempt - 1))
            yield attempt

    def call(self, fn: Callable[[], T]) -> T:
        """`fn()`, retried on transient failures; the last failure (or any permanent one) is raised."""
        for attempt in self.tries():
            try:
                return fn()
            except Exception as exc:
                if not is_transient(exc) or attempt == self.attempts:
                    raise
                log.debug("request failed (%s); retry %d/%d", describe_error(exc), attempt, self.attempts - 1)
        raise AssertionError("unreachable")


def normalize_base_url(url: str) -> str:
    """An OpenAI-compatible server's `http://host:port` from `host:port`, `.../v1`, `.../v1/chat/completions`."""
    url = url.strip()
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadInput(f"--base-url: not an http(s) URL: {url!r}")
    if parts.username or parts.password:
        register_secret(parts.password)
        raise BadInput("--base-url: credentials in the URL are not supported (they would be stored with the "
                       "results); pass an API key through BANANABENCH_API_KEY or OPENAI_API_KEY")
    path = re.sub(r"/(v1/)?(chat/)?completions/?$", "", parts.path.rstrip("/"))
    path = re.sub(r"/v1$", "", path)
    return f"{parts.scheme}://{parts.netloc}{path}"


class HttpClient:
    """JSON, raw and streamed requests to one base URL; one connection per call (safe across threads).

    `api_key` goes out as a bearer token (and is registered as a secret); `headers` go with every request.
    """

    def __init__(self, base_url: str, *, api_key: str | None = None, headers: dict[str, str] | None = None,
                 connect_timeout: float = 10.0):
        self.base_url = base_url.rstrip("/")
        parts = urlsplit(self.base_url)
        self._scheme, self._host, self._port = parts.scheme, parts.hostname or "", parts.port
        self._prefix = parts.path
        self.api_key = api_key
        register_secret(api_key)
        self.headers = dict(headers or {})
        self.connect_timeout = connect_timeout

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        return cls(self._host, self._port, timeout=timeout)

    def _headers(self, has_body: bool, extra: dict[str, str] | None) -> dict[str, str]:
        headers = {"Accept": "application/json", **self.headers}
        if has_body:
            headers["Content-Type"] = "application/json"
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        headers.update(extra or {})
        return headers

    def open(self, method: str, path: str, body: Any = None, *, timeout: float = 30.0,
             headers: dict[str, str] | None = None) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Send a request and return the open connection and response (for streaming; close the connection).
        `body` is sent as JSON, or as it is when it is bytes already (a proxy forwarding a request)."""
        data = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else None
        conn = self._connection(self.connect_timeout)
        try:
            conn.connect()
            conn.sock.settimeout(timeout)
            conn.request(method, self._prefix + path, body=data, headers=self._headers(data is not None, headers))
            resp = conn.getresponse()
        except BaseException:
            conn.close()
            raise
        return conn, resp

    def _exchange(self, method: str, path: str, body: Any, timeout: float,
                  headers: dict[str, str] | None) -> tuple[int, bytes]:
        conn, resp = self.open(method, path, body, timeout=timeout, headers=headers)
        try:
            raw = resp.read()
        finally:
            conn.close()
        if resp.status >= 300:
            raise HttpError(resp.status, error_message(raw))
        return resp.status, raw

    def request(self, method: str, path: str, body: Any = None, *, timeout: float = 30.0,
                headers: dict[str, str] | None = None) -> bytes:
        """The answer's bytes; HttpError on a non-2xx status, an OSError-family error on I/O."""
        return self._exchange(method, path, body, timeout, headers)[1]

    def request_json(self, method: str, path: str, body: Any = None, *, timeout: float = 30.0,
                     headers: dict[str, str] | None = None) -> Any:
        """The decoded JSON answer (None for an empty body); HttpError also for invalid JSON."""
        status, raw = self._exchange(method, path, body, timeout, headers)
        try:
            return json.loads(raw) if raw else None
        except json.JSONDecodeError as exc:
            raise HttpError(status, f"invalid JSON from {path}: {exc}") from exc

    def get(self, path: str, *, timeout: float = 30.0) -> Any:
        return self.request_json("GET", path, timeout=timeout)

    def post(self, path: str, body: Any, *, timeout: float = 30.0) -> Any:
        return self.request_json("POST", path, body, timeout=timeout)


def error_message(raw: bytes) -> str:
    """The message of an error answer: an OpenAI-style `{"error": {"message": ...}}`, else the text."""
    text = raw.decode("utf-8", "replace")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return text.strip()[:300] or "(empty body)"
    if isinstance(obj, dict):
        err = obj.get("error", obj)
        if isinstance(err, dict):
            return str(err.get("message") or err)[:300]
        return str(err)[:300]
    return text[:300]
