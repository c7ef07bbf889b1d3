"""Exact log-likelihoods from a GGUF file with llama.cpp in-process, in one canonical layout.

Why the layout is fixed: llama.cpp's CPU kernels multiply quantised weights with activations they
quantise on the fly (8 bits per block). A difference in the last bit of a float — from where a
token's KV cells sit, or from a token evaluated alone (another kernel path than two or more) — can
flip such a rounding, and 30 layers later a continuation's log-prob has moved by up to ~0.5 nats
(measured on SmolLM2-135M Q4_1; on float32 weights the same changes move it by ~1e-6). A score is
only well defined together with the layout that computed it, so there is exactly one:

* each context is scored alone: the KV cache is cleared and the context fills cells 0..n-1, decoded
  in calls of at most `n_batch` tokens, never a call of one token;
* each distinct continuation then re-decodes the context's last token together with its own tokens
  but the last, in one call at cells n-1.. (the cache is first cut back to the context); a one-token
  continuation reads the distribution after the context.

Every position is thus computed on the batched kernel path, at KV cell = position, with nothing but
its own context in the cache: a score depends on the tokens of (context, continuation), the model
file and the settings (flash attention off, f32 KV cache, float32 log-softmax) — not on the other
items, their order, the thread count or `n_batch`. llama.cpp's server driven by `teacher_forcing`
computes the same hidden states (its final projection may round differently, ~1e-6). A recurrent or
hybrid model cannot cut its state back, so there each continuation is decoded with its context from
scratch (the same numbers, more work).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evaluators.models.backends.base import (
    Backend,
    LoglikRequest,
    LoglikResult,
    ModelIdentity,
    distinct_requests,
)
from evaluators.models.llama_capi import Model, seq_pointer_array
from evaluators.runs.runs import sha256_file

LOGITS_BUDGET_BYTES = 256 * 2**20  # logits rows held per decode call (n_outputs x n_vocab x 4 bytes)
N_BATCH = 512  # tokens per decode call (llama.cpp's default micro-batch)


def _quantization_name(model: Model) -> str:
    """`Q4_K_M`, `F16`, `F32`... from the GGUF's general.file_type (llama.cpp's guess if absent)."""
    raw = model.meta("general.file_type")
    code = int(raw) if raw is not None and raw.strip().lstrip("-").isdigit() else \
        model.lib.llama_model_ftype(model.model) & ~1024
    try:
        import gguf

        name = gguf.LlamaFileType(code).name
        return name.removeprefix("MOSTLY_").removeprefix("ALL_")
    except (ImportError, ValueError):
        return model.lib.llama_ftype_name(code).decode()


def spans(n: int, size: int) -> list[tuple[int, int]]:
    """[0, n) cut into spans of at most `size` (>= 3) tokens, none of one token unless n == 1."""
    out = []
    a = 0
    while a < n:
        b = min(n, a + size)
        if n - b == 1:
            b -= 1  # leave two for the last call, not one
        out.append((a, b))
        a = b
    return out


class GGUFBackend(Backend):
    """A GGUF model scored by llama.cpp in this process; exact (float32 log-softmax, no flash attention)."""

    def __init__(self, path: str | os.PathLike, *, threads: int | None = None, n_gpu_layers: int = 0,
                 n_ctx: int | None = None, n_batch: int = N_BATCH):
        self.path = Path(path)
        self.threads = threads or os.cpu_count() or 1
        self.model = Model(self.path, n_ctx=n_ctx, n_batch=max(3, n_batch), n_seq_max=1, threads=self.threads,
                           n_gpu_layers=n_gpu_layers)
        self.cut_back = not self.model.recurrent  # recurrent states cannot be cut back to the context
        rows = LOGITS_BUDGET_BYTES // (4 * self.model.n_vocab)
        self.call_size = max(3, min(self.model.n_batch, rows))
        self._seq = np.zeros(1, dtype=np.int32)  # every token belongs to sequence 0
        lib = self.model.lib
        self.identity = ModelIdentity(
            kind="gguf",
            source=str(self.path.resolve()),
            files_sha256={self.path.name: sha256_file(self.path)},
            n_params=int(lib.llama_model_n_params(self.model.model)),
            quantization=_quantization_name(self.model),
            extra={
                "architecture": self.model.meta("general.architecture"),
                "n_vocab": self.model.n_vocab,
                "n_ctx_train": self.model.n_ctx_train,
                "n_ctx": self.model.n_ctx,
                "n_gpu_layers": n_gpu_layers,
                "threads": self.threads,
                "llama_cpp": f"b{lib.build}" if lib.build else None,
                "xllamacpp": lib.version,
                "exact": {"flash_attn": False, "kv_cache": "f32", "log_softmax": "float32"},
            },
        )

    def tokenize(self, text: str) -> list[int]:
        """llama.cpp's tokenizer: no BOS/EOS added, special-token text not parsed as control tokens."""
        return self.model.tokenize(text)

    @property
    def bos_token_id(self) -> int | None:
        return self.model.bos

    @property
    def adds_bos(self) -> bool:
        """The GGUF's `tokenizer.ggml.add_bos_token` (llama.cpp's own default when it is absent: no)."""
        return self.model.bos is not None and (self.model.meta("tokenizer.ggml.add_bos_token") or "") == "true"

    @property
    def max_length(self) -> int:
        return self.model.n_ctx

    def describe_loglik(self) -> dict[str, Any]:
        """How the log-probs were computed (for reports)."""
        return {"engine": f"llama.cpp {self.identity.extra['llama_cpp']} in-process (xllamacpp "
                          f"{self.identity.extra['xllamacpp']})",
                "flash_attn": False, "kv_cache": "f32", "log_softmax": "float32", "n_ctx": self.model.n_ctx,
                "layout": "context alone from cell 0, each continuation after it; no one-token calls",
                "n_batch": self.call_size, "threads": self.threads}

    def close(self) -> None:
        self.model.close()

    # -- scoring -----------------------------------------------------------------------------------

    def _check(self, requests: Sequence[LoglikRequest]) -> None:
        for i, req in enumerate(requests):
            if not req.context:
                raise ValueError(f"request {i}: empty context (prepend a BOS token to score from the start)")
            if not req.continuation:
                raise ValueError(f"request {i}: empty continuation")
            need = len(req.context) + len(req.continuation) - 1
            if need > self.model.n_ctx:
                raise ValueError(f"request {i}: {need + 1} tokens exceed the context of {self.model.n_ctx} "
                                 "(raise --n-ctx)")
            ids = np.fromiter((*req.context, *req.continuation), dtype=np.int64)
            if ids.min() < 0 or ids.max() >= self.model.n_vocab:
                raise ValueError(f"request {i}: token id outside the vocabulary of {self.model.n_vocab}")

    def loglikelihood(self, requests: Sequence[LoglikRequest]) -> Iterator[tuple[int, LoglikResult]]:
        """Results context by context (each distinct pair scored once, shared by every request for it)."""
        self._check(requests)
        distinct, owners = distinct_requests(requests)
        by_context: dict[tuple[int, ...], list[int]] = {}
        for k, req in enumerate(distinct):
            by_context.setdefault(req.context, []).append(k)
        for context, members in by_context.items():
            for k, result in self._score_context(context, [(k, distinct[k].continuation) for k in members]):
                for i in owners[k]:
                    yield i, result

    def _score_context(self, context: tuple[int, ...], continuations: list[tuple[int, tuple[int, ...]]]
                       ) -> Iterator[tuple[int, LoglikResult]]:
        n = len(context)
        first: np.ndarray | None = None  # the distribution after the context: log-probs and argmax
        if self.cut_back or any(len(c) == 1 for _, c in continuations):
            self.model.clear()
            first = self._decode(np.asarray(context, dtype=np.int32), 0, last_only=True)[0]
        for k, cont in continuations:
            targets = np.asarray(cont, dtype=np.int64)
            if len(cont) == 1:
                assert first is not None
                rows = first[None]
            elif self.cut_back:
                self.model.cut(0, n - 1)
                rows = self._decode(np.asarray((context[-1], *cont[:-1]), dtype=np.int32), n - 1)
            else:
                self.model.clear()
                run = np.asarray((*context, *cont[:-1]), dtype=np.int32)
                rows = self._decode(run, 0, first_output=n - 1)
            lps, best = _log_softmax_at(rows, targets)
            yield k, LoglikResult(logprob_sum=float(lps.astype(np.float64).sum()), n_tokens=len(cont),
                                  token_logprobs=[float(x) for x in lps], is_greedy=bool((best == targets).all()))
        self.model.clear()

    def _decode(self, tokens: np.ndarray, start: int, *, last_only: bool = False,
                first_output: int = 0) -> np.ndarray:
        """Decode `tokens` at positions start.. of sequence 0; logits rows (copied) from `first_output` on,
        or of the last token only."""
        rows: list[np.ndarray] = []
        n = len(tokens)
        for a, b in spans(n, self.call_size):
            out = np.zeros(b - a, dtype=np.int8)
            if last_only:
                out[-1] = b == n
            else:
                out[max(0, first_output - a):] = 1
            logits = self.model.decode(
                np.ascontiguousarray(tokens[a:b]), np.arange(start + a, start + b, dtype=np.int32),
                np.ones(b - a, dtype=np.int32), seq_pointer_array(self._seq, np.zeros(b - a, dtype=np.int64)), out)
            if len(logits):
                rows.append(np.array(logits))
        return np.concatenate(rows)


def _log_softmax_at(rows: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the float32 log-prob of its target, and the argmax."""
    best = rows.argmax(axis=1)
    peak = rows[np.arange(len(rows)), best]
    lse = peak + np.log(np.exp(rows - peak[:, None]).sum(axis=1, dtype=np.float32))
    return (rows[np.arange(len(rows)), targets] - lse).astype(np.float32), best
