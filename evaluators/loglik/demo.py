"""Demo step: the bundled Base Bench-format sample and base-evals sample splits, scored with transformers.

Both the main model (SmolLM2-135M-Instruct's float32 copy: real log-likelihoods) and, when it is another
model, the tiny one, so the site has a diff page of two models on the same items.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

TITLE = "loglik: Base Bench-format sample and base-evals sample splits (transformers)"
SAMPLES = Path(__file__).resolve().parents[2] / "tasks" / "samples"


def run(ctx: Any) -> None:
    """`ctx`: the demo's `evaluators.demo.DemoContext`."""
    from evaluators.loglik.options import LoglikOptions
    from evaluators.loglik.run import run_loglik

    for model in ctx.loglik_models():
        common = {"model": str(model.hf), "name": model.name, "results": str(ctx.store.root), "device": "cpu",
                  "dtype": "float32", "threads": model.threads}
        bench = run_loglik(LoglikOptions(bench="base-bench", data=str(SAMPLES / "base-bench"), **common))
        rep = bench["runs"][0]["report"]
        ctx.notes.append(f"loglik {model.name} base-bench (sample, non-official): Overall Elo "
                         f"{rep['overall_elo']:.0f}, accuracy {rep['accuracy']:.2f} — {bench['runs'][0]['dir']}")
        evals = run_loglik(LoglikOptions(bench="base-evals", data=str(SAMPLES / "base-evals"), **common))
        norms = ", ".join(f"{name} {s['acc_norm']:.2f}" for name, s in evals["report"]["splits"].items())
        ctx.notes.append(f"loglik {model.name} base-evals (sample splits, non-official) acc_norm: {norms}")
