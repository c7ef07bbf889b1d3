"""Sampling generation with a local transformers model, one seeded draw per request.

Why one request at a time: every request carries its own seed, and a seed governs the whole
random stream of a `generate` call, so batching would tie draws together. Chat requests use the
tokenizer's chat template; `<think>` blocks are split off into `reasoning` by the server backend's
rule, so `text` is the final answer content as it is for a server. torch is imported inside functions.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from evaluators.core.text import split_reasoning
from evaluators.models.backends.base import GenerationRequest, GenerationResult


def _prompt_ids(tokenizer: Any, request: GenerationRequest) -> list[int]:
    if request.messages is not None:
        rendered = tokenizer.apply_chat_template(list(request.messages), add_generation_prompt=True, tokenize=False)
        return tokenizer(rendered, add_special_tokens=False)["input_ids"]
    return tokenizer(request.prompt or "", add_special_tokens=False)["input_ids"]


def _cut_at_stop(text: str, stops: Sequence[str]) -> tuple[str, bool]:
    cut = min((text.find(s) for s in stops if s and s in text), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)


def sample(model: Any, tokenizer: Any, requests: Sequence[GenerationRequest], *,
           device: str = "cpu", max_length: int | None = None) -> Iterator[tuple[int, GenerationResult]]:
    """Yield `(index, result)` in request order; a failure of one request is its `error`, not an exception."""
    import torch

    eos = tokenizer.eos_token_id
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos
    for index, request in enumerate(requests):
        start = time.monotonic()
        try:
            ids = _prompt_ids(tokenizer, request)
            budget = request.max_tokens
            if max_length is not None:
                budget = min(budget, max_length - len(ids))
                if budget < 1:
                    raise ValueError(f"prompt of {len(ids)} tokens leaves no room in a {max_length}-token context")
            if request.seed is not None:
                torch.manual_seed(request.seed)
            input_ids = torch.tensor([ids], device=device)
            sampling = request.temperature > 0
            kwargs: dict[str, Any] = {"do_sample": sampling, "max_new_tokens": budget, "pad_token_id": pad,
                                      "attention_mask": torch.ones_like(input_ids)}
            if sampling:
                kwargs.update(temperature=request.temperature, top_p=request.top_p, top_k=0)
            with torch.inference_mode():
                output = model.generate(input_ids, **kwargs)
            new = output[0, len(ids):].tolist()
            hit_eos = eos is not None and eos in new
            if hit_eos:
                new = new[:new.index(eos)]
            raw = tokenizer.decode(new, skip_special_tokens=True)
            raw, stopped = _cut_at_stop(raw, request.stop)
            text, reasoning = split_reasoning(raw)
            finish = "stop" if hit_eos or stopped else "length"
            yield index, GenerationResult(
                text=text, reasoning=reasoning or None, finish_reason=finish, tokens_in=len(ids), tokens_out=len(new),
                raw={"content": raw}, timings={"wall_s": time.monotonic() - start})
        except (RuntimeError, ValueError) as exc:
            yield index, GenerationResult(text=None, error=f"{type(exc).__name__}: {exc}",
                                          timings={"wall_s": time.monotonic() - start})
