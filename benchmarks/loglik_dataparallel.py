"""`loglik run` in one process against the same command under torchrun with N processes.

Builds a random Llama-shaped model (the tiny test model's tokenizer, `--hidden`/`--layers` wide; cached
under .cache/bench-models) and Base-Bench-shaped items (contexts of 40-300 tokens, four continuations),
then runs the real command twice in this one benchmark run:

* one process — `bananabench loglik run` (on CPU with all cores as torch threads), and
* N processes — `torchrun --nproc-per-node N bananabench loglik run` (on CPU each rank gets cores/N
  threads; on GPUs one rank per GPU, `cuda:LOCAL_RANK`).

Prints one JSON line: items_per_s_1 and items_per_s_N (scoring only, from report.json's timing),
ratio (N over 1), wall_s_1 and wall_s_N (the whole command: start-up, model load, data, scoring),
and max_abs_diff_mean_logprob between the two reports (0.0: the same numbers). With `--device cuda`
and a single GPU there is nothing to compare: it reports the one-process figure only.

    python benchmarks/loglik_dataparallel.py                       # CPU, 2 processes, 160 items
    python benchmarks/loglik_dataparallel.py --device cuda --items 2000 --batch-size 64 --hidden 2048 --layers 16
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

CATEGORIES = [json.loads(line) for line in
              (REPO / "tasks" / "samples" / "base-bench" / "data" / "test.jsonl").read_text().splitlines()[::3]]
WORDS = ("the of and to in is was for on that with as by at from this it be are or an not which have had one "
         "river stone garden number small light house market city paper letter winter summer morning").split()


def build_model(hidden: int, layers: int) -> Path:
    """A random Llama with the tiny model's tokenizer (built once per shape)."""
    from evaluators.models.tinymodel import cached_tiny

    tiny = Path(cached_tiny(REPO / ".cache" / "tiny-models", gguf=False)["path"])
    out = REPO / ".cache" / "bench-models" / f"llama-h{hidden}-l{layers}"
    if (out / "config.json").is_file():
        return out
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    base = json.loads((tiny / "config.json").read_text())
    heads = max(1, hidden // 64)
    config = LlamaConfig(vocab_size=base["vocab_size"], hidden_size=hidden, intermediate_size=hidden * 11 // 4,
                         num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=heads,
                         max_position_embeddings=2048, bos_token_id=base.get("bos_token_id"),
                         eos_token_id=base.get("eos_token_id"))
    torch.manual_seed(0)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    LlamaForCausalLM(config).save_pretrained(tmp)
    for name in os.listdir(tiny):
        if name.startswith(("tokenizer", "special_tokens", "chat_template")):
            shutil.copy(tiny / name, tmp / name)
    tmp.rename(out)
    return out


def write_items(folder: Path, n: int, seed: int) -> Path:
    """Valid Base Bench 1.1 records (the sample's categories, fresh ids and texts)."""
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        record = dict(CATEGORIES[i % len(CATEGORIES)])
        record["id"] = f"{record['category']}-bench-{i:05d}"
        record["context"] = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 300)))
        record["continuations"] = [" " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 40)))
                                   for _ in range(4)]
        record["label"] = i % 4
        lines.append(json.dumps(record))
    path = folder / "data" / "test.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")
    return folder


def run(cmd: list[str], out: Path, env: dict[str, str]) -> tuple[dict, float]:
    started = time.monotonic()
    proc = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd[:6])} ... failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads((out / "report.json").read_text()), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=160)
    parser.add_argument("--processes", type=int, default=None, help="default: 2 on CPU, every GPU with --device cuda")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    model = build_model(args.hidden, args.layers)
    if args.device == "cuda":
        import torch

        gpus = torch.cuda.device_count()
        processes = args.processes or gpus
        if processes > gpus:
            sys.exit(f"{processes} processes need as many GPUs; torch sees {gpus}")
    else:
        processes = args.processes or 2
    env = {**os.environ, "PYTHONPATH": str(REPO), "BANANABENCH_FLUSH_S": "1"}
    env.pop("OMP_NUM_THREADS", None)
    with tempfile.TemporaryDirectory(prefix="bb-dp-bench-") as tmp:
        root = Path(tmp)
        data = write_items(root / "items", args.items, args.seed)
        common = ["loglik", "run", "--bench", "base-bench", "--model", str(model), "--local-data", str(data),
                  "--device", args.device, "--batch-size", str(args.batch_size), "--name", "bench"]
        one, wall_1 = run([sys.executable, "-m", "evaluators", *common, "--results", str(root / "r1"),
                           "--out-dir", str(root / "one")], root / "one", env)
        result = {"device": args.device, "items": args.items, "model": model.name, "batch_size": args.batch_size,
                  "cores": len(os.sched_getaffinity(0)), "items_per_s_1": one["timing"]["items_per_s"],
                  "wall_s_1": round(wall_1, 1)}
        if processes > 1:
            many, wall_n = run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(processes),
                                "-m", "evaluators", *common, "--results", str(root / "rn"),
                                "--out-dir", str(root / "many")], root / "many", env)
            diff = max(abs(a["mean_logprob"] - b["mean_logprob"]) for x, y in zip(one["items"], many["items"],
                                                                                   strict=True)
                       for a, b in zip(x["choices"], y["choices"], strict=True))
            result.update({"processes": processes, f"items_per_s_{processes}": many["timing"]["items_per_s"],
                           "ratio": round(many["timing"]["items_per_s"] / one["timing"]["items_per_s"], 2),
                           f"wall_s_{processes}": round(wall_n, 1), "max_abs_diff_mean_logprob": diff,
                           "same_predictions": [i["prediction"] for i in one["items"]]
                           == [i["prediction"] for i in many["items"]]})
        print(json.dumps(result))


if __name__ == "__main__":
    main()
