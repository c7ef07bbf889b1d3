"""GGUF log-likelihood throughput: llama.cpp in-process vs a llama.cpp server driven by teacher forcing.

Both score the same Base-Bench-shaped items (contexts of 40–300 tokens, four continuations of 4–40
tokens, random token ids) on the same GGUF with the same thread count:

* in-process — `GGUFBackend`: each context decoded once for its four continuations, many items per
  llama_decode, logits only where needed;
* server — `ServerLoglikBackend` against llama.cpp's server (xllamacpp, exact settings): one
  `/completion` request per continuation token, prompt cache pinned to a slot per worker.

and, when the same weights are at hand as a transformers folder (the tiny model's, or --hf), the hf
backend (packed float32 scorer) too.

Prints one JSON line: items_per_s (in-process), server_items_per_s, speedup_vs_server,
argmax_agreement (mean-log-prob choice), max_abs_diff_mean_logprob, the server's requests and
evaluated prompt tokens per item, and hf_items_per_s / hf_max_abs_diff_mean_logprob.

    python benchmarks/gguf_loglik.py                         # the tiny test model, 40 items
    python benchmarks/gguf_loglik.py --gguf model.gguf --items 20 --threads 8
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluators.core.backends.base import LoglikRequest  # noqa: E402


def make_requests(n: int, vocab: int, seed: int, max_len: int) -> list[LoglikRequest]:
    rng = random.Random(seed)
    reqs = []
    for _ in range(n):
        ctx = tuple(rng.randrange(vocab) for _ in range(rng.randint(40, min(300, max_len - 40))))
        reqs += [LoglikRequest(ctx, tuple(rng.randrange(vocab) for _ in range(rng.randint(4, 40)))) for _ in range(4)]
    return reqs


def mean_logprobs(results: dict, n: int) -> list[float]:
    return [results[i].logprob_sum / results[i].n_tokens for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gguf", default=None, help="GGUF file (default: the tiny test model, built under .cache/)")
    ap.add_argument("--hf", default=None, help="transformers folder with the same weights (default: the tiny "
                                                  "model's when --gguf is not given; none otherwise)")
    ap.add_argument("--items", type=int, default=40, help="items of four continuations (default 40)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="llama.cpp threads for both")
    ap.add_argument("--parallel", type=int, default=2, help="server slots, one teacher-forcing worker each")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from evaluators.core.backends.gguf import GGUFBackend
    from evaluators.core.backends.server_loglik import ServerLoglikBackend
    from evaluators.core.llamacpp import LlamaServer

    if args.gguf is None:
        from evaluators.core.tinymodel import cached_tiny

        tiny = cached_tiny(Path(__file__).resolve().parent.parent / ".cache" / "test-models")
        args.gguf, args.hf = tiny["gguf"], args.hf or tiny["path"]
    with GGUFBackend(args.gguf, threads=args.threads) as local:
        reqs = make_requests(args.items, local.model.n_vocab, args.seed, local.max_length)
        list(local.loglikelihood(reqs[:4]))  # warm-up
        t0 = time.perf_counter()
        ours = dict(local.loglikelihood(reqs))
        local_s = time.perf_counter() - t0
        identity = local.identity

    n_ctx = args.parallel * max(len(r.context) + len(r.continuation) for r in reqs) + 256
    with LlamaServer(args.gguf, n_ctx=n_ctx, parallel=args.parallel, exact=True, threads=args.threads) as srv:
        server = ServerLoglikBackend.connect(srv.base_url)
        t0 = time.perf_counter()
        theirs = dict(server.loglikelihood(reqs))
        server_s = time.perf_counter() - t0
        stats = server.stats.as_dict()

    hf: dict = {}
    if args.hf:
        from evaluators.core.backends.hf import HFBackend

        with HFBackend(args.hf, device="cpu", dtype="float32", threads=args.threads) as model:
            list(model.loglikelihood(reqs[:4]))
            t0 = time.perf_counter()
            hf_results = dict(model.loglikelihood(reqs))
            hf_s = time.perf_counter() - t0
        c = mean_logprobs(hf_results, len(reqs))
        hf = {"hf_items_per_s": round(args.items / hf_s, 2), "speedup_vs_hf": round(hf_s / local_s, 2),
              "hf_max_abs_diff_mean_logprob": max(abs(x - y) for x, y in zip(mean_logprobs(ours, len(reqs)), c,
                                                                              strict=True))}

    a, b = mean_logprobs(ours, len(reqs)), mean_logprobs(theirs, len(reqs))
    picks = [(max(range(4), key=lambda k: a[i + k]), max(range(4), key=lambda k: b[i + k]))
             for i in range(0, len(reqs), 4)]
    print(json.dumps({
        "model": Path(args.gguf).name, "quantization": identity.quantization, "n_params": identity.n_params,
        "n_vocab": identity.extra["n_vocab"], "items": args.items, "threads": args.threads,
        "server_slots": args.parallel, "method": server.method,
        "items_per_s": round(args.items / local_s, 2),
        "server_items_per_s": round(args.items / server_s, 3),
        "speedup_vs_server": round(server_s / local_s, 1),
        "argmax_agreement": sum(x == y for x, y in picks) / len(picks),
        "max_abs_diff_mean_logprob": max(abs(x - y) for x, y in zip(a, b, strict=True)),
        "server_requests_per_item": round(stats["requests"] / args.items, 1),
        "server_prompt_tokens_per_item": round(stats["prompt_tokens_evaluated"] / args.items, 1),
        "continuation_tokens_per_item": round(sum(len(r.continuation) for r in reqs) / args.items, 1),
        **hf,
    }))


if __name__ == "__main__":
    main()
