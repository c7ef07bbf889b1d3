"""Exact log-likelihoods from a GGUF file with llama.cpp in-process (see `llama_capi` for the binding).

Scoring follows llama.cpp's own multiple-choice evaluation (the perplexity tool's HellaSwag mode):
requests that share a context form one unit; the context tokens enter the batch once, tagged with
one sequence id per continuation, and each continuation follows in its own sequence. A unified KV
cache lets every continuation attend to the single copy of the context. Small units are packed
into one KV window of at most `window` cells (and `n_seq_max` sequences), decoded in chunks of at
most `n_batch` tokens; only positions whose next-token log-prob is needed request logits, and the
log-softmax is taken in float32. Flash attention is off and the KV cache is f32, which makes the
numbers match a float32 transformers forward pass to ~1e-6.

Windows stay small on purpose: without flash attention every token attends over every cell of
the window (other sequences' cells are masked, not skipped), so packing many items into one big
window costs more than it saves. Measured on CPU with a 58M-parameter model and Base-Bench-shaped
items: one item per window is 2.4x faster than 1024-cell windows. `n_ctx` (the KV cache size)
bounds the longest request; a context whose continuations together do not fit is scored in several
units, each holding the context again.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evaluators.core.backends.base import Backend, LoglikRequest, LoglikResult, ModelIdentity
from evaluators.core.backends.llama_capi import Model, seq_pointer_array
from evaluators.core.runs import sha256_file

log = logging.getLogger("bananabench.gguf")

LOGITS_BUDGET_BYTES = 256 * 2**20  # logits rows held per decode call (n_outputs x n_vocab x 4 bytes)


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


@dataclass
class _Unit:
    """Requests sharing one context, scored as one prefix-shared tree (or a single request)."""

    context: tuple[int, ...]
    members: list[int]  # request indices, one sequence each

    def cells(self, requests: Sequence[LoglikRequest]) -> int:
        return len(self.context) + sum(len(requests[i].continuation) - 1 for i in self.members)


class GGUFBackend(Backend):
    """A GGUF model scored by llama.cpp in this process; exact (float32 log-softmax, no flash attention)."""

    def __init__(self, path: str | os.PathLike, *, threads: int | None = None, n_gpu_layers: int = 0,
                 n_ctx: int | None = None, n_batch: int = 2048, n_seq_max: int = 64, window: int = 512):
        self.path = Path(path)
        self.threads = threads or os.cpu_count() or 1
        self.model = Model(self.path, n_ctx=n_ctx, n_batch=n_batch, n_seq_max=n_seq_max, threads=self.threads,
                           n_gpu_layers=n_gpu_layers)
        self.window = window
        self.share_prefix = not self.model.recurrent  # recurrent states cannot share one prefix cell
        self.max_outputs = max(1, min(self.model.n_batch, LOGITS_BUDGET_BYTES // (4 * self.model.n_vocab)))
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
    def max_length(self) -> int:
        return self.model.n_ctx

    def describe_loglik(self) -> dict[str, Any]:
        """How the log-probs were computed (for reports)."""
        return {"engine": f"llama.cpp {self.identity.extra['llama_cpp']} in-process (xllamacpp "
                          f"{self.identity.extra['xllamacpp']})",
                "flash_attn": False, "kv_cache": "f32", "log_softmax": "float32", "n_ctx": self.model.n_ctx,
                "window_cells": min(self.window, self.model.n_ctx), "n_batch": self.model.n_batch,
                "prefix_sharing": self.share_prefix, "threads": self.threads}

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

    def _units(self, requests: Sequence[LoglikRequest]) -> list[_Unit]:
        if not self.share_prefix:
            return [_Unit(req.context, [i]) for i, req in enumerate(requests)]
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, req in enumerate(requests):
            groups.setdefault(tuple(req.context), []).append(i)
        units: list[_Unit] = []
        for context, members in groups.items():
            pending = [members[k:k + self.model.n_seq_max] for k in range(0, len(members), self.model.n_seq_max)]
            while pending:
                part = pending.pop(0)
                unit = _Unit(context, part)
                if len(part) > 1 and unit.cells(requests) > self.model.n_ctx:
                    half = len(part) // 2
                    pending[:0] = [part[:half], part[half:]]
                else:
                    units.append(unit)
        return units

    def _windows(self, units: list[_Unit], requests: Sequence[LoglikRequest]) -> Iterator[list[_Unit]]:
        window: list[_Unit] = []
        cells = seqs = 0
        limit = min(self.window, self.model.n_ctx)
        for unit in units:
            c, s = unit.cells(requests), len(unit.members)
            if window and (cells + c > limit or seqs + s > self.model.n_seq_max):
                yield window
                window, cells, seqs = [], 0, 0
            window.append(unit)
            cells += c
            seqs += s
        if window:
            yield window

    def loglikelihood(self, requests: Sequence[LoglikRequest]) -> Iterator[tuple[int, LoglikResult]]:
        self._check(requests)
        for window in self._windows(self._units(requests), requests):
            yield from self._score_window(window, requests)

    def _score_window(self, window: list[_Unit], requests: Sequence[LoglikRequest]
                      ) -> Iterator[tuple[int, LoglikResult]]:
        tokens: list[np.ndarray] = []
        pos: list[np.ndarray] = []
        n_seq: list[np.ndarray] = []
        seq_off: list[np.ndarray] = []
        outputs: list[np.ndarray] = []
        pool: list[int] = []
        # one row per (request, continuation token): which output row predicts it, and the target id
        score_req: list[int] = []
        score_row: list[int] = []
        score_tok: list[int] = []
        n_rows = 0
        seq = 0
        for unit in window:
            ctx = np.asarray(unit.context, dtype=np.int32)
            k, n_ctx = len(unit.members), len(ctx)
            offset = len(pool)
            pool.extend(range(seq, seq + k))
            tokens.append(ctx)
            pos.append(np.arange(n_ctx, dtype=np.int32))
            n_seq.append(np.full(n_ctx, k, dtype=np.int32))
            seq_off.append(np.full(n_ctx, offset, dtype=np.int64))
            out = np.zeros(n_ctx, dtype=np.int8)
            out[-1] = 1
            outputs.append(out)
            shared_row = n_rows
            n_rows += 1
            for j, i in enumerate(unit.members):
                cont = requests[i].continuation
                body = np.asarray(cont[:-1], dtype=np.int32)
                m = len(body)
                pool.append(seq + j)
                tokens.append(body)
                pos.append(np.arange(n_ctx, n_ctx + m, dtype=np.int32))
                n_seq.append(np.ones(m, dtype=np.int32))
                seq_off.append(np.full(m, len(pool) - 1, dtype=np.int64))
                outputs.append(np.ones(m, dtype=np.int8))
                score_req.extend([i] * len(cont))
                score_row.append(shared_row)
                score_row.extend(range(n_rows, n_rows + m))
                score_tok.extend(cont)
                n_rows += m
            seq += k
        tok = np.concatenate(tokens)
        position = np.concatenate(pos)
        nseq = np.concatenate(n_seq)
        out_flags = np.concatenate(outputs)
        seq_pool = np.asarray(pool, dtype=np.int32)
        seq_ptrs = seq_pointer_array(seq_pool, np.concatenate(seq_off))
        rows_req = np.asarray(score_row, dtype=np.int64)
        targets = np.asarray(score_tok, dtype=np.int64)
        logprob = np.empty(len(targets), dtype=np.float32)
        greedy = np.empty(len(targets), dtype=bool)
        order = np.argsort(rows_req, kind="stable")  # scores sorted by output row, to slice per chunk
        sorted_rows = rows_req[order]

        self.model.clear()
        row_start = 0
        for a, b in self._chunks(out_flags):
            flags = np.ascontiguousarray(out_flags[a:b])
            logits = self.model.decode(np.ascontiguousarray(tok[a:b]), np.ascontiguousarray(position[a:b]),
                                       np.ascontiguousarray(nseq[a:b]), np.ascontiguousarray(seq_ptrs[a:b]), flags)
            row_end = row_start + len(logits)
            lo, hi = np.searchsorted(sorted_rows, [row_start, row_end])
            if hi > lo:
                idx = order[lo:hi]
                local = rows_req[idx] - row_start
                lse, best = _row_stats(logits)
                logprob[idx] = logits[local, targets[idx]] - lse[local]
                greedy[idx] = best[local] == targets[idx]
            row_start = row_end
        self.model.clear()

        req_ids = np.asarray(score_req, dtype=np.int64)
        for unit in window:
            for i in unit.members:
                mask = req_ids == i
                lps = logprob[mask]
                yield i, LoglikResult(logprob_sum=float(lps.astype(np.float64).sum()), n_tokens=int(mask.sum()),
                                      token_logprobs=[float(x) for x in lps], is_greedy=bool(greedy[mask].all()))

    def _chunks(self, out_flags: np.ndarray) -> Iterator[tuple[int, int]]:
        """Consecutive slices of at most n_batch tokens and `max_outputs` logits rows."""
        n = len(out_flags)
        outs = np.cumsum(out_flags, dtype=np.int64)
        a = 0
        while a < n:
            b = min(n, a + self.model.n_batch)
            before = outs[a - 1] if a else 0
            if outs[b - 1] - before > self.max_outputs:
                b = int(np.searchsorted(outs, before + self.max_outputs, side="right"))
                b = max(b, a + 1)
            yield a, b
            a = b


def _row_stats(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: float32 log-sum-exp (the log-softmax normaliser) and the argmax."""
    best = logits.argmax(axis=1)
    peak = logits[np.arange(len(logits)), best]
    lse = peak + np.log(np.exp(logits - peak[:, None]).sum(axis=1, dtype=np.float32))
    return lse.astype(np.float32), best
