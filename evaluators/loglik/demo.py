"""Demo step: every built-in loglik benchmark on its bundled sample data, scored with transformers.

Both the main model (SmolLM2-135M-Instruct's float32 copy: real log-likelihoods) and, when it is another
model, the tiny one, so the site has a diff page of two models on the same items. A benchmark's sample
is `tasks/samples/<id>/` (its data file, or the manifest and split files).
"""

from __future__ import annotations

from typing import Any

from evaluators.core.shipped import shipped

TITLE = "loglik: the built-in benchmarks on their sample data (transformers)"
SAMPLES = shipped("tasks/samples")


def run(ctx: Any) -> None:
    """`ctx`: the demo's `evaluators.demo.DemoContext`."""
    from evaluators.loglik import report
    from evaluators.loglik.options import LoglikOptions
    from evaluators.loglik.run import run_loglik
    from evaluators.specs.spec import builtin_specs

    specs = [s for s in builtin_specs() if s.evaluator == "loglik" and (SAMPLES / s.id).is_dir()]
    for model in ctx.loglik_models():
        common = {"model": str(model.hf), "name": model.name, "results": str(ctx.store.root), "device": "cpu",
                  "dtype": "float32", "threads": model.threads}
        for spec in specs:
            result = run_loglik(LoglikOptions(bench=spec.id, data=str(SAMPLES / spec.id), **common))
            for r in result["runs"]:
                rep = r["report"]
                what = f"{spec.id}" + (f" {rep['split']}" if rep.get("split") else "")
                ctx.notes.append(f"loglik {model.name} {what} (sample, non-official): "
                                 f"{report.headline(rep, list(rep['config']['scoring']['metrics']))} — {r['dir']}")
