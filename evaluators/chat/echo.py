"""OpenAI `echo` completions (prompt log-probs) for llama.cpp's server, which ignores `echo`, by teacher forcing.

lm-eval's `local-completions` scores a multiple-choice option by sending the context and the option as
one prompt with `echo: true, logprobs: 1, max_tokens: 1` and summing `token_logprobs[ctxlen:-1]`.
`EchoAnswers` computes every prompt position's log-prob with `ServerLoglikBackend.prompt_logprobs`
(the same numbers `bananabench loglik --backend server` gets), plus the one greedy token asked for,
and answers in the legacy completions shape. It refuses (HTTP 400) what it cannot answer exactly —
sampling, more than one generated token, several completions per prompt, logit biases, streaming —
and says so (HTTP 502) when the server gives no next-token distributions. Never a well-formed answer
built on missing numbers.
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

from evaluators.models.backends.server_loglik import ServerLoglikBackend
from evaluators.models.backends.teacher_forcing import Distribution, DistributionCache

MAX_TOP = 32  # top log-probs per position we offer (the first distribution width: no extra request)
# request fields that change what an exact answer is; refused unless at their neutral value
NEUTRAL = {"n": (None, 1), "best_of": (None, 1), "stream": (None, False), "suffix": (None, ""),
           "logit_bias": (None, {}), "presence_penalty": (None, 0, 0.0), "frequency_penalty": (None, 0, 0.0)}


class BadEcho(ValueError):
    """A request this shim will not answer (HTTP 400): the message names the field."""


class EchoAnswers:
    """Answers `echo` requests against one upstream llama.cpp server (connected on first use)."""

    def __init__(self, upstream: str):
        self.upstream = upstream
        self._backend: ServerLoglikBackend | None = None
        self._lock = threading.Lock()
        self.memo = DistributionCache()  # choices of one question share their context's positions

    def backend(self) -> ServerLoglikBackend:
        with self._lock:
            if self._backend is None:
                self._backend = ServerLoglikBackend.connect(self.upstream)
            return self._backend

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The completions answer; BadEcho (400), or EvaluationFailure (502) when the server cannot give one."""
        generate, top = _check(body)
        raw = _prompts(body.get("prompt"))
        backend = self.backend()
        prompts = [p if isinstance(p, list) else backend.tokenize_prompt(p) for p in raw]
        choices, n_prompt = [], 0
        for index, (tokens, original) in enumerate(zip(prompts, raw, strict=True)):
            dists = backend.prompt_logprobs(tokens, self.memo, top=max(top, 1), generate=generate)
            text = original if isinstance(original, str) else backend.detokenize(tokens)
            choices.append(self._choice(backend, index, tokens, text, dists, generate, top, body.get("logprobs")))
            n_prompt += len(tokens)
        return {"id": f"cmpl-{uuid.uuid4().hex}", "object": "text_completion", "created": int(time.time()),
                "model": body.get("model") or backend.info.model_id, "choices": choices,
                "usage": {"prompt_tokens": n_prompt, "completion_tokens": len(prompts) * int(generate),
                          "total_tokens": n_prompt + len(prompts) * int(generate)}}

    def _choice(self, backend: ServerLoglikBackend, index: int, tokens: list[int], text: str,
                dists: list[Distribution], generate: bool, top: int, logprobs: Any) -> dict[str, Any]:
        first = backend.detokenize(tokens[:1])
        pieces = [first] + [d.pieces.get(t, "") for d, t in zip(dists, tokens[1:], strict=False)]
        values: list[float | None] = [None] + [d.found[t] for d, t in zip(dists, tokens[1:], strict=False)]
        tops: list[dict[str, float] | None] = [None] + [_top(d, top) for d in dists[:len(tokens) - 1]]
        if generate:
            last = dists[-1]
            pieces.append(last.pieces.get(last.best, ""))
            values.append(last.found[last.best])
            tops.append(_top(last, top))
            text += pieces[-1]
        offsets, at = [], 0
        for piece in pieces:
            offsets.append(at)
            at += len(piece)
        lp = {"tokens": pieces, "token_logprobs": values, "top_logprobs": tops, "text_offset": offsets}
        return {"index": index, "text": text, "logprobs": lp if logprobs is not None else None,
                "finish_reason": "length"}


def _check(body: dict[str, Any]) -> tuple[bool, int]:
    """(generate one token?, top log-probs per position) for a request we can answer exactly, else BadEcho."""
    max_tokens = body.get("max_tokens", 16)
    if max_tokens not in (0, 1) or isinstance(max_tokens, bool):
        raise BadEcho(f"echo with max_tokens={max_tokens!r}: only 0 or 1 (scoring a prompt) can be answered exactly "
                      "by teacher forcing")
    temperature = body.get("temperature", 1.0)
    if max_tokens == 1 and temperature not in (0, 0.0, None):
        raise BadEcho(f"echo with temperature={temperature!r} and a generated token: only greedy (temperature 0) "
                      "is exact")
    for name, neutral in NEUTRAL.items():
        if body.get(name) not in neutral:
            raise BadEcho(f"echo with {name}={body.get(name)!r} is not supported by this shim")
    logprobs = body.get("logprobs")
    if logprobs is not None and (isinstance(logprobs, bool) or not isinstance(logprobs, int)
                                 or not 0 <= logprobs <= MAX_TOP):
        raise BadEcho(f"echo with logprobs={logprobs!r}: expected an integer from 0 to {MAX_TOP}")
    return max_tokens == 1, logprobs or 0


def _prompts(prompt: Any) -> list[str | list[int]]:
    """OpenAI's prompt forms: a string, a list of token ids, or a list of either."""
    def is_ids(value: Any) -> bool:
        return isinstance(value, list) and bool(value) and all(
            isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in value)

    if isinstance(prompt, str) and prompt:
        return [prompt]
    if is_ids(prompt):
        return [prompt]
    if isinstance(prompt, list) and prompt and all((isinstance(p, str) and p) or is_ids(p) for p in prompt):
        return list(prompt)
    raise BadEcho("prompt: expected a non-empty string, token id list, or a list of those")


def _top(dist: Distribution, k: int) -> dict[str, float]:
    return {dist.pieces.get(t, str(t)): lp for t, lp in dist.top(k)}
