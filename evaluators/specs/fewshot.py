"""Which solved examples precede each item (a spec's `[fewshot]`), drawn as lm-eval draws them.

lm-eval seeds one `random.Random` per task (`--fewshot_random_seed`, 1234 by default) and, item after
item in order, samples `count` examples from the pool, or `count + 1` when the pool holds the item
itself, which is then dropped: the same seed, pool and items give the same examples here and there.
`first` takes the pool's first examples (lm-eval's `first_n`), the item itself skipped. The evaluators
render the examples (text before a loglik context, or prior chat turns); this module only picks them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeVar

from evaluators.specs.spec import BenchmarkSpec

T = TypeVar("T")


def draw(spec: BenchmarkSpec, pool: Sequence[T], targets: Sequence[T], key: Callable[[T], str]) -> dict[str, list[T]]:
    """`{key(target): its examples}` for every target, in the targets' order (the draws depend on it, as in
    lm-eval); BadInput naming `[fewshot] count` when the pool is too small."""
    rule = spec.fewshot
    keys = [key(x) for x in pool]
    if rule.count > len(pool) - (1 if set(keys) & {key(t) for t in targets} else 0):
        raise spec.error(("fewshot", "count"), f"{rule.count} examples per item, but the pool holds {len(pool)} "
                                              "records (the item itself is never its own example)")
    rnd = random.Random(rule.seed)
    out: dict[str, list[T]] = {}
    for target in targets:
        own = key(target)
        if rule.sampler == "first":
            out[own] = [x for x, k in zip(pool, keys, strict=True) if k != own][:rule.count]
        elif own not in keys:
            out[own] = rnd.sample(list(pool), rule.count)
        else:
            drawn = [i for i in rnd.sample(range(len(pool)), rule.count + 1) if keys[i] != own][:rule.count]
            out[own] = [pool[i] for i in drawn]
    return out

