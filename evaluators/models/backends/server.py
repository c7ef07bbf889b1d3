"""Generation against one model on an OpenAI-compatible server (found by `discovery.discover`).

`ServerBackend.generate` runs requests concurrently up to the server's slots, reads streamed (SSE)
or whole answers, keeps the reasoning trace apart from the answer (`reasoning_content`, or
`<think>` blocks in the content), retries transient failures by the `RetryPolicy`, and turns
persistent ones into results with `error` set: an infrastructure error, never a wrong answer.
With several replicas (`info.urls`) the requests are shared by free slots and a replica whose
connection fails hands its request to another at once (`replicas.ReplicaSet`).
"""

from __future__ import annotations

import http.client
import json
import logging
import queue
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluators.core.http import (
    CutStream,
    HttpClient,
    HttpError,
    RetryPolicy,
    describe_error,
    error_message,
    is_transient,
)
from evaluators.core.text import split_reasoning
from evaluators.models.backends.base import Backend, GenerationRequest, GenerationResult
from evaluators.models.backends.discovery import ServerInfo, ServerUnavailable, discover
from evaluators.models.backends.replicas import Replica, ReplicaSet, is_connection_failure

log = logging.getLogger("bananabench")


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


class ServerBackend(Backend):
    """Generation against one model on an OpenAI-compatible server or its replicas (see `discover`)."""

    def __init__(self, info: ServerInfo, *, api_key: str | None = None, concurrency: int | None = None,
                 stream: bool = True, retry: RetryPolicy | None = None, idle_timeout_s: float = 600.0,
                 max_consecutive_failures: int | None = None):
        self.info = info
        self.identity = info.identity()
        self.replicas = ReplicaSet(info.urls, slots=info.n_slots, api_key=api_key, concurrency=concurrency)
        self.concurrency = self.replicas.concurrency
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

    def _once(self, client: HttpClient, path: str, body: dict[str, Any]) -> _Stream:
        started = time.monotonic()
        conn, resp = client.open("POST", path, body, timeout=self.idle_timeout_s)
        try:
            if resp.status >= 300:
                raise HttpError(resp.status, error_message(resp.read()))
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
            raise CutStream("the stream ended before the answer was complete")

    def generate_one(self, req: GenerationRequest) -> GenerationResult:
        """One request, retried on transient failures; `error` set if they persist. A replica whose
        connection fails is taken out and the request goes to another one at once (not counted as a retry)."""
        path, body = self._body(req)
        t0 = time.monotonic()
        attempt, last, moved = 0, "", 0
        for attempt in self.retry.tries(stop=lambda: bool(self._broken)):
            while True:
                replica = self.replicas.acquire()
                try:
                    out = self._once(replica.client, path, body)
                except Exception as exc:
                    last = describe_error(exc)
                    down = is_connection_failure(exc)
                    self.replicas.release(replica, ok=False, failure=last if down else None)
                    if down and moved < len(self.replicas.replicas) and self.replicas.others_up(replica):
                        moved += 1
                        log.info("replica %s failed (%s); its request moves to another", replica.url, last)
                        continue
                    if not is_transient(exc):
                        if isinstance(exc, HttpError):
                            return self._failed(last, attempt, t0, permanent=True)
                        raise
                    log.debug("request failed (%s); attempt %d/%d", last, attempt, self.retry.attempts)
                    break
                self.replicas.release(replica, ok=True)
                with self._lock:
                    self._consecutive_failures = 0
                return self._result(out, attempt, t0, replica, moved)
        return self._failed(last, attempt, t0)

    def _failed(self, message: str, attempts: int, t0: float, permanent: bool = False) -> GenerationResult:
        if not permanent:
            with self._lock:
                self._consecutive_failures += 1
                if self._consecutive_failures >= self.max_consecutive_failures and not self._broken:
                    self._broken = (f"{self._consecutive_failures} requests in a row failed at "
                                    f"{', '.join(self.replicas.urls)} "
                                    f"(last: {message})")
        text = f"{message} (after {attempts} attempt{'s' if attempts != 1 else ''})"
        return GenerationResult(text=None, error=text, raw={"attempts": attempts},
                                timings={"wall_s": time.monotonic() - t0})

    def _result(self, out: _Stream, attempts: int, t0: float, replica: Replica, moved: int) -> GenerationResult:
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
                               "usage": usage or None, "replica": replica.url}
        if moved:
            raw["moved"] = moved
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
                    result = GenerationResult(text=None, error=f"internal error: {describe_error(exc)}")
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
