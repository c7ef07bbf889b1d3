"""Throughput of the packed log-likelihood scorer against the seed's naive runner, in one process.

Builds a random Llama-shaped model and Base-Bench-shaped items locally (contexts of 40–300 tokens,
four continuations of 4–40 tokens), scores them with

* the naive runner — the seed's: 8 records × 4 continuations per step, each context + continuation
  its own right-padded row, full logits and a float32 log-softmax at every position; and
* ours — `PackedScorer` (context once per item, tree mask, projection only where needed,
  length-sorted token-budget batches),

and prints one JSON line: items_per_s, naive_items_per_s, speedup_vs_naive, argmax_agreement (the
mean-log-prob choice), max_abs_diff_mean_logprob.

    python benchmarks/loglik_throughput.py                      # CPU: hidden 512, 8 layers, vocab 32000, float32, 1 thread
    python benchmarks/loglik_throughput.py --preset llama-1b --device cuda --dtype bfloat16 --items 2000 --batch-size 64
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PRESETS = {
    "small": {"hidden_size": 512, "intermediate_size": 1408, "num_hidden_layers": 8, "num_attention_heads": 8,
              "num_key_value_heads": 8, "vocab_size": 32000},
    "llama-1b": {"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
                 "num_key_value_heads": 8, "vocab_size": 128256, "head_dim": 64},
}


def make_items(n: int, vocab: int, seed: int) -> list[list[tuple[tuple[int, ...], tuple[int, ...]]]]:
    rng = random.Random(seed)
    items = []
    for _ in range(n):
        ctx = tuple(rng.randrange(vocab) for _ in range(rng.randint(40, 300)))
        items.append([(ctx, tuple(rng.randrange(vocab) for _ in range(rng.randint(4, 40)))) for _ in range(4)])
    return items


def naive_scores(model, items, batch_records: int, device) -> list[list[float]]:
    """The seed's runner: one padded row per (context, continuation), full logits everywhere."""
    import torch

    means: list[list[float]] = []
    with torch.inference_mode():
        for start in range(0, len(items), batch_records):
            chunk = items[start:start + batch_records]
            rows = [(ctx, cont) for item in chunk for ctx, cont in item]
            width = max(len(c) + len(k) for c, k in rows)
            ids = torch.zeros((len(rows), width), dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for r, (ctx, cont) in enumerate(rows):
                seq = list(ctx) + list(cont)
                ids[r, :len(seq)] = torch.tensor(seq)
                mask[r, :len(seq)] = 1
            logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            flat = []
            for r, (ctx, cont) in enumerate(rows):
                pos = torch.arange(len(ctx) - 1, len(ctx) + len(cont) - 1, device=device)
                toks = torch.tensor(cont, device=device)
                flat.append(logprobs[r, pos, toks].sum() / len(cont))
            values = torch.stack(flat).cpu().tolist()
            means.extend(values[i:i + 4] for i in range(0, len(values), 4))
    return means


def packed_scores(scorer, items) -> list[list[float]]:
    from evaluators.models.backends.base import LoglikRequest

    requests = [LoglikRequest(ctx, cont) for item in items for ctx, cont in item]
    out = dict(scorer.score(requests))
    values = [out[i].logprob_sum / out[i].n_tokens for i in range(len(requests))]
    return [values[i:i + 4] for i in range(0, len(values), 4)]


def first_argmax(values: list[float]) -> int:
    return max(range(len(values)), key=lambda k: (values[k], -k))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="small")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", choices=("float32", "bfloat16", "float16"), default="float32")
    parser.add_argument("--items", type=int, default=32, help="items to score (default 32)")
    parser.add_argument("--repeats", type=int, default=2, help="alternating timed rounds; best time counts (default 2)")
    parser.add_argument("--batch-size", type=int, default=8, help="our max records per step (default 8, as naive)")
    parser.add_argument("--max-batch-tokens", type=int, default=None, help="our token budget (default auto)")
    parser.add_argument("--naive-batch-size", type=int, default=8, help="naive records per step (default 8)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch CPU threads (default 1: steadier on a shared machine; 0 = torch's default)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import torch
    import transformers

    from evaluators.models.backends.hf_loglik import PackedScorer

    torch.manual_seed(args.seed)
    dtype = getattr(torch, args.dtype)
    device = torch.device(args.device)
    if args.threads and device.type == "cpu":
        torch.set_num_threads(args.threads)
    config = transformers.LlamaConfig(max_position_embeddings=1024, tie_word_embeddings=False,
                                      **PRESETS[args.preset])
    with torch.device(device):
        model = transformers.LlamaForCausalLM(config).to(dtype).eval()
    with torch.no_grad():
        model.lm_head.weight.mul_(8.0)  # a peaked output distribution, like a trained model's
    items = make_items(args.items, config.vocab_size, args.seed)
    warm = make_items(4, config.vocab_size, args.seed + 1)
    scorer = PackedScorer(model, max_contexts=args.batch_size, token_budget=args.max_batch_tokens)

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize()

    packed_scores(scorer, warm)  # probe + warm-up, not timed
    naive_scores(model, warm, args.naive_batch_size, device)
    # Alternate the two runners and keep each one's best time: a shared machine's load then
    # weighs on both alike. CPU time (this process only) is reported too: it ignores other load.
    wall = {"ours": [], "naive": []}
    cpu = {"ours": [], "naive": []}
    for _ in range(args.repeats):
        for name in ("ours", "naive"):
            sync()
            t0, c0 = time.perf_counter(), time.process_time()
            if name == "ours":
                ours = packed_scores(scorer, items)
            else:
                naive = naive_scores(model, items, args.naive_batch_size, device)
            sync()
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    t_ours, t_naive = min(wall["ours"]), min(wall["naive"])

    agree = sum(first_argmax(a) == first_argmax(b) for a, b in zip(ours, naive, strict=True)) / len(items)
    diff = max(abs(x - y) for a, b in zip(ours, naive, strict=True) for x, y in zip(a, b, strict=True))
    print(json.dumps({
        "benchmark": "loglik_throughput", "preset": args.preset, "device": str(device), "dtype": args.dtype,
        "model": {k: v for k, v in PRESETS[args.preset].items()}, "items": len(items),
        "batch_size": args.batch_size, "naive_batch_size": args.naive_batch_size,
        "threads": torch.get_num_threads(),
        "items_per_s": round(len(items) / t_ours, 3), "naive_items_per_s": round(len(items) / t_naive, 3),
        "speedup_vs_naive": round(t_naive / t_ours, 3), "argmax_agreement": agree,
        "speedup_vs_naive_cpu_time": round(min(cpu["naive"]) / min(cpu["ours"]), 3),
        "wall_s": {k: [round(x, 2) for x in v] for k, v in wall.items()}, "repeats": args.repeats,
        "max_abs_diff_mean_logprob": float(f"{diff:.3g}"), "scorer": scorer.describe(),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
