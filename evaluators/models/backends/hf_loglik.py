"""Exact continuation log-likelihoods with a transformers causal LM, computed once per context.

The seed's runner (and most harnesses) give every context + continuation its own padded row and
compute the vocabulary projection at every position, so a four-choice item reads its context four
times and projects hundreds of positions whose log-probs nobody needs. Here:

* every distinct context is packed with all its continuations into one row,
  ``[context | cont_1 | cont_2 | ...]``, with a tree-shaped attention mask (a continuation sees the
  context and its own earlier tokens, never a sibling) and position ids that restart after the context
  for each continuation, so each continuation token sees exactly what it would in its own row;
* the output projection runs only at the positions whose next-token log-prob is needed (the last
  context token once, then each continuation token but its last), with log-softmax in float32;
* rows are sorted by length and batched under a token budget (and at most `max_contexts` rows);
  results leave the device once per batch;
* on out-of-memory the token budget halves and the same batch is retried; the size that worked is kept.

`verify_packing` compares the packed path with plain per-row forwards on a probe, once per model, so
an architecture that ignores custom 4D masks or post-processes its logits in a way we do not mirror
falls back to a slower exact path instead of scoring wrongly.

`torch_log_softmax=True` normalises with `torch.log_softmax`, as transformers users and lm-eval's HFLM do.
On CPU its float32 sum over the vocabulary drifts: ~1e-5 per token above a float64 log-softmax of the same
logits for SmolLM2 (49k entries), so ~1e-3 over a 200-token document, while the max-shifted `exp().sum()`
used by default stays within ~1e-7 per token. Reproducing HFLM's numbers needs HFLM's arithmetic.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from evaluators.core.errors import EvaluationFailure
from evaluators.models.backends.base import LoglikRequest, LoglikResult, distinct_requests

log = logging.getLogger("bananabench")

CPU_TOKEN_BUDGET = 32768
MIN_TOKEN_BUDGET = 64
# Float32 logits materialised at once: bounds memory for large vocabularies.
LOGIT_CHUNK_BYTES = {"cpu": 256 << 20, "cuda": 1 << 30}


@dataclass
class _Group:
    """One packed row: a context and some of its continuations (indices into the request list)."""

    context: tuple[int, ...]
    members: list[int]
    length: int


@dataclass
class _Batch:
    input_ids: torch.Tensor  # (B, T)
    position_ids: torch.Tensor  # (B, T)
    segments: torch.Tensor  # (B, T): -1 pad, 0 context, k >= 1 continuation k
    source_rows: torch.Tensor  # (P,) flat positions (b * T + t) whose logits are needed
    target_source: torch.Tensor  # (N,) index into source_rows for every continuation token
    target_tokens: torch.Tensor  # (N,)
    target_request: torch.Tensor  # (N,) local request index (0..R-1)
    requests: list[int]  # global request index per local index
    n_tokens: list[int]
    tokens: int  # B * T


def _is_oom(exc: BaseException) -> bool:
    if isinstance(exc, torch.OutOfMemoryError):
        return True
    text = str(exc)
    return isinstance(exc, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text)


def _check(requests: Sequence[LoglikRequest]) -> None:
    for i, req in enumerate(requests):
        if not req.context:
            raise EvaluationFailure(f"request {i}: empty context (the first token has nothing to condition on)")
        if not req.continuation:
            raise EvaluationFailure(f"request {i}: empty continuation")


def _merge_sharing_contexts(batches: list[list[int]], distinct: Sequence[LoglikRequest],
                            owners: list[list[int]]) -> list[list[int]]:
    """Join batches holding the same context (union-find), so a unit of work never splits one."""
    context_of = {i: tuple(distinct[k].context) for k, members in enumerate(owners) for i in members}
    parent = list(range(len(batches)))

    def root(b: int) -> int:
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    seen: dict[tuple[int, ...], int] = {}
    for b, batch in enumerate(batches):
        for i in batch:
            other = seen.setdefault(context_of[i], b)
            parent[root(b)] = root(other)
    units: dict[int, list[int]] = {}
    for b, batch in enumerate(batches):
        units.setdefault(root(b), []).extend(batch)
    return [sorted(unit) for unit in units.values()]


class PackedScorer:
    """Scores `LoglikRequest`s with a loaded `*ForCausalLM` (see the module docstring)."""

    def __init__(self, model: Any, *, max_contexts: int | None = 8, token_budget: int | None = None,
                 verify: bool = True, torch_log_softmax: bool = False):
        self.model = model
        # Inputs go where the embeddings are, results are computed where the output projection is (the same
        # device, unless accelerate spread the layers over several).
        self.device = model.get_input_embeddings().weight.device
        self.out_device = model.get_output_embeddings().weight.device
        self.dtype = next(model.parameters()).dtype
        self.max_contexts = max_contexts
        self.token_budget = token_budget or self._auto_budget()
        self.backoffs = 0
        self.mode = "packed"  # or "rows" when the model ignores custom masks
        self.project_only_needed = True
        self.torch_log_softmax = torch_log_softmax
        self.probe_max_abs_diff: float | None = None
        self._verified = not verify
        config = model.config
        self._softcap = getattr(config, "final_logit_softcapping", None)
        self._logit_scale = getattr(config, "logit_scale", None)
        self._logits_scaling = getattr(config, "logits_scaling", None)
        chunk_bytes = LOGIT_CHUNK_BYTES.get(self.device.type, LOGIT_CHUNK_BYTES["cuda"])
        self._logit_chunk = max(1, chunk_bytes // (4 * model.get_output_embeddings().weight.shape[0]))

    # -- configuration ---------------------------------------------------------------------

    def _auto_budget(self) -> int:
        if self.device.type != "cuda":
            return CPU_TOKEN_BUDGET
        free, _total = torch.cuda.mem_get_info(self.device)
        cfg = self.model.config
        hidden = getattr(cfg, "hidden_size", 4096)
        inter = getattr(cfg, "intermediate_size", 4 * hidden)
        per_token = torch.finfo(self.dtype).bits // 8 * (12 * hidden + 4 * inter) + 4096
        return int(max(MIN_TOKEN_BUDGET, min(1 << 20, 0.5 * free / per_token)))

    def describe(self) -> dict[str, Any]:
        """How scores were computed (recorded with the run, not part of its signature)."""
        return {"scorer": "packed-tree" if self.mode == "packed" else "per-row",
                "projection": "needed-positions" if self.project_only_needed else "full",
                "log_softmax": "torch" if self.torch_log_softmax else "max-shifted-sum",
                "token_budget": self.token_budget, "max_contexts": self.max_contexts,
                "oom_backoffs": self.backoffs, "probe_max_abs_diff": self.probe_max_abs_diff,
                "device": str(self.device), "dtype": str(self.dtype).removeprefix("torch.")}

    # -- public ------------------------------------------------------------------------------

    def score(self, requests: Sequence[LoglikRequest]) -> Iterator[tuple[int, LoglikResult]]:
        """Yield `(request index, result)` pairs, batch by batch (longest rows first).

        Each distinct (context, continuation) is scored once and its result given to every request for it.
        """
        _check(requests)
        distinct, owners = distinct_requests(requests)
        for k, result in self._score_distinct(distinct):
            for i in owners[k]:
                yield i, result

    def plan(self, requests: Sequence[LoglikRequest]) -> list[list[int]]:
        """The request indices of each batch `score` runs, in its order.

        Scoring one of these alone re-forms exactly that batch (rows are sorted the same way and a batch's
        size follows from its first row), so data-parallel ranks that each take whole batches compute every
        number as one process does. Batches that share a context (one too long for a row, split in two)
        stay together.
        """
        _check(requests)
        distinct, owners = distinct_requests(requests)
        if not self._verified:
            self._verify(distinct)
        groups = self._groups(distinct)
        batches: list[list[int]] = []
        start = 0
        while start < len(groups):
            batch = self._take(groups, start)
            batches.append([i for group in batch for m in group.members for i in owners[m]])
            start += len(batch)
        return _merge_sharing_contexts(batches, distinct, owners)

    def _score_distinct(self, requests: Sequence[LoglikRequest]) -> Iterator[tuple[int, LoglikResult]]:
        if not self._verified:
            self._verify(requests)
        groups = self._groups(requests)
        # Batch k's results are collected (one device-to-host copy) after batch k+1 is launched,
        # so the host prepares the next batch while the device works.
        pending: tuple[_Batch, torch.Tensor] | None = None
        start = 0
        while start < len(groups):
            batch_groups = self._take(groups, start)
            try:
                launched = self._launch(requests, batch_groups)
            except Exception as exc:
                if not _is_oom(exc):
                    raise
                if pending is not None:
                    yield from self._collect(*pending)
                    pending = None
                self._on_oom(batch_groups, exc)
                continue
            start += len(batch_groups)
            if pending is not None:
                yield from self._collect(*pending)
            pending = launched
        if pending is not None:
            yield from self._collect(*pending)

    # -- grouping and batching -----------------------------------------------------------------

    def _groups(self, requests: Sequence[LoglikRequest]) -> list[_Group]:
        """Rows in an order that depends on the set of requests, not on their order: a continuation's
        offset in its row, and the rows batched together, are then the same however the data is shuffled."""
        by_context: dict[tuple[int, ...], list[int]] = {}
        for i, req in enumerate(requests):
            by_context.setdefault(tuple(req.context), []).append(i)
        groups: list[_Group] = []
        for context, members in by_context.items():
            members = sorted(members, key=lambda m: requests[m].continuation)
            if self.mode == "rows":
                groups.extend(_Group(context, [m], len(context) + len(requests[m].continuation)) for m in members)
                continue
            # A context with very many continuations is split so no row outgrows the budget.
            current: list[int] = []
            length = len(context)
            for m in members:
                extra = len(requests[m].continuation)
                if current and length + extra > self.token_budget:
                    groups.append(_Group(context, current, length))
                    current, length = [], len(context)
                current.append(m)
                length += extra
            groups.append(_Group(context, current, length))
        groups.sort(key=lambda g: (-g.length, g.context, [requests[m].continuation for m in g.members]))
        return groups

    def _take(self, groups: list[_Group], start: int) -> list[_Group]:
        """The next batch: sorted rows, padded length × rows within the budget, at most max_contexts rows."""
        width = groups[start].length
        n = 1
        while start + n < len(groups):
            if self.max_contexts is not None and n >= self.max_contexts:
                break
            if (n + 1) * width > self.token_budget:
                break
            n += 1
        return groups[start:start + n]

    def _on_oom(self, batch: list[_Group], exc: BaseException) -> None:
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
        tokens = len(batch) * batch[0].length
        if len(batch) == 1:
            raise EvaluationFailure(
                f"out of memory scoring a single row of {tokens} tokens on {self.device}; "
                "use a smaller --dtype or a device with more memory"
            ) from exc
        self.token_budget = max(MIN_TOKEN_BUDGET, min(self.token_budget, tokens) // 2, batch[0].length)
        self.backoffs += 1
        log.warning("out of memory with %d rows × %d tokens; token budget now %d", len(batch), batch[0].length,
                    self.token_budget)

    def _build(self, requests: Sequence[LoglikRequest], groups: list[_Group]) -> _Batch:
        width = groups[0].length
        rows = len(groups)
        input_ids = torch.zeros((rows, width), dtype=torch.long)
        position_ids = torch.zeros((rows, width), dtype=torch.long)
        segments = torch.full((rows, width), -1, dtype=torch.long)
        source_rows: list[int] = []
        target_source: list[int] = []
        target_tokens: list[int] = []
        target_request: list[int] = []
        request_ids: list[int] = []
        n_tokens: list[int] = []
        for b, group in enumerate(groups):
            ctx = list(group.context)
            n_ctx = len(ctx)
            row_tokens = list(ctx)
            row_pos = list(range(n_ctx))
            row_seg = [0] * n_ctx
            base = b * width
            last_ctx = len(source_rows)
            source_rows.append(base + n_ctx - 1)
            offset = n_ctx
            for k, m in enumerate(group.members, start=1):
                cont = list(requests[m].continuation)
                local = len(request_ids)
                request_ids.append(m)
                n_tokens.append(len(cont))
                row_tokens.extend(cont)
                row_pos.extend(range(n_ctx, n_ctx + len(cont)))
                row_seg.extend([k] * len(cont))
                for j, tok in enumerate(cont):
                    if j == 0:
                        target_source.append(last_ctx)
                    else:
                        target_source.append(len(source_rows))
                        source_rows.append(base + offset + j - 1)
                    target_tokens.append(tok)
                    target_request.append(local)
                offset += len(cont)
            n = len(row_tokens)
            input_ids[b, :n] = torch.tensor(row_tokens)
            position_ids[b, :n] = torch.tensor(row_pos)
            segments[b, :n] = torch.tensor(row_seg)
        return _Batch(input_ids, position_ids, segments, torch.tensor(source_rows), torch.tensor(target_source),
                      torch.tensor(target_tokens), torch.tensor(target_request), request_ids, n_tokens,
                      rows * width)

    # -- the forward pass --------------------------------------------------------------------------

    def _mask(self, segments: torch.Tensor) -> torch.Tensor:
        """Additive (B, 1, T, T) mask: causal, context visible to all, continuations private."""
        width = segments.shape[1]
        idx = torch.arange(width, device=segments.device)
        causal = idx[None, :] <= idx[:, None]
        q = segments[:, :, None]
        k = segments[:, None, :]
        allowed = causal[None] & (k >= 0) & ((k == 0) | (k == q))
        allowed |= torch.eye(width, dtype=torch.bool, device=segments.device)[None] & (q < 0)
        zero = torch.zeros((), dtype=self.dtype, device=segments.device)
        neg = torch.full((), torch.finfo(self.dtype).min, dtype=self.dtype, device=segments.device)
        return torch.where(allowed, zero, neg)[:, None]

    def _logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Output projection plus the logit post-processing some architectures apply, in float32."""
        logits = self.model.get_output_embeddings()(hidden)
        if self._logit_scale is not None:
            logits = logits * self._logit_scale
        if self._logits_scaling is not None:
            logits = logits / self._logits_scaling
        logits = logits.float()
        if self._softcap is not None:
            logits = torch.tanh(logits / self._softcap) * self._softcap
        return logits

    def _hidden_or_logits(self, batch: _Batch) -> tuple[torch.Tensor, bool]:
        """Final hidden states (B, T, H) when projecting only needed positions, else full logits."""
        dev = self.device
        ids = batch.input_ids.to(dev, non_blocking=True)
        segments = batch.segments.to(dev, non_blocking=True)
        if self.mode == "packed":
            kwargs = {"attention_mask": self._mask(segments),
                      "position_ids": batch.position_ids.to(dev, non_blocking=True)}
        else:
            kwargs = {"attention_mask": (segments >= 0).long()}
        if self.project_only_needed:
            base = self.model.get_decoder() if hasattr(self.model, "get_decoder") else self.model.base_model
            out = base(input_ids=ids, use_cache=False, **kwargs)
            return out[0], False
        return self.model(input_ids=ids, use_cache=False, **kwargs).logits, True

    @torch.inference_mode()
    def _launch(self, requests: Sequence[LoglikRequest], groups: list[_Group]) -> tuple[_Batch, torch.Tensor]:
        """Queue one batch on the device; returns it with a small device tensor holding its results."""
        batch = self._build(requests, groups)
        dev = self.out_device
        states, are_logits = self._hidden_or_logits(batch)
        flat = states.reshape(-1, states.shape[-1])
        source_rows = batch.source_rows.to(flat.device, non_blocking=True)
        target_source = batch.target_source.to(dev, non_blocking=True)
        target_tokens = batch.target_tokens.to(dev, non_blocking=True)
        token_lp = torch.empty(len(batch.target_tokens), dtype=torch.float32, device=dev)
        greedy = torch.empty(len(batch.target_tokens), dtype=torch.bool, device=dev)
        n_sources = source_rows.shape[0]
        # Targets grouped by source chunk: sources are built in order, so each chunk's targets are
        # found with one mask (no per-target work).
        for lo in range(0, n_sources, self._logit_chunk):
            hi = min(n_sources, lo + self._logit_chunk)
            selected = flat.index_select(0, source_rows[lo:hi])
            logits = (selected.float() if are_logits else self._logits(selected)).to(dev)
            # One max pass serves both the stable log-sum-exp and the greedy check.
            peak = logits.amax(dim=-1)
            in_chunk = (target_source >= lo) & (target_source < hi)
            local = target_source[in_chunk] - lo
            target_logit = logits[local, target_tokens[in_chunk]]
            if self.torch_log_softmax:
                token_lp[in_chunk] = torch.log_softmax(logits, dim=-1)[local, target_tokens[in_chunk]]
            else:
                lse = peak + torch.log(torch.exp(logits - peak[:, None]).sum(dim=-1))
                token_lp[in_chunk] = target_logit - lse[local]
            greedy[in_chunk] = target_logit >= peak[local]
        n_req = len(batch.requests)
        target_request = batch.target_request.to(dev, non_blocking=True)
        sums = torch.zeros(n_req, dtype=torch.float64, device=dev).index_add_(0, target_request, token_lp.double())
        misses = torch.zeros(n_req, dtype=torch.float64, device=dev).index_add_(0, target_request,
                                                                                (~greedy).double())
        return batch, torch.cat([sums, misses, token_lp.double()])

    def _collect(self, batch: _Batch, packed: torch.Tensor) -> list[tuple[int, LoglikResult]]:
        """Bring one batch's results to the host (the only sync per batch) as `LoglikResult`s."""
        values = packed.cpu().tolist()
        n_req = len(batch.requests)
        sums, misses, lp = values[:n_req], values[n_req:2 * n_req], values[2 * n_req:]
        results = []
        cursor = 0
        for local, global_index in enumerate(batch.requests):
            n = batch.n_tokens[local]
            results.append((global_index, LoglikResult(logprob_sum=sums[local], n_tokens=n,
                                                       token_logprobs=lp[cursor:cursor + n],
                                                       is_greedy=misses[local] == 0)))
            cursor += n
        return results

    # -- self-check ------------------------------------------------------------------------------

    @torch.inference_mode()
    def _reference(self, req: LoglikRequest) -> float:
        """Plain forward of context + continuation as one unpadded row, full logits."""
        ids = torch.tensor([list(req.context) + list(req.continuation)], device=self.device)
        logits = self.model(input_ids=ids, use_cache=False).logits[0].float()
        n_ctx = len(req.context)
        lp = torch.log_softmax(logits[n_ctx - 1:-1], dim=-1)
        return float(lp.gather(1, torch.tensor(req.continuation, device=lp.device)[:, None]).sum())

    def _probe_diff(self, probe: list[LoglikRequest]) -> float:
        ref = [self._reference(r) for r in probe]
        got = {}
        for group in self._groups(probe):
            got.update(self._collect(*self._launch(probe, [group])))
        return max(abs(got[i].logprob_sum - ref[i]) / len(probe[i].continuation) for i in range(len(probe)))

    def _verify(self, requests: Sequence[LoglikRequest]) -> None:
        """Check packing and partial projection against plain forwards; fall back where they differ."""
        self._verified = True
        first = requests[0]
        ctx = tuple(first.context[-48:])
        conts = [tuple(r.continuation[:12]) for r in requests[:4]]
        conts.append(tuple(reversed(first.continuation[:12])))
        probe = [LoglikRequest(ctx, c) for c in conts]
        tol = 1e-3 if self.dtype == torch.float32 else 0.15
        diffs: list[float] = []
        for mode, needed in (("packed", True), ("packed", False), ("rows", False)):
            self.mode, self.project_only_needed = mode, needed
            try:
                diffs.append(self._probe_diff(probe))
            except Exception as exc:  # e.g. a decoder that takes no position_ids: try the next path
                if _is_oom(exc):
                    raise
                log.debug("scoring path %s/%s failed on the probe: %s", mode, needed, exc)
                diffs.append(math.inf)
            if diffs[-1] <= tol:
                break
        else:
            raise EvaluationFailure(
                f"scores differ from a plain forward by {min(diffs):.3g} on every scoring path; "
                "this model architecture is not supported by the hf log-likelihood scorer")
        if len(diffs) > 1:
            log.warning("%s: packed scoring with partial projection does not reproduce plain forwards "
                        "(difference %.3g); using the %s path with %s projection", type(self.model).__name__,
                        diffs[0], self.describe()["scorer"], self.describe()["projection"])
        self.probe_max_abs_diff = float(f"{diffs[-1]:.3g}")
