"""Demo step: Pi in the podman sandbox on the smoke tasks, driven by the tiny model in llama.cpp.

The tiny model writes noise, so its attempts fail; the step shows the whole path working offline
(server discovery, image, proxy, bridge, Pi, diff, verification, rows in the store).
"""

from __future__ import annotations

import os
from pathlib import Path

from evaluators.agent import datasets

TITLE = "agent: Pi on the smoke tasks in the podman sandbox (tiny model in llama.cpp)"
FALLBACK_TASKS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "agent_tasks"


def _tasks_dir() -> Path:
    corpus = datasets.tasks_root()
    return corpus if (corpus / "smoke").is_dir() else FALLBACK_TASKS


def run(ctx) -> None:
    from evaluators import api
    from evaluators.core.llamacpp import LlamaServer

    assert ctx.tiny_gguf is not None
    with LlamaServer(ctx.tiny_gguf, n_ctx=32768, alias=ctx.model_name, threads=1) as server:
        summary = api.run_agent(name=ctx.model_name, base_url=server.base_url, results=ctx.store.root,
                                tasks_dir=str(_tasks_dir()), categories=["smoke"], max_tokens=64,
                                timeout_s=180, idle_s=90, parallel=1,
                                # the size limit mounts loop devices (root); a rootless demo runs without it
                                workspace_mb=None if os.geteuid() == 0 else 0)
    overall = {s["metric"]: s["value"] for s in summary["scores"] if s["scope"] == "overall"}
    ctx.notes.append(f"agent: run {summary['run_id']}: score {overall.get('score', 0):.2f} on the smoke tasks "
                     f"({int(overall.get('n_failed', 0))} failed, as expected from a random tiny model)")
