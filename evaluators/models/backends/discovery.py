"""What answers at an OpenAI-compatible server: which model, how much context, what configuration.

llama.cpp's server is the reference, in single-model mode and in router mode (several models
behind one port), but any OpenAI-compatible endpoint is discovered too.

- Model choice: `--model-id` if given, else the only model, else the one loaded model, else
  the one model whose id matches `--name`; otherwise stop and list the candidates.
- Context window, first source that answers: `--ctx`, `/props?model=<id>` (n_ctx), the model
  entry's `max_model_len` (vLLM), the router's launch arguments (`-c`, divided by `-np` unless
  `--kv-unified`), `/slots`; otherwise stop and ask for `--ctx`. The source is reported with the value.
- The configuration (`/props`, `/models`, `/slots`, router args and preset) gets a fingerprint, so
  results say exactly what answered (see `server_configs` for how it is kept in the store).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.core.http import TRANSIENT_ERRORS, HttpClient, HttpError, describe_error, normalize_base_url
from evaluators.core.secrets import api_key_from_env
from evaluators.models.backends.base import ModelIdentity
from evaluators.runs.runs import signature_diff

# Keys of /props and /slots that change from one request (or one server start) to the next: not
# configuration. llama.cpp draws a random `media_marker` at every start.
VOLATILE_KEYS = frozenset({
    "id_task", "is_processing", "next_token", "prompt", "is_sleeping", "n_past", "n_decoded",
    "tokens_cached", "t_start_process_prompt", "t_start_generation", "n_prompt_tokens_processed",
    "created", "progress", "media_marker",
})


class ServerUnavailable(EvaluationFailure):
    """The server cannot be reached or keeps failing: stop instead of failing every item."""

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
    replicas: list[str] = field(default_factory=list)  # every --base-url serving this configuration

    @property
    def urls(self) -> list[str]:
        """The servers that take requests: the replicas, or this one."""
        return self.replicas or [self.base_url]

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
            "slots": self.slots, "args": self.args, "preset": self.preset, "replicas": self.urls,
        }

    def run_extra(self) -> dict[str, Any]:
        """What a run keeps in `runs.extra` (attempts keep `server_fingerprint` in their `extra`)."""
        return {"server_fingerprint": self.fingerprint,
                "server": {"base_url": self.base_url, "mode": self.mode, "model_id": self.model_id,
                           "model_choice": self.model_choice, "ctx": self.ctx, "ctx_source": self.ctx_source,
                           "n_slots": self.n_slots, "replicas": self.urls}}

    def identity(self) -> ModelIdentity:
        """What was evaluated: the served model's id (the fingerprint travels per attempt, not here)."""
        return ModelIdentity(kind="server", source=self.model_id, extra={
            "base_url": self.base_url, "mode": self.mode, "model_path": self.model_path,
            "build_info": self.build_info, "server_fingerprint": self.fingerprint,
        })

    def startup_line(self) -> str:
        where = self.base_url if len(self.urls) == 1 else f"{len(self.urls)} replicas {', '.join(self.urls)}"
        return (f"server {where} ({self.mode}): model {self.model_id} ({self.model_choice}); "
                f"context {self.ctx} tokens (from {self.ctx_source}); {self.n_slots} slot(s); "
                f"configuration {self.fingerprint}")


def model_entries(listing: Any) -> list[dict[str, Any]]:
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


def stable_args(args: Sequence[str] | None) -> list[str] | None:
    """Launch arguments without the per-start port a router gives each model instance."""
    if args is None:
        return None
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--port":
            skip = True
        elif not arg.startswith("--port="):
            out.append(arg)
    return out


def strip_volatile(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: strip_volatile(v) for k, v in obj.items() if k not in VOLATILE_KEYS}
    if isinstance(obj, list):
        return [strip_volatile(v) for v in obj]
    return obj


def stable_config(info: ServerInfo) -> dict[str, Any]:
    """What configures the answers: build, model file, template, sampling defaults, slots and context,
    launch args and preset. Volatile state (busy slots, timestamps, per-start markers) is left out."""
    entry = next((e for e in model_entries(info.models) if e["id"] == info.model_id), None)
    return {
        "mode": info.mode,
        "model_id": info.model_id,
        "props": strip_volatile(info.props),
        "slots_n_ctx": [s.get("n_ctx") for s in info.slots] if isinstance(info.slots, list) else None,
        "args": stable_args(info.args),
        "preset": info.preset,
        "model_entry": strip_volatile({k: v for k, v in (entry or {}).items() if k != "status"}),
    }


def fingerprint_config(info: ServerInfo) -> str:
    """A short hash of `stable_config`: equal for two servers started alike, whatever their ports."""
    text = json.dumps(stable_config(info), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def same_configuration(infos: Sequence[ServerInfo]) -> None:
    """BadInput naming each replica whose configuration (`stable_config` and context window) differs from
    the first one's, and how (exit 2, before anything is written)."""
    first = infos[0]
    reference = {**stable_config(first), "ctx": first.ctx}
    problems = []
    for info in infos[1:]:
        diffs = signature_diff(reference, {**stable_config(info), "ctx": info.ctx})
        if diffs:
            problems.append(f"{info.base_url} differs from {first.base_url}: {'; '.join(diffs)}")
    if problems:
        raise BadInput("--base-url: the replicas do not serve the same model configuration (start them with "
                       "the same model file and flags):\n  " + "\n  ".join(problems))


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
                raise ServerUnavailable(f"cannot reach the server at {client.base_url}: {describe_error(exc)}") from exc
        time.sleep(delay)
        delay = min(delay * 2, 2.0)


def discover(base_url: str, *, model_id: str | None = None, name: str | None = None, ctx: int | None = None,
             api_key: str | None = None, load_wait_s: float = 600.0, connect_wait_s: float = 2.0,
             timeout: float = 30.0) -> ServerInfo:
    """Talk to the server once: mode, model choice, context window and configuration."""
    client = HttpClient(normalize_base_url(base_url), api_key=api_key)
    _wait_healthy(client, load_wait_s, connect_wait_s, timeout)
    try:
        router_listing = _try_get(client, "/models", timeout)
        router_entries = model_entries(router_listing)
        is_router = any("status" in e for e in router_entries)
        if is_router:
            listing, entries = router_listing, router_entries
        else:
            listing = client.get("/v1/models", timeout=timeout)
            entries = model_entries(listing)
    except HttpError as exc:
        raise ServerUnavailable(f"{client.base_url}/v1/models answered {exc}; is this an OpenAI-compatible server?") from exc
    except TRANSIENT_ERRORS as exc:
        raise ServerUnavailable(f"cannot reach the server at {client.base_url}: {describe_error(exc)}") from exc
    chosen, why = choose_model(entries, model_id, name)
    query = "?model=" + quote(chosen, safe="")
    try:
        props = _try_get(client, "/props" + query, timeout)
        slots = _try_get(client, "/slots" + query, timeout)
    except TRANSIENT_ERRORS as exc:
        raise ServerUnavailable(f"the server at {client.base_url} went away during discovery: {describe_error(exc)}") from exc
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


@dataclass
class ServerOptions:
    """How to reach a served model: the server flags `--base-url --model-id --ctx --concurrency --api-key-env`.

    `base_url` is one URL or several (replicas of one model: `--base-url` given more than once).

    `api_key` is for scripts that hold the key already (sent, never stored); the CLI names an environment
    variable instead (`api_key_env`, default `$BANANABENCH_API_KEY`, then `$OPENAI_API_KEY`).
    """

    base_url: str | list[str] | None = None
    model_id: str | None = None
    ctx: int | None = None
    concurrency: int | None = None
    api_key_env: str | None = None
    api_key: str | None = field(default=None, repr=False)

    def key(self) -> str | None:
        return self.api_key or api_key_from_env(self.api_key_env)

    def check(self) -> None:
        """BadInput for a missing or malformed --base-url (before any data is loaded or anything written)."""
        if not self.base_url:
            raise BadInput("--base-url is required: the OpenAI-compatible server to evaluate")
        urls = self.urls()
        if len(set(urls)) != len(urls):
            raise BadInput(f"--base-url: the same server is given twice ({', '.join(urls)})")

    def urls(self) -> list[str]:
        """The normalized --base-url values (BadInput for a malformed one)."""
        given = [self.base_url] if isinstance(self.base_url, str) else list(self.base_url or [])
        return [normalize_base_url(url) for url in given]

    def discover(self, name: str | None = None) -> ServerInfo:
        """`discover` the server with these options (`name` helps choose among several models). With
        several URLs, each replica is discovered with the model the first one chose and must match it
        (`same_configuration`); the first one's info comes back, `replicas` listing them all."""
        self.check()
        urls = self.urls()
        first = discover(urls[0], model_id=self.model_id, name=name, ctx=self.ctx, api_key=self.key())
        if len(urls) == 1:
            return first
        infos = [first] + [discover(url, model_id=self.model_id or first.model_id, name=name, ctx=self.ctx,
                                    api_key=self.key()) for url in urls[1:]]
        same_configuration(infos)
        first.replicas = urls
        return first
