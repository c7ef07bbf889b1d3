"""Items, tokenized for scoring: context and continuation token ids, or why an item cannot be scored.

Two tokenizations (a spec's `[scoring] tokenization`):

- `separate` (Base Bench 1.1's rule): context and each continuation tokenized apart, no special tokens.
- `joint` (the base-evals protocol): the tokens of context + choice after the context's own tokens. An
  item whose context tokens are not a prefix of some context + choice tokens has an ambiguous boundary
  and is rejected.

Either way an item longer than the model's context, or with a part that tokenizes to nothing, is
rejected (counted and listed, never scored as wrong). `--add-bos` prepends the BOS token (diagnostic).
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluators.core.backends.base import Backend
from evaluators.core.errors import BadInput
from evaluators.loglik.spec import Item

RULES = {
    "separate": "context and continuation tokenized apart, add_special_tokens=False; overlength rejected",
    "joint": "tokens of context + choice, continuation = the tokens after the context's; ambiguous boundaries "
             "and overlength rejected",
}


@dataclass
class Prepared:
    """One item, tokenized: what the scorer needs, or why it cannot be scored."""

    item: Item
    context: tuple[int, ...]
    continuations: list[tuple[int, ...]]
    reject: str | None = None

    @property
    def id(self) -> str:
        return self.item.id


def _bos_prefix(backend: Backend, add_bos: bool) -> tuple[int, ...]:
    if not add_bos:
        return ()
    if backend.bos_token_id is None:
        raise BadInput("--add-bos: this model's tokenizer has no BOS token")
    return (backend.bos_token_id,)


def _overlength(backend: Backend, context: tuple[int, ...], conts: list[tuple[int, ...]]) -> str | None:
    limit = backend.max_length
    if limit is None or not conts:
        return None
    longest = len(context) + max(len(c) for c in conts)
    if longest > limit:
        return f"longer than the model's context ({longest} > {limit} tokens)"
    return None


def _separate(backend: Backend, item: Item, bos: tuple[int, ...]) -> Prepared:
    context = bos + tuple(backend.tokenize(item.context))
    conts = [tuple(backend.tokenize(c)) for c in item.choices]
    reject = None
    if len(context) == 0:
        reject = "the context tokenizes to nothing"
    elif any(not c for c in conts):
        reject = f"continuation {next(k for k, c in enumerate(conts) if not c)} tokenizes to nothing"
    else:
        reject = _overlength(backend, context, conts)
    return Prepared(item, context, conts, reject)


def _joint(backend: Backend, item: Item, bos: tuple[int, ...]) -> Prepared:
    ctx = tuple(backend.tokenize(item.context))
    conts: list[tuple[int, ...]] = []
    reject = None
    for k, choice in enumerate(item.choices):
        full = tuple(backend.tokenize(item.context + choice))
        if full[:len(ctx)] != ctx:
            reject = f"ambiguous token boundary: the context's tokens are not a prefix of context + choice {k}"
            break
        if len(full) == len(ctx):
            reject = f"choice {k} adds no tokens"
            break
        conts.append(full[len(ctx):])
    context = bos + ctx
    if reject is None and not context:
        reject = "the context tokenizes to nothing"
    if reject is None:
        reject = _overlength(backend, context, conts)
    return Prepared(item, context, conts if reject is None else [], reject)


def prepare(backend: Backend, items: list[Item], tokenization: str, add_bos: bool) -> list[Prepared]:
    """Every item tokenized by the benchmark's rule (`separate` or `joint`)."""
    bos = _bos_prefix(backend, add_bos)
    one = _separate if tokenization == "separate" else _joint
    return [one(backend, item, bos) for item in items]
