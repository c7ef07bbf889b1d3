"""OpenAI-compatible server access: which model, how much context, what configuration, and generation.

Shared by every evaluator that talks to a served model (chat, agent). llama.cpp's server is
the reference, in single-model mode and in router mode (several models behind one port), but
any OpenAI-compatible endpoint works for generation.

- Model choice: `--model-id` if given, else the only model, else the one loaded model, else
  the one model whose id matches `--name`; otherwise stop and list the candidates.
- Context window, first source that answers: `--ctx`, `/props?model=<id>` (n_ctx), the
  model entry's `max_model_len` (vLLM), the router's launch arguments (`-c`, divided by `-np` unless `--kv-unified`), `/slots`;
  otherwise stop and ask for `--ctx`. The source is reported with the value.
- The server configuration (`/props`, `/models`, `/slots`, router args and preset) is
  captured with a fingerprint so results say exactly what answered (`record_server_config`
  into `server_configs`; `runs.extra.server_fingerprint` and `attempts.extra.server_fingerprint`
  by convention), and a change between runs is visible (`server_history`, `note_server_change`).
- `ServerBackend.generate` runs requests concurrently up to the server's slots, keeps the
  reasoning trace apart from the answer, retries transient failures with backoff, and turns
  persistent ones into results with `error` set: an infrastructure error, never a wrong answer.

Only the standard library is used for HTTP (`http.client`), so no client dependency decides
how streaming, timeouts or connection errors behave.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import os
import queue
import random
import re
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from evaluators.core.backends.base import Backend, GenerationRequest, GenerationResult, ModelIdentity
from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.core.secrets import register_secret

log = logging.getLogger("bananabench")

# Reasoning blocks some models write into the content instead of `reasoning_content`.
THINK_TAGS: tuple[tuple[str, str], ...] = (("<think>", "</think>"), ("<thinking>", "</thinking>"))
# Keys of /props and /slots that change from one request (or one server start) to the next: not
# configuration. llama.cpp draws a random `media_marker` at every start.
VOLATILE_KEYS = frozenset({
    "id_task", "is_processing", "next_token", "prompt", "is_sleeping", "n_past", "n_decoded",
    "tokens_cached", "t_start_process_prompt", "t_start_generation", "n_prompt_tokens_processed",
    "created", "progress", "media_marker",
})


class ServerUnavailable(EvaluationFailure):
    """The server cannot be reached or keeps failing: stop instead of failing every item."""


class HttpError(Exception):
    """A non-2xx answer (kept apart from connection failures so retries can tell them apart)."""

    def __init__(self, status: int, message: str):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message

    @property
    def transient(self) -> bool:
        return self.status >= 500 or self.status in (408, 429)


TRANSIENT_ERRORS = (ConnectionError, TimeoutError, socket.timeout, http.client.HTTPException, OSError)


API_KEY_ENVS = ("BANANABENCH_API_KEY", "OPENAI_API_KEY")


def api_key_from_env(var: str | None = None) -> str | None:
    """The server API key from the environment (never a flag value: flags end up in shell history and logs).

    `var` is the user's `--api-key-env VAR` (an error when empty); without it the first of
    `$BANANABENCH_API_KEY`, `$OPENAI_API_KEY` that is set, else no key.
    """
    for name in (var,) if var else API_KEY_ENVS:
        value = os.environ.get(name)
        if value:
            register_secret(value)
            return value
    if var:
        raise BadInput(f"--api-key-env {var}: that environment variable is empty or not set")
    return None


def normalize_base_url(url: str) -> str:
    """`http://host:port` from any of `host:port`, `.../v1`, `.../v1/chat/completions`."""
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


# -- HTTP ------------------------------------------------------------------------------------------


class HttpClient:
    """Small JSON/SSE client over http.client; one connection per call (safe across threads)."""

    def __init__(self, base_url: str, api_key: str | None = None, connect_timeout: float = 10.0):
        self.base_url = normalize_base_url(base_url)
        parts = urlsplit(self.base_url)
        self._scheme, self._host, self._port = parts.scheme, parts.hostname or "", parts.port
        self._prefix = parts.path
        self.api_key = api_key
        register_secret(api_key)
        self.connect_timeout = connect_timeout

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        return cls(self._host, self._port, timeout=timeout)

    def _headers(self, has_body: bool) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if has_body:
            headers["Content-Type"] = "application/json"
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def open(self, method: str, path: str, body: Any = None,
             timeout: float = 30.0) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        data = json.dumps(body).encode() if body is not None else None
        conn = self._connection(self.connect_timeout)
        try:
            conn.connect()
            conn.sock.settimeout(timeout)
            conn.request(method, self._prefix + path, body=data, headers=self._headers(data is not None))
            resp = conn.getresponse()
        except BaseException:
            conn.close()
            raise
        return conn, resp

    def request_json(self, method: str, path: str, body: Any = None, timeout: float = 30.0) -> Any:
        """The decoded JSON answer; raises HttpError on a non-2xx status, OSError-family on I/O."""
        conn, resp = self.open(method, path, body, timeout)
        try:
            raw = resp.read()
        finally:
            conn.close()
        if resp.status >= 300:
            raise HttpError(resp.status, _error_message(raw))
        try:
            return json.loads(raw) if raw else None
        except json.JSONDecodeError as exc:
            raise HttpError(resp.status, f"invalid JSON from {path}: {exc}") from exc

    def get(self, path: str, timeout: float = 30.0) -> Any:
        return self.request_json("GET", path, timeout=timeout)


def _error_message(raw: bytes) -> str:
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


# -- discovery: mode, model, context ----------------------------------------------------------------


@dataclass
class ServerInfo:
    """What `discover` learned about the server and the chosen model."""

    base_url: str
    mode: str  # "router", "single" (llama.cpp) or "openai" (any other compatible server)
    model_id: str
    model_choice: str  # why this model: "--model-id", "the only model", "the loaded model", "matches --name"
    ctx: int
    ctx_source: str
    n_slots: int
    props: dict[str, Any] | None = None
    models: Any = None  # raw /models (router) or /v1/models answer
    slots: Any = None
    args: list[str] | None = None
    preset: str | None = None
    fingerprint: str = ""

    @property
    def build_info(self) -> str | None:
        return (self.props or {}).get("build_info")

    @property
    def model_path(self) -> str | None:
        return (self.props or {}).get("model_path")

    def config(self) -> dict[str, Any]:
        """The configuration record kept in the store (`server_configs.config`) and in results."""
        return {
            "fingerprint": self.fingerprint, "mode": self.mode, "base_url": self.base_url,
            "model_id": self.model_id, "model_choice": self.model_choice,
            "ctx": self.ctx, "ctx_source": self.ctx_source, "n_slots": self.n_slots,
            "props": self.props, "router_models": self.models if self.mode == "router" else None,
            "models": self.models if self.mode != "router" else None,
            "slots": self.slots, "args": self.args, "preset": self.preset,
        }

    def run_extra(self) -> dict[str, Any]:
        """What a run keeps in `runs.extra` (attempts keep `server_fingerprint` in their `extra`)."""
        return {"server_fingerprint": self.fingerprint,
                "server": {"base_url": self.base_url, "mode": self.mode, "model_id": self.model_id,
                           "model_choice": self.model_choice, "ctx": self.ctx, "ctx_source": self.ctx_source,
                           "n_slots": self.n_slots}}

    def identity(self) -> ModelIdentity:
        """What was evaluated: the served model's id (the fingerprint travels per attempt, not here)."""
        return ModelIdentity(kind="server", source=self.model_id, extra={
            "base_url": self.base_url, "mode": self.mode, "model_path": self.model_path,
            "build_info": self.build_info, "server_fingerprint": self.fingerprint,
        })

    def startup_line(self) -> str:
        return (f"server {self.base_url} ({self.mode}): model {self.model_id} ({self.model_choice}); "
                f"context {self.ctx} tokens (from {self.ctx_source}); {self.n_slots} slot(s); "
                f"configuration {self.fingerprint}")


def _model_entries(listing: Any) -> list[dict[str, Any]]:
    data = listing.get("data") if isinstance(listing, dict) else listing
    return [m for m in (data or []) if isinstance(m, dict) and m.get("id")]


def _status(entry: dict[str, Any]) -> str | None:
    status = entry.get("status")
    if isinstance(status, dict):
        return status.get("value")
    return status if isinstance(status, str) else None


def _normalize_name(text: str) -> str:
    text = text.lower()
    text = re.sub(r"\.gguf$", "", text)
    return re.sub(r"[^a-z0-9]+", "", text)


def choose_model(entries: Sequence[dict[str, Any]], model_id: str | None, name: str | None) -> tuple[str, str]:
    """Pick the model to evaluate by the rules above; BadInput (listing the candidates) if unclear."""
    ids = [e["id"] for e in entries]

    def listing() -> str:
        return ", ".join(f"{e['id']} ({_status(e)})" if _status(e) else e["id"] for e in entries)

    if model_id:
        for entry in entries:
            if model_id == entry["id"] or model_id in (entry.get("aliases") or []):
                return entry["id"], "--model-id"
        if not entries:
            return model_id, "--model-id"
        raise BadInput(f"--model-id {model_id!r}: the server does not offer it; it offers: {listing()}")
    if len(ids) == 1:
        return ids[0], "the only model"
    if not ids:
        raise BadInput("the server lists no models; name one with --model-id")
    loaded = [e["id"] for e in entries if _status(e) == "loaded"]
    if len(loaded) == 1:
        return loaded[0], "the loaded model"
    if name:
        wanted = _normalize_name(name)
        exact = [i for i in ids if _normalize_name(i) == wanted]
        close = exact or [i for i in ids if wanted and wanted in _normalize_name(i)]
        if len(close) == 1:
            return close[0], "matches --name"
    raise BadInput(f"cannot tell which model to evaluate: the server offers {listing()}; choose one with --model-id")


def _arg_value(args: Sequence[str], names: Sequence[str]) -> str | None:
    value = None
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                value = args[i + 1]
            elif arg.startswith(name + "="):
                value = arg.split("=", 1)[1]
    return value


def ctx_from_args(args: Sequence[str]) -> tuple[int, str] | None:
    """Per-slot context from router launch args: -c divided by -np unless --kv-unified."""
    raw_ctx = _arg_value(args, ("-c", "--ctx-size", "-ctx"))
    if raw_ctx is None:
        return None
    try:
        ctx = int(raw_ctx)
    except ValueError:
        return None
    if ctx <= 0:  # 0 means "the model's training context", which the args do not tell
        return None
    unified = any(a in ("--kv-unified", "-kvu") for a in args) and "--no-kv-unified" not in args
    raw_np = _arg_value(args, ("-np", "--parallel"))
    try:
        n_parallel = int(raw_np) if raw_np is not None else 1
    except ValueError:
        n_parallel = 1
    if unified or n_parallel <= 1:
        return ctx, f"router launch args (-c {ctx}" + (", --kv-unified)" if unified and n_parallel > 1 else ")")
    return ctx // n_parallel, f"router launch args (-c {ctx} / -np {n_parallel})"


def _props_ctx(props: Any) -> int | None:
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings") or {}
    for value in (settings.get("n_ctx"), props.get("n_ctx")):
        if isinstance(value, int) and value > 0:
            return value
    return None


def _slots_ctx(slots: Any) -> int | None:
    if isinstance(slots, list) and slots and isinstance(slots[0], dict):
        value = slots[0].get("n_ctx")
        if isinstance(value, int) and value > 0:
            return value
    return None


def _strip_volatile(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _strip_volatile(v) for k, v in obj.items() if k not in VOLATILE_KEYS}
    if isinstance(obj, list):
        return [_strip_volatile(v) for v in obj]
    return obj


def fingerprint_config(info: ServerInfo) -> str:
    """A short hash of what configures the answers: build, model file, template, sampling defaults,
    slots and context, launch args and preset. Volatile state (busy slots, timestamps) is left out."""
    entry = next((e for e in _model_entries(info.models) if e["id"] == info.model_id), None)
    stable = {
        "mode": info.mode,
        "model_id": info.model_id,
        "props": _strip_volatile(info.props),
        "slots_n_ctx": [s.get("n_ctx") for s in info.slots] if isinstance(info.slots, list) else None,
        "args": info.args,
        "preset": info.preset,
        "model_entry": _strip_volatile({k: v for k, v in (entry or {}).items() if k != "status"}),
    }
    text = json.dumps(stable, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _try_get(client: HttpClient, path: str, timeout: float) -> Any:
    """GET that answers None when the endpoint is missing or failing (it is optional)."""
    try:
        return client.get(path, timeout=timeout)
    except HttpError:
        return None


def _wait_healthy(client: HttpClient, load_wait_s: float, connect_wait_s: float, timeout: float) -> None:
    """Wait while llama.cpp answers 503 (still loading the model, which can take minutes), and
    briefly while nothing listens yet (a server being started alongside us)."""
    start = time.monotonic()
    delay = 0.2
    while True:
        try:
            client.get("/health", timeout=timeout)
            return
        except HttpError as exc:
            if exc.status != 503 or time.monotonic() - start >= load_wait_s:
                return  # no /health (not llama.cpp) or still loading: let the next calls say more
        except TRANSIENT_ERRORS as exc:
            if time.monotonic() - start >= connect_wait_s:
                raise ServerUnavailable(f"cannot reach the server at {client.base_url}: {_describe(exc)}") from exc
        time.sleep(delay)
        delay = min(delay * 2, 2.0)


def discover(base_url: str, *, model_id: str | None = None, name: str | None = None, ctx: int | None = None,
             api_key: str | None = None, load_wait_s: float = 600.0, connect_wait_s: float = 2.0,
             timeout: float = 30.0) -> ServerInfo:
    """Talk to the server once: mode, model choice, context window and configuration."""
    client = HttpClient(base_url, api_key=api_key)
    _wait_healthy(client, load_wait_s, connect_wait_s, timeout)
    try:
        router_listing = _try_get(client, "/models", timeout)
        router_entries = _model_entries(router_listing)
        is_router = any("status" in e for e in router_entries)
        if is_router:
            listing, entries = router_listing, router_entries
        else:
            listing = client.get("/v1/models", timeout=timeout)
            entries = _model_entries(listing)
    except HttpError as exc:
        raise ServerUnavailable(f"{client.base_url}/v1/models answered {exc}; is this an OpenAI-compatible server?") from exc
    except TRANSIENT_ERRORS as exc:
        raise ServerUnavailable(f"cannot reach the server at {client.base_url}: {_describe(exc)}") from exc
    chosen, why = choose_model(entries, model_id, name)
    query = "?model=" + quote(chosen, safe="")
    try:
        props = _try_get(client, "/props" + query, timeout)
        slots = _try_get(client, "/slots" + query, timeout)
    except TRANSIENT_ERRORS as exc:
        raise ServerUnavailable(f"the server at {client.base_url} went away during discovery: {_describe(exc)}") from exc
    if isinstance(props, dict) and props.get("role") == "router":
        props = None
    entry = next((e for e in entries if e["id"] == chosen), {})
    status = entry.get("status") if isinstance(entry.get("status"), dict) else {}
    args = list(status.get("args") or []) or None
    preset = entry.get("preset")
    mode = "router" if is_router else ("single" if props is not None else "openai")

    if ctx is not None:
        n_ctx, source = ctx, "--ctx"
    elif (props_ctx := _props_ctx(props)) is not None:
        n_ctx, source = props_ctx, f"/props?model={chosen} (n_ctx)"
    elif isinstance(entry.get("max_model_len"), int) and entry["max_model_len"] > 0:  # vLLM
        n_ctx, source = entry["max_model_len"], "/v1/models (max_model_len)"
    elif args and (from_args := ctx_from_args(args)) is not None:
        n_ctx, source = from_args
    elif (slot_ctx := _slots_ctx(slots)) is not None:
        n_ctx, source = slot_ctx, "/slots (n_ctx)"
    else:
        raise BadInput(f"cannot find the context window of {chosen} at {client.base_url} "
                       "(no --ctx, /props, router launch args or /slots gave one); pass --ctx N")
    n_slots = 0
    if isinstance(props, dict) and isinstance(props.get("total_slots"), int):
        n_slots = props["total_slots"]
    elif isinstance(slots, list):
        n_slots = len(slots)
    elif args:
        raw_np = _arg_value(args, ("-np", "--parallel"))
        n_slots = int(raw_np) if raw_np and raw_np.lstrip("-").isdigit() else 0
    info = ServerInfo(base_url=client.base_url, mode=mode, model_id=chosen, model_choice=why, ctx=n_ctx,
                      ctx_source=source, n_slots=max(n_slots, 1), props=props, models=listing, slots=slots,
                      args=args, preset=preset)
    info.fingerprint = fingerprint_config(info)
    return info


# -- the store: configurations and their history -----------------------------------------------------


def record_server_config(store: Any, info: ServerInfo) -> None:
    """Keep the configuration (by fingerprint) in the store's `server_configs` table."""
    store.record_server_config(info.fingerprint, info.config())


def server_history(store: Any, model_name: str) -> list[dict[str, Any]]:
    """Every server configuration a model's runs and attempts used, oldest first.

    Reads `runs.extra.server_fingerprint` and `attempts.extra.server_fingerprint`, so a server
    restarted with other flags in the middle of a run shows up too.
    """
    rows = store.query(
        """
        WITH seen AS (
            SELECT json_extract_string(a.extra, '$.server_fingerprint') AS fingerprint,
                   coalesce(a.started_at, r.started_at) AS at, r.run_id
            FROM attempts a JOIN runs r USING (run_id) WHERE r.model_name = ?
            UNION ALL
            SELECT json_extract_string(r.extra, '$.server_fingerprint'), r.started_at, r.run_id
            FROM runs r WHERE r.model_name = ?
        )
        SELECT s.fingerprint, min(s.at), max(s.at), list(DISTINCT s.run_id ORDER BY s.run_id), any_value(c.config)
        FROM seen s LEFT JOIN server_configs c ON c.fingerprint = s.fingerprint
        WHERE s.fingerprint IS NOT NULL GROUP BY s.fingerprint ORDER BY min(s.at)
        """,
        [model_name, model_name],
    ).rows
    return [{"fingerprint": fp, "first_seen": first, "last_seen": last, "runs": list(runs),
             "config": json.loads(config) if isinstance(config, str) else config}
            for fp, first, last, runs, config in rows]


def config_changes(old: dict[str, Any] | None, new: dict[str, Any]) -> list[str]:
    """Readable names of what differs between two configuration records."""
    if not old:
        return []
    changes = []
    for key in ("model_id", "mode", "ctx", "n_slots", "args", "preset"):
        if old.get(key) != new.get(key):
            changes.append(f"{key}: {old.get(key)!r} -> {new.get(key)!r}")
    old_props, new_props = _strip_volatile(old.get("props") or {}), _strip_volatile(new.get("props") or {})
    for key in sorted(set(old_props) | set(new_props)):
        if old_props.get(key) != new_props.get(key):
            changes.append(f"props.{key} changed")
    return changes


def note_server_change(store: Any, model_name: str, info: ServerInfo) -> list[str]:
    """Log (and return) how the server configuration differs from the one this model last used."""
    history = server_history(store, model_name)
    if not history:
        return []
    previous = max(history, key=lambda h: h["last_seen"])
    if previous["fingerprint"] == info.fingerprint:
        return []
    changes = config_changes(previous.get("config"), info.config()) or ["fingerprint"]
    log.warning("server configuration for %s changed since %s (%s -> %s): %s", model_name,
                previous["last_seen"], previous["fingerprint"], info.fingerprint, "; ".join(changes))
    return changes


# -- generation ----------------------------------------------------------------------------------------


def split_reasoning(text: str | None) -> tuple[str, str]:
    """(answer, reasoning) from content that may hold `<think>` blocks.

    A closed block is reasoning; an opening tag never closed means the budget ran out while
    thinking (all of it is reasoning); a closing tag with no opening (the template opened the
    block in the prompt) makes everything before it reasoning.
    """
    text = text or ""
    reasoning: list[str] = []
    for open_tag, close_tag in THINK_TAGS:
        if close_tag in text and open_tag not in text.split(close_tag, 1)[0]:
            head, text = text.split(close_tag, 1)
            reasoning.append(head)
        pattern = re.compile(re.escape(open_tag) + r"(.*?)" + re.escape(close_tag), re.S)
        reasoning.extend(m.group(1) for m in pattern.finditer(text))
        text = pattern.sub("", text)
        if open_tag in text:
            text, rest = text.split(open_tag, 1)
            reasoning.append(rest)
    return text.strip(), "\n".join(r.strip() for r in reasoning if r.strip())


@dataclass
class RetryPolicy:
    """Transient failures (connection refused/reset, timeouts, 5xx, 408/429, a cut stream) are retried."""

    attempts: int = 5
    base_s: float = 1.0
    max_s: float = 30.0

    def delay(self, attempt: int) -> float:
        return min(self.max_s, self.base_s * 2 ** (attempt - 1)) * random.uniform(0.75, 1.25)


@dataclass
class _Stream:
    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    tool_calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    timings: dict[str, Any] | None = None
    model: str | None = None
    first_token_at: float | None = None
    done: bool = False
    chunks: int = 0


class _CutStream(Exception):
    """The stream ended without `[DONE]` or a finish reason: the connection was cut."""


def _describe(exc: BaseException) -> str:
    if isinstance(exc, HttpError):
        return str(exc)
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "timed out"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class ServerBackend(Backend):
    """Generation against one model on an OpenAI-compatible server (see `discover`)."""

    def __init__(self, info: ServerInfo, *, api_key: str | None = None, concurrency: int | None = None,
                 stream: bool = True, retry: RetryPolicy | None = None, idle_timeout_s: float = 600.0,
                 max_consecutive_failures: int | None = None):
        self.info = info
        self.identity = info.identity()
        self.client = HttpClient(info.base_url, api_key=api_key)
        self.concurrency = max(1, concurrency or info.n_slots)
        self.stream = stream
        self.retry = retry or RetryPolicy()
        self.idle_timeout_s = idle_timeout_s
        self.max_consecutive_failures = max_consecutive_failures or max(3, self.concurrency)
        self._lock = threading.Lock()
        self._consecutive_failures = 0
        self._broken: str | None = None

    @classmethod
    def connect(cls, base_url: str, *, model_id: str | None = None, name: str | None = None,
                ctx: int | None = None, api_key: str | None = None, **kwargs: Any) -> ServerBackend:
        info = discover(base_url, model_id=model_id, name=name, ctx=ctx, api_key=api_key)
        return cls(info, api_key=api_key, **kwargs)

    @property
    def max_length(self) -> int | None:
        return self.info.ctx

    # -- one request -------------------------------------------------------------------------------

    def _body(self, req: GenerationRequest) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {"model": self.info.model_id, "max_tokens": req.max_tokens,
                                "temperature": req.temperature, "top_p": req.top_p}
        if req.messages is not None:
            path, body["messages"] = "/v1/chat/completions", [dict(m) for m in req.messages]
        elif req.prompt is not None:
            path, body["prompt"] = "/v1/completions", req.prompt
        else:
            raise ValueError("a GenerationRequest needs messages or a prompt")
        if req.stop:
            body["stop"] = list(req.stop)
        if req.seed is not None:
            body["seed"] = req.seed
        if self.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        body.update(req.extra)
        return path, body

    def _once(self, path: str, body: dict[str, Any]) -> _Stream:
        started = time.monotonic()
        conn, resp = self.client.open("POST", path, body, timeout=self.idle_timeout_s)
        try:
            if resp.status >= 300:
                raise HttpError(resp.status, _error_message(resp.read()))
            out = _Stream()
            if body.get("stream"):
                self._read_stream(resp, out, started)
                return out
            raw = resp.read()
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise HttpError(502, f"invalid JSON in the answer: {exc}") from exc
            self._read_whole(obj, out)
            return out
        finally:
            conn.close()

    @staticmethod
    def _apply_choice(choice: dict[str, Any], out: _Stream, delta_key: str) -> None:
        delta = choice.get(delta_key) or {}
        if "text" in choice and delta_key == "delta":  # /v1/completions stream
            delta = {"content": choice.get("text")}
        if delta.get("content"):
            out.content.append(delta["content"])
        if delta.get("reasoning_content"):
            out.reasoning.append(delta["reasoning_content"])
        for call in delta.get("tool_calls") or []:
            slot = out.tool_calls.setdefault(call.get("index", len(out.tool_calls)),
                                             {"id": None, "name": None, "arguments": ""})
            slot["id"] = call.get("id") or slot["id"]
            function = call.get("function") or {}
            slot["name"] = function.get("name") or slot["name"]
            slot["arguments"] += function.get("arguments") or ""
        if choice.get("finish_reason"):
            out.finish_reason = choice["finish_reason"]

    def _read_whole(self, obj: dict[str, Any], out: _Stream) -> None:
        choice = (obj.get("choices") or [{}])[0]
        if "message" in choice:
            self._apply_choice(choice, out, "message")
        else:
            out.content.append(choice.get("text") or "")
            out.finish_reason = choice.get("finish_reason")
        out.usage, out.timings, out.model = obj.get("usage"), obj.get("timings"), obj.get("model")
        out.done = True

    def _read_stream(self, resp: http.client.HTTPResponse, out: _Stream, started: float) -> None:
        for raw in resp:
            line = raw.decode("utf-8", "replace").strip()
            if not line.startswith("data:"):
                continue
            payload = line[5:].strip()
            if payload == "[DONE]":
                out.done = True
                break
            try:
                event = json.loads(payload)
            except json.JSONDecodeError:
                continue
            if "error" in event:
                err = event["error"] if isinstance(event["error"], dict) else {"message": event["error"]}
                raise HttpError(int(err.get("code") or 500), str(err.get("message")))
            out.chunks += 1
            for choice in event.get("choices") or []:
                before = len(out.content) + len(out.reasoning)
                self._apply_choice(choice, out, "delta")
                if out.first_token_at is None and len(out.content) + len(out.reasoning) > before:
                    out.first_token_at = time.monotonic() - started
            out.usage = event.get("usage") or out.usage
            out.timings = event.get("timings") or out.timings
            out.model = event.get("model") or out.model
        if not out.done and out.finish_reason is None:
            raise _CutStream("the stream ended before the answer was complete")

    def generate_one(self, req: GenerationRequest) -> GenerationResult:
        """One request, retried on transient failures; `error` set if they persist."""
        path, body = self._body(req)
        t0 = time.monotonic()
        attempt, last = 0, ""
        while attempt < self.retry.attempts:
            attempt += 1
            try:
                out = self._once(path, body)
            except HttpError as exc:
                last = _describe(exc)
                if not exc.transient:
                    return self._failed(last, attempt, t0, permanent=True)
            except (_CutStream, *TRANSIENT_ERRORS) as exc:
                last = _describe(exc)
            else:
                with self._lock:
                    self._consecutive_failures = 0
                return self._result(out, attempt, t0)
            if self._broken or attempt == self.retry.attempts:
                break
            log.debug("request failed (%s); retry %d/%d", last, attempt, self.retry.attempts - 1)
            time.sleep(self.retry.delay(attempt))
        return self._failed(last, attempt, t0)

    def _failed(self, message: str, attempts: int, t0: float, permanent: bool = False) -> GenerationResult:
        if not permanent:
            with self._lock:
                self._consecutive_failures += 1
                if self._consecutive_failures >= self.max_consecutive_failures and not self._broken:
                    self._broken = (f"{self._consecutive_failures} requests in a row failed at {self.info.base_url} "
                                    f"(last: {message})")
        text = f"{message} (after {attempts} attempt{'s' if attempts != 1 else ''})"
        return GenerationResult(text=None, error=text, raw={"attempts": attempts},
                                timings={"wall_s": time.monotonic() - t0})

    def _result(self, out: _Stream, attempts: int, t0: float) -> GenerationResult:
        raw_content = "".join(out.content)
        answer, think = split_reasoning(raw_content)
        reasoning = "\n".join(part for part in ("".join(out.reasoning).strip(), think) if part) or None
        usage = out.usage or {}
        timings: dict[str, float] = {"wall_s": time.monotonic() - t0}
        if out.first_token_at is not None:
            timings["ttft_s"] = out.first_token_at
        for key in ("prompt_per_second", "predicted_per_second", "prompt_ms", "predicted_ms", "prompt_n",
                    "predicted_n", "cache_n"):
            value = (out.timings or {}).get(key)
            if isinstance(value, (int, float)):
                timings[key] = float(value)
        raw: dict[str, Any] = {"content": raw_content, "attempts": attempts, "model": out.model,
                               "usage": usage or None}
        if out.reasoning:
            raw["reasoning_content"] = "".join(out.reasoning)
        if out.tool_calls:
            raw["tool_calls"] = [out.tool_calls[i] for i in sorted(out.tool_calls)]
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
        if cached is not None:
            raw["cached_tokens"] = cached
        return GenerationResult(text=answer, reasoning=reasoning, finish_reason=out.finish_reason,
                                tokens_in=usage.get("prompt_tokens"), tokens_out=usage.get("completion_tokens"),
                                raw=raw, timings=timings)

    # -- many requests -----------------------------------------------------------------------------

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[tuple[int, GenerationResult]]:
        """Results as they finish, `concurrency` requests in flight.

        Raises ServerUnavailable (after yielding what finished) once `max_consecutive_failures`
        requests in a row failed: the server is down, and failing every remaining item would
        only take long and say nothing new.
        """
        with self._lock:
            self._broken, self._consecutive_failures = None, 0
        todo: queue.Queue[int] = queue.Queue()
        for i in range(len(requests)):
            todo.put(i)
        done: queue.Queue[tuple[int, GenerationResult]] = queue.Queue()
        stop = threading.Event()

        def worker() -> None:
            while not stop.is_set() and not self._broken:
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    result = self.generate_one(requests[i])
                except Exception as exc:  # a bug must not hang the consumer
                    result = GenerationResult(text=None, error=f"internal error: {_describe(exc)}")
                done.put((i, result))

        workers = [threading.Thread(target=worker, daemon=True, name=f"server-gen-{n}")
                   for n in range(min(self.concurrency, len(requests)))]
        for thread in workers:
            thread.start()
        received = 0
        try:
            while received < len(requests):
                try:
                    item = done.get(timeout=0.2)
                except queue.Empty:
                    if not any(t.is_alive() for t in workers) and done.empty():
                        break
                    continue
                received += 1
                yield item
        finally:
            stop.set()
        if received < len(requests) and self._broken:
            raise ServerUnavailable(f"stopped: {self._broken}; finished items are kept")
