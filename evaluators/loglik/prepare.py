"""Items, tokenized for scoring: context and continuation token ids, or why an item cannot be scored.

Two tokenizations (a spec's `[scoring] tokenization`):

- `separate` (Base Bench 1.1's rule): context and each continuation tokenized apart, no special tokens.
- `joint` (the base-evals protocol): the tokens of context + choice after the context's own tokens. An
  item whose context tokens are not a prefix of some context + choice tokens has an ambiguous boundary
  and is rejected.

Either way an item longer than the model's context, or with a part that tokenizes to nothing, is
rejected (counted and listed, never scored as wrong). `--add-bos` prepends the BOS token (diagnostic).
A choice's text is the spec's target delimiter + the choice, after the item's few-shot text and its
context (per choice, for Winogrande-style items).

A rolling benchmark's document becomes the requests of its rolling windows (`models.rolling`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evaluators.core.errors import BadInput
from evaluators.loglik.items import Document, Item
from evaluators.models import rolling
from evaluators.models.backends.base import Backend, LoglikRequest

RULES = {
    "separate": "context and continuation tokenized apart, add_special_tokens=False; overlength rejected",
    "joint": "tokens of context + choice, continuation = the tokens after the context's; ambiguous boundaries "
             "and overlength rejected",
    "rolling": "each document as rolling windows over the model's context (lm-eval's loglikelihood_rolling), the "
               "first token conditioned on BOS",
}


@dataclass
class Prepared:
    """One item (or document), tokenized: a (context, continuation) pair per choice (per window for a
    document), or why it cannot be scored."""

    item: Any
    contexts: list[tuple[int, ...]]
    continuations: list[tuple[int, ...]]
    reject: str | None = None

    @property
    def id(self) -> str:
        return self.item.id

    @property
    def requests(self) -> list[LoglikRequest]:
        return [LoglikRequest(c, k) for c, k in zip(self.contexts, self.continuations, strict=True)]

    @property
    def tokens_in(self) -> int:
        """The longest context (a document: every token it predicts)."""
        return max((len(c) for c in self.contexts), default=0)


def _bos_prefix(backend: Backend, add_bos: bool) -> tuple[int, ...]:
    if not add_bos:
        return ()
    if backend.bos_token_id is None:
        raise BadInput("--add-bos: this model's tokenizer has no BOS token")
    return (backend.bos_token_id,)


def _overlength(backend: Backend, contexts: list[tuple[int, ...]], conts: list[tuple[int, ...]]) -> str | None:
    limit = backend.max_length
    if limit is None or not conts:
        return None
    longest = max(len(c) + len(k) for c, k in zip(contexts, conts, strict=True))
    if longest > limit:
        return f"longer than the model's context ({longest} > {limit} tokens)"
    return None


def _separate(backend: Backend, item: Item, bos: tuple[int, ...], texts: list[tuple[str, str]]) -> Prepared:
    contexts = [bos + tuple(backend.tokenize(c)) for c, _ in texts]
    conts = [tuple(backend.tokenize(k)) for _, k in texts]
    reject = None
    if any(len(c) == 0 for c in contexts):
        reject = "the context tokenizes to nothing"
    elif any(not c for c in conts):
        reject = f"continuation {next(k for k, c in enumerate(conts) if not c)} tokenizes to nothing"
    else:
        reject = _overlength(backend, contexts, conts)
    return Prepared(item, contexts, conts, reject)


def _joint(backend: Backend, item: Item, bos: tuple[int, ...], texts: list[tuple[str, str]]) -> Prepared:
    contexts: list[tuple[int, ...]] = []
    conts: list[tuple[int, ...]] = []
    reject = None
    for k, (context, choice) in enumerate(texts):
        ctx = tuple(backend.tokenize(context))
        full = tuple(backend.tokenize(context + choice))
        if full[:len(ctx)] != ctx:
            reject = f"ambiguous token boundary: the context's tokens are not a prefix of context + choice {k}"
            break
        if len(full) == len(ctx):
            reject = f"choice {k} adds no tokens"
            break
        if not bos + ctx:
            reject = "the context tokenizes to nothing"
            break
        contexts.append(bos + ctx)
        conts.append(full[len(ctx):])
    if reject is None:
        reject = _overlength(backend, contexts, conts)
    return Prepared(item, contexts if reject is None else [], conts if reject is None else [], reject)


def prepare(backend: Backend, items: list[Item], tokenization: str, add_bos: bool, *, delimiter: str = "",
            prefix: Callable[[str], str] = lambda _id: "") -> list[Prepared]:
    """Every item tokenized by the benchmark's rule (`separate` or `joint`): choice k continues
    `prefix(item id)` + the item's k-th context with `delimiter` + the choice (lm-eval's target delimiter)."""
    bos = _bos_prefix(backend, add_bos)
    one = _separate if tokenization == "separate" else _joint
    return [one(backend, item, bos, [(prefix(item.id) + item.context_of(k), delimiter + choice)
                                     for k, choice in enumerate(item.choices)]) for item in items]


def prepare_documents(backend: Backend, documents: list[Document]) -> list[Prepared]:
    """Every document as lm-eval's rolling windows over the model's context (`models.rolling`), the first token
    conditioned on the BOS token (lm-eval's prefix token; it falls back to EOS, which our backends do not
    expose, so a model without BOS is refused)."""
    prefix = backend.bos_token_id
    if prefix is None:
        raise BadInput("a rolling benchmark conditions the first token on the BOS token; this model's tokenizer "
                       "has none")
    if backend.max_length is None:
        raise BadInput("a rolling benchmark needs the model's context length (its windows' size); this backend "
                       "does not say it")
    out = []
    for doc in documents:
        tokens = backend.tokenize(doc.text)
        requests = rolling.windows(tokens, prefix, backend.max_length)
        out.append(Prepared(doc, [r.context for r in requests], [r.continuation for r in requests],
                            None if requests else "the text tokenizes to nothing"))
    return out
