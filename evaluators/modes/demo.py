"""Demo step: ModeBench on custom records, the five tasks of modebench's own walkthrough.

Two runs: the walkthrough's handwritten responses (two correct modes, one wrong and one malformed
answer per task, so the numbers are interesting), and the tiny model served by llama.cpp sampling
2 groups of 4 draws per task (its answers are noise: every attempt is wrong, the plumbing is real).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

TITLE = "modes: ModeBench walkthrough tasks (recorded responses, then the tiny model via llama.cpp)"


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
    from evaluators.core.backends.discovery import ServerOptions
    from evaluators.core.llamacpp import LlamaServer
    from evaluators.modes.datasets import TaskSource
    from evaluators.modes.generate import GenerateOptions, ModelSource
    from evaluators.modes.run import EvaluateOptions, RunOptions, evaluate, generate_and_evaluate

    files = walkthrough_files(ctx.work)
    recorded = evaluate(EvaluateOptions([files["responses"]], results=ctx.store.root, run_metadata=files["run"]))
    ctx.notes.append(f"modes: walkthrough responses -> run {recorded.run_id} ({recorded.status}, "
                     f"{recorded.attempts} attempts)")
    with LlamaServer(ctx.tiny_gguf, n_ctx=4096, parallel=2, alias="tiny") as server:
        outcome = generate_and_evaluate(RunOptions(
            tasks=TaskSource(input=files["tasks"]),
            model=ModelSource(server=ServerOptions(base_url=server.base_url, concurrency=2)),
            generation=GenerateOptions(out=files["dir"] / "tiny-responses.jsonl", name=ctx.model_name, k=4, groups=2,
                                       max_tokens=24, seed=1),
            results=ctx.store.root))
    ctx.notes.append(f"modes: tiny model on the walkthrough tasks -> run {outcome.run_id} ({outcome.status}, "
                     f"{outcome.attempts} attempts)")
