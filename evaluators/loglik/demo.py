"""Demo step: the tiny model on the bundled Base Bench-format sample and the base-evals sample splits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

TITLE = "loglik: Base Bench-format sample and base-evals sample splits on the tiny model"
SAMPLES = Path(__file__).resolve().parents[2] / "tasks" / "samples"


def run(ctx: Any) -> None:
    """`ctx`: the demo's `evaluators.demo.DemoContext`."""
    from evaluators.loglik.options import LoglikOptions
    from evaluators.loglik.run import run_loglik

    common = {"model": str(ctx.tiny_model), "name": ctx.model_name, "results": str(ctx.store.root), "device": "cpu",
              "dtype": "float32", "threads": 1}  # one thread: a tiny model only loses to thread contention
    bench = run_loglik(LoglikOptions(bench="base-bench", data=str(SAMPLES / "base-bench"), **common))
    rep = bench["runs"][0]["report"]
    ctx.notes.append(f"loglik base-bench (sample, non-official): Overall Elo {rep['overall_elo']:.0f}, "
                     f"accuracy {rep['accuracy']:.2f} — {bench['runs'][0]['dir']}")
    evals = run_loglik(LoglikOptions(bench="base-evals", data=str(SAMPLES / "base-evals"), **common))
    norms = ", ".join(f"{name} {s['acc_norm']:.2f}" for name, s in evals["report"]["splits"].items())
    ctx.notes.append(f"loglik base-evals (sample splits) acc_norm: {norms}")
