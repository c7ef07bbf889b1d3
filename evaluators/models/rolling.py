"""Rolling log-likelihood of whole documents (perplexity), windowed and aggregated as lm-eval does it.

A document longer than the model's context is cut into windows: the first predicts its first
`max_length` tokens after a prefix token (BOS, else EOS), each next one predicts the following
`max_length` tokens with the tokens just before them as context, and no token is predicted twice
(lm-eval's `get_rolling_token_windows` with `context_len=1`, then `make_disjoint_window`). Each window
is a `LoglikRequest`, so every backend that scores continuations scores documents; a document's
log-likelihood is the sum over its windows.

The metrics are lm-eval's: sums over all documents first, then one ratio (never a mean of
per-document ratios). Words are the pieces `re.split(r"\\s+", text)` gives, bytes the UTF-8 length.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from evaluators.core.contract import Metric
from evaluators.models.backends.base import LoglikRequest

METRICS = (Metric.WORD_PERPLEXITY, Metric.BYTE_PERPLEXITY, Metric.BITS_PER_BYTE)


def windows(tokens: Sequence[int], prefix_token: int, max_length: int) -> list[LoglikRequest]:
    """The requests that together predict every token of `tokens` once, none longer than `max_length` inputs."""
    if max_length < 1:
        raise ValueError(f"max_length must be at least 1, not {max_length}")
    tokens = list(tokens)
    out: list[LoglikRequest] = []
    if not tokens:
        return out
    first = min(max_length, len(tokens))
    out.append(LoglikRequest((prefix_token,), tuple(tokens[:first])))
    predicted = first
    while predicted < len(tokens):
        size = min(len(tokens) - predicted, max_length)
        end = predicted + size
        context = tokens[max(end - max_length - 1, 0):end - 1]
        out.append(LoglikRequest(tuple(context[:len(context) - (size - 1)]), tuple(tokens[end - size:end])))
        predicted = end
    return out


def count_words(text: str) -> int:
    return len(re.split(r"\s+", text))


def count_bytes(text: str) -> int:
    return len(text.encode("utf-8"))


@dataclass(frozen=True)
class Totals:
    """Summed over documents: log-likelihood (nats), words, bytes, tokens."""

    loglik: float
    words: int
    bytes: int
    tokens: int
    documents: int

    @classmethod
    def of(cls, parts: Sequence[tuple[float, str, int]]) -> Totals:
        """From (log-likelihood, text, tokens) per document."""
        return cls(sum(p[0] for p in parts), sum(count_words(p[1]) for p in parts),
                   sum(count_bytes(p[1]) for p in parts), sum(p[2] for p in parts), len(parts))

    def metrics(self) -> dict[str, float]:
        """word_perplexity, byte_perplexity and bits_per_byte, as lm-eval aggregates them."""
        return {Metric.WORD_PERPLEXITY: math.exp(-self.loglik / self.words),
                Metric.BYTE_PERPLEXITY: math.exp(-self.loglik / self.bytes),
                Metric.BITS_PER_BYTE: -self.loglik / self.bytes / math.log(2)}
