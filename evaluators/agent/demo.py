"""Demo step: Pi in the podman sandbox, twice.

1. The tiny model in llama.cpp on the smoke tasks: its attempts fail (it writes noise), but the whole
   path runs offline (server discovery, image, proxy, bridge, Pi, diff, verification, rows).
2. A reference run of one frontend task: Pi applies the task's own solution, replayed by a script (no
   model), so the gallery has desktop and mobile screenshots; the site marks it as a reference run.
"""

from __future__ import annotations

import os
from pathlib import Path

from evaluators.agent.corpus import datasets

TITLE = "agent: Pi in the podman sandbox (tiny model on the smoke tasks; a frontend task's reference run)"
FALLBACK_TASKS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "agent_tasks"


def _tasks_dir() -> Path:
    corpus = datasets.tasks_root()
    return corpus if (corpus / "smoke").is_dir() else FALLBACK_TASKS


def _frontend_task(root: Path) -> str:
    """A quick frontend task of the corpus (the first such one), for the gallery."""
    tasks = datasets.select(datasets.load_tasks(root), categories=["frontend"], tags=["quick"]) or \
        datasets.select(datasets.load_tasks(root), categories=["frontend"])
    return next(t.id for t in tasks if t.screenshot is not None)


def run(ctx) -> None:
    """`ctx`: the demo's `evaluators.demo.DemoContext`."""
    from evaluators.agent.attempts import replay
    from evaluators.agent.attempts.run import AgentRunOptions, run_agent_benchmark
    from evaluators.models.backends.discovery import ServerOptions
    from evaluators.models.llamacpp import LlamaServer

    model, root = ctx.tiny, _tasks_dir()
    # the size limit mounts loop devices (root); a rootless demo runs without it
    sized = {"workspace_mb": None if os.geteuid() == 0 else 0}
    with LlamaServer(model.gguf, n_ctx=32768, alias=model.name, threads=model.threads) as server:
        summary = run_agent_benchmark(AgentRunOptions(
            name=model.name, server=ServerOptions(base_url=server.base_url), results=str(ctx.store.root),
            tasks_dir=str(root), categories=["smoke"], max_tokens=64, timeout_s=180, idle_s=90, parallel=1, **sized))
    overall = {s.metric: s.value for s in summary["scores"] if s.scope == "overall"}
    ctx.notes.append(f"agent: run {summary['run_id']}: score {overall.get('score', 0):.2f} on the smoke tasks "
                     f"({int(overall.get('n_failed', 0))} failed, as expected from a random tiny model)")
    task = _frontend_task(root)
    reference = replay.run_reference(ctx.store.root, tasks_dir=str(root), only=[task], **sized)
    ctx.notes.append(f"agent: reference run {reference['run_id']} of {task} (the task's own solution, replayed: "
                     "its screenshots are in the gallery, marked as a reference run)")
