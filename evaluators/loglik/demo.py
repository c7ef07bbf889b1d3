"""Demo step: the tiny model on the bundled Base Bench-format sample and the base-evals sample splits."""

from __future__ import annotations

from pathlib import Path

from evaluators.demo import DemoContext

TITLE = "loglik: Base Bench-format sample and base-evals sample splits on the tiny model"
SAMPLES = Path(__file__).resolve().parents[2] / "tasks" / "samples"


def run(ctx: DemoContext) -> None:
    from evaluators import api

    common = {"model": str(ctx.tiny_model), "name": ctx.model_name, "results": ctx.store.root, "device": "cpu",
              "dtype": "float32", "threads": 1}  # one thread: a tiny model only loses to thread contention
    bench = api.run_loglik(bench="base-bench", data=str(SAMPLES / "base-bench"), **common)
    rep = bench["runs"][0]["report"]
    ctx.notes.append(f"loglik base-bench (sample, non-official): Overall Elo {rep['overall_elo']:.0f}, "
                     f"accuracy {rep['accuracy']:.2f} — {bench['runs'][0]['dir']}")
    evals = api.run_loglik(bench="base-evals", data=str(SAMPLES / "base-evals"), **common)
    norms = ", ".join(f"{name} {s['acc_norm']:.2f}" for name, s in evals["report"]["splits"].items())
    ctx.notes.append(f"loglik base-evals (sample splits) acc_norm: {norms}")
