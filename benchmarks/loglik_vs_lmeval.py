"""Our hf log-likelihood scorer against real lm-eval's HFLM: same model, same items, one run, any device.

Builds a random Llama-shaped model (a preset of `loglik_throughput.py`) in the chosen dtype on the chosen
device, and Base-Bench-shaped items as text (contexts of 40–300 tokens, four continuations of 4–40
tokens starting with a space; the tiny test model's byte-level BPE tokenizer), then scores them with

* ours — `PackedScorer` (context once per item, tree mask, projection only where needed, length-sorted
  token-budget batches), tokenized by the base-evals rule (the continuation is the tokens of
  context + choice after the context's), which is lm-eval's rule too;
* lm-eval — `lm_eval.models.huggingface.HFLM(pretrained=model, add_bos_token=False)` (0.4.13).

Prints one JSON line: items_per_s, lmeval_items_per_s, speedup_vs_lmeval, max_abs_diff (per-choice
summed log-prob), argmax_agreement (mean log-prob per token, our headline; identical predictions in
float32), argmax_agreement_sum (lm-eval's acc rule).

    python benchmarks/loglik_vs_lmeval.py                     # CPU: small preset, float32, 40 items
    python benchmarks/loglik_vs_lmeval.py --preset llama-1b --device cuda --dtype bfloat16 --items 2000 --batch-size 64
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from loglik_throughput import PRESETS  # noqa: E402  (this folder is on sys.path when run as a script)

WORDS = ("the a of to and in is was for on with as at by an be this that it from or which are were "
         "river mountain city market engine garden letter number cat dog house tree light water code "
         "function value return list table window paper color music story answer question people").split()


def make_items(tokenizer, n: int, seed: int) -> list[tuple[str, list[str]]]:
    rng = random.Random(seed)

    def text(lo: int, hi: int, lead: str) -> str:
        target = rng.randint(lo, hi)
        words: list[str] = []
        while len(tokenizer(lead + " ".join(words), add_special_tokens=False)["input_ids"]) < target:
            words.append(rng.choice(WORDS))
        return lead + " ".join(words)

    return [(text(40, 300, ""), [text(4, 40, " ") for _ in range(4)]) for _ in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), default="small")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", choices=("float32", "bfloat16", "float16"), default="float32")
    ap.add_argument("--items", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=8, help="contexts per step for us; requests per batch for "
                                                              "lm-eval")
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import numpy as np
    import torch
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from evaluators.models.backends.base import LoglikRequest
    from evaluators.models.backends.hf_loglik import PackedScorer
    from evaluators.models.tinymodel import cached_tiny

    if args.threads:
        torch.set_num_threads(args.threads)
    tokenizer = AutoTokenizer.from_pretrained(cached_tiny(REPO / ".cache" / "tiny-models")["path"])
    torch.manual_seed(args.seed)
    config = LlamaConfig(**PRESETS[args.preset], max_position_embeddings=2048, tie_word_embeddings=False)
    model = LlamaForCausalLM(config).to(device=args.device, dtype=getattr(torch, args.dtype)).eval()
    items = make_items(tokenizer, args.items, args.seed)

    requests, pairs = [], []
    for context, choices in items:
        ctx = tuple(tokenizer(context, add_special_tokens=False)["input_ids"])
        for choice in choices:
            full = tokenizer(context + choice, add_special_tokens=False)["input_ids"]
            assert tuple(full[:len(ctx)]) == ctx, "ambiguous token boundary"
            requests.append(LoglikRequest(ctx, tuple(full[len(ctx):])))
            pairs.append((context, choice))
    n_tokens = np.array([len(r.continuation) for r in requests])

    scorer = PackedScorer(model, max_contexts=args.batch_size)
    dict(scorer.score(requests[:8]))  # warm-up (and the one-time packing probe)
    sync(torch, args.device)
    t0 = time.perf_counter()
    ours = dict(scorer.score(requests))
    sync(torch, args.device)
    ours_s = time.perf_counter() - t0

    lm = HFLM(pretrained=model, tokenizer=tokenizer, batch_size=args.batch_size, add_bos_token=False,
              max_length=2048)
    instances = [Instance("loglikelihood", {}, pair, i) for i, pair in enumerate(pairs)]
    lm.loglikelihood(instances[:8], disable_tqdm=True)
    sync(torch, args.device)
    t0 = time.perf_counter()
    theirs = np.array([ll for ll, _ in lm.loglikelihood(instances, disable_tqdm=True)])
    sync(torch, args.device)
    lmeval_s = time.perf_counter() - t0

    a = np.array([ours[i].logprob_sum for i in range(len(requests))])
    print(json.dumps({
        "preset": args.preset, "device": str(next(model.parameters()).device), "dtype": args.dtype,
        "items": args.items, "batch_size": args.batch_size, "threads": torch.get_num_threads(),
        "items_per_s": round(args.items / ours_s, 2), "lmeval_items_per_s": round(args.items / lmeval_s, 2),
        "speedup_vs_lmeval": round(lmeval_s / ours_s, 2),
        "max_abs_diff": float(np.abs(a - theirs).max()),
        "argmax_agreement": float(((a / n_tokens).reshape(-1, 4).argmax(1)
                                   == (theirs / n_tokens).reshape(-1, 4).argmax(1)).mean()),
        "argmax_agreement_sum": float((a.reshape(-1, 4).argmax(1) == theirs.reshape(-1, 4).argmax(1)).mean()),
        "scorer": scorer.describe(),
    }))


def sync(torch, device: str) -> None:
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
