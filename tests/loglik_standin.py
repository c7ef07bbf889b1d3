"""A scripted stand-in for model servers that give (or fail to give) prompt log-probs.

It plays two kinds of server for the server loglik backend's tests:
* `vllm*` modes: OpenAI-compatible with echoed prompt log-probs (`/v1/completions`, `echo`), vLLM's
  `/tokenize`, no llama.cpp `/completion`;
* `llama*` modes: llama.cpp-style `/tokenize`, `/props`, `/completion` with `n_probs`, and a
  `/v1/completions` that ignores `echo` (chat-shape log-probs of the generated token only).
Correct answers come from the real tiny model (a `GGUFBackend`), with llama.cpp's per-slot prompt cache
reported the way the server does (`timings.prompt_n`); the broken modes then damage them in
the ways real servers and lm-eval's gguf path do (no prompt log-probs, zeros, constants, short lists,
nulls, a reported distribution that moves under `logit_bias`, a target missing from the distribution).
"""

from __future__ import annotations

import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from evaluators.models.backends.base import LoglikRequest
from evaluators.models.backends.gguf import GGUFBackend
from evaluators.models.backends.teacher_forcing import common_prefix

ECHO_MODES = ("vllm", "vllm-zeros", "vllm-constant", "vllm-short", "vllm-nulls", "vllm-positive",
              "vllm-no-logprobs", "vllm-breaks-later", "vllm-adds-bos")
LLAMA_MODES = ("llama-no-forcing", "llama-placeholder", "llama-biased", "llama-drops-target", "llama-truncates")
FAKE_PARTIAL_UTF8 = (5, 6)  # token ids the llama modes describe as lone UTF-8 lead bytes


class StandIn:
    """`with StandIn(gguf_path, mode) as s: s.base_url` serves on a free loopback port in a thread."""

    def __init__(self, gguf: str, mode: str, *, drop: frozenset[int] = frozenset()):
        if mode not in ECHO_MODES + LLAMA_MODES:
            raise ValueError(mode)
        self.mode = mode
        self.drop = drop  # llama-drops-target: token ids left out of scoring requests' distributions
        self.model = GGUFBackend(gguf, threads=1)
        self.lock = threading.Lock()
        self.completions = 0
        self.slot_cache: dict[int | None, list[int]] = {}  # what llama.cpp's prompt cache holds per slot
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> StandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.model.close()

    # -- model answers ---------------------------------------------------------------------------

    def prompt_logprobs(self, prompt: list[int]) -> list[float | None]:
        with self.lock:
            (_, res), = self.model.loglikelihood([LoglikRequest(tuple(prompt[:1]), tuple(prompt[1:]))])
        return [None, *res.token_logprobs]

    def distribution(self, prompt: list[int]) -> list[tuple[int, float]]:
        vocab = self.model.model.n_vocab
        with self.lock:
            res = dict(self.model.loglikelihood([LoglikRequest(tuple(prompt), (t,)) for t in range(vocab)]))
        return sorted(((t, res[t].logprob_sum) for t in range(vocab)), key=lambda e: -e[1])

    # -- HTTP --------------------------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: Any) -> None:
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self) -> None:
                status, body = standin.get(self.path)
                self._send(status, body)

            def do_POST(self) -> None:
                payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                status, body = standin.post(self.path, payload)
                self._send(status, body)

        return Handler

    def llama(self) -> bool:
        return self.mode.startswith("llama")

    def get(self, path: str) -> tuple[int, Any]:
        if path == "/v1/models":
            entry: dict[str, Any] = {"id": "tiny", "object": "model", "max_model_len": self.model.max_length}
            if self.llama():
                entry["meta"] = {"n_vocab": self.model.model.n_vocab, "n_ctx": self.model.max_length}
            return 200, {"object": "list", "data": [entry]}
        if path == "/props" and self.llama():
            return 200, {"total_slots": 1, "default_generation_settings": {"n_ctx": self.model.max_length},
                         "build_info": "standin", "model_path": "tiny.gguf"}
        return 404, {"error": {"message": "Not Found", "code": 404}}

    def post(self, path: str, p: dict[str, Any]) -> tuple[int, Any]:
        if path == "/tokenize":
            text = p.get("content") if self.llama() else p.get("prompt")
            if not isinstance(text, str):
                return 400, {"error": {"message": "missing text field"}}
            return 200, {"tokens": self.model.tokenize(text), "max_model_len": self.model.max_length}
        if path == "/v1/completions":
            return self.completions_reply(p)
        if path == "/completion" and self.llama():
            return self.forcing_reply(p)
        return 404, {"error": {"message": "Not Found", "code": 404}}

    def completions_reply(self, p: dict[str, Any]) -> tuple[int, Any]:
        prompt = p["prompt"]
        with self.lock:
            self.completions += 1
            calls = self.completions
        if self.llama():  # llama.cpp: echo ignored, chat-shape log-probs of the generated token only
            return 200, {"choices": [{"text": "x", "index": 0, "logprobs": {"content": [
                {"id": 7, "token": "x", "logprob": -1.5, "top_logprobs": []}]}}]}
        values = self.prompt_logprobs(prompt) + [-0.5]  # plus the one generated token
        mode = self.mode
        if mode == "vllm-breaks-later" and calls > 1:
            mode = "vllm-zeros"
        if mode == "vllm-no-logprobs":
            return 200, {"choices": [{"text": "x", "index": 0, "logprobs": None}]}
        if mode == "vllm-zeros":
            values = [None] + [0.0] * (len(values) - 1)
        elif mode == "vllm-constant":
            values = [None] + [-1.0] * (len(values) - 1)
        elif mode == "vllm-short":
            values = values[: len(prompt) // 2]
        elif mode == "vllm-nulls":
            values = [None] * len(values)
        elif mode == "vllm-positive":
            values = [None] + [abs(v) + 0.1 for v in values[1:]]
        n_prompt = len(prompt)
        if mode == "vllm-adds-bos":  # a BOS in front: one more prompt token than was sent
            values = [None, -2.0, *values[1:]]
            n_prompt += 1
        return 200, {"choices": [{"text": "x", "index": 0, "logprobs": {
            "tokens": ["t"] * len(values), "token_logprobs": values, "top_logprobs": None,
            "text_offset": list(range(len(values)))}}],
            "usage": {"prompt_tokens": n_prompt, "completion_tokens": 1, "total_tokens": n_prompt + 1}}

    def forcing_reply(self, p: dict[str, Any]) -> tuple[int, Any]:
        if self.mode == "llama-no-forcing":
            return 200, {"content": "x", "stop": True}
        dist = self.distribution(p["prompt"])
        banned = {t for t, _ in (p.get("logit_bias") or [])}
        if self.mode == "llama-placeholder":
            dist = [(t, 0.0) for t, _ in dist]
        elif self.mode == "llama-biased" and banned:  # renormalise without the banned tokens
            kept = [(t, v) for t, v in dist if t not in banned]
            norm = math.log(math.fsum(math.exp(v) for _, v in kept))
            dist = [(t, v - norm) for t, v in kept]
        elif self.mode == "llama-drops-target" and p.get("id_slot") is not None:
            dist = [(t, v) for t, v in dist if t not in self.drop]  # only scoring requests pin a slot
        top = dist[: max(1, int(p.get("n_probs", 1)))]
        prompt, slot = list(p["prompt"]), p.get("id_slot")
        with self.lock:  # llama.cpp keeps the common prefix with its cache and re-evaluates at least one token
            cached = self.slot_cache.get(slot, []) if p.get("cache_prompt", True) else []
            kept = common_prefix(cached, prompt)
            self.slot_cache[slot] = prompt
        evaluated = len(prompt) - min(kept, len(prompt) - 1)
        entries = [{"id": t, "token": f"<{t}>", "logprob": v,
                    "bytes": [0xC3] if t in FAKE_PARTIAL_UTF8 else [0x61]} for t, v in top]
        return 200, {"content": "x", "completion_probabilities": [dict(entries[0], top_logprobs=entries)],
                     "timings": {"prompt_n": evaluated}, "tokens_evaluated": len(p["prompt"]),
                     "truncated": self.mode == "llama-truncates" and p.get("id_slot") is not None}
