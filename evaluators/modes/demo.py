"""Demo step: ModeBench on custom records, the five tasks of modebench's own walkthrough.

Two runs: the walkthrough's handwritten responses (two correct modes, one wrong and one malformed
answer per task, so the numbers are interesting; a reference run, marked so on the site), and the
main model served by llama.cpp sampling one group of 2 draws per task (SmolLM2-135M-Instruct's real
attempts, almost all wrong on these puzzles; with `--tiny`, noise). One group keeps the step short (a 135M
model on one llama.cpp thread reads a prompt at ~60 tokens/s): its cells are modebench's receipt verbatim.
The draws go one after the other to one slot, so a task's second draw reuses the prompt llama.cpp read for
its first (two slots at once read every prompt twice: the step's generation took 23.8 s and 24.6 CPU s
that way on a 2-core machine, against 15.4 s and 16.0 CPU s).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
from pathlib import Path
from typing import Any

from evaluators.core.contract import RunKey
from evaluators.modes.datasets import VerifierUnavailable

log = logging.getLogger("bananabench")

WALKTHROUGH = "walkthrough"  # the custom task set's name on the site, for the reference run and the model's
TITLE = "modes: ModeBench walkthrough tasks (recorded responses, then the main model via llama.cpp)"
WALKTHROUGH_NOTE = ("modebench's walkthrough: handwritten example responses (two correct modes, one wrong and one "
                    "malformed answer per task) graded by modebench; no language model wrote them")


def walkthrough_files(work: Path) -> dict[str, Path]:
    """modebench's walkthrough exported fresh, plus its tasks as custom records {id, level, domain, problem, answer}."""
    from modebench.walkthrough import export

    directory = work / "modes-walkthrough"
    if directory.exists():
        shutil.rmtree(directory)
    export(directory)
    records: list[dict[str, Any]] = [json.loads(line) for line in
                                     (directory / "responses.jsonl").read_text(encoding="utf-8").splitlines()]
    tasks = directory / "custom-tasks.jsonl"
    tasks.write_text("".join(json.dumps({k: r[k] for k in ("id", "level", "domain", "problem", "answer")}) + "\n"
                             for r in records), encoding="utf-8")
    return {"responses": directory / "responses.jsonl", "run": directory / "run.json", "tasks": tasks,
            "dir": directory}


def run(ctx: Any) -> None:
    """`ctx`: the demo's `evaluators.demo.DemoContext`."""
    from evaluators.models.backends.discovery import ServerOptions
    from evaluators.models.llamacpp import LlamaServer
    from evaluators.modes.datasets import TaskSource
    from evaluators.modes.generate import GenerateOptions, ModelSource
    from evaluators.modes.run import EvaluateOptions, RunOptions, evaluate, generate_and_evaluate

    files = walkthrough_files(ctx.work)
    recorded = evaluate(EvaluateOptions([files["responses"]], results=ctx.store.root, run_metadata=files["run"],
                                        benchmark_name=WALKTHROUGH))
    run = ctx.store.run(recorded.run_id)
    ctx.store.update_run(recorded.run_id, extra={**((run and run.extra) or {}), RunKey.REFERENCE_RUN: WALKTHROUGH_NOTE})
    ctx.notes.append(f"modes: walkthrough responses -> reference run {recorded.run_id} ({recorded.status}, "
                     f"{recorded.attempts} attempts)")
    model = ctx.main
    with LlamaServer(model.gguf, n_ctx=4096, parallel=1, alias=model.name, threads=model.threads) as server:
        options = RunOptions(
            tasks=TaskSource(input=files["tasks"]),
            model=ModelSource(server=ServerOptions(base_url=server.base_url, concurrency=1)),
            generation=GenerateOptions(out=files["dir"] / f"{model.name}-responses.jsonl", name=model.name, k=2,
                                       groups=1, max_tokens=model.modes_tokens, seed=1),
            results=ctx.store.root, benchmark_name=WALKTHROUGH)
        try:
            outcome = generate_and_evaluate(options)
        except VerifierUnavailable as exc:  # grading is resumable: the responses are kept
            log.warning("%s; resuming once", exc)
            outcome = generate_and_evaluate(dataclasses.replace(
                options, generation=dataclasses.replace(options.generation, resume=True)))
    ctx.notes.append(f"modes: {model.name} on the walkthrough tasks -> run {outcome.run_id} ({outcome.status}, "
                     f"{outcome.attempts} attempts)")
