"""Demo step: the three chat tasks on the bundled sample questions, asked of the tiny model via llama.cpp.

The tiny model's answers are noise (mostly unanswered or wrong); the plumbing is real: server
discovery, concurrent generation over two slots, extraction, the store.
"""

from __future__ import annotations

from typing import Any

TITLE = "chat: ARC, MMLU and GSM8K sample questions against the tiny model served by llama.cpp"


def run(ctx: Any) -> None:
    """`ctx`: the demo's `evaluators.demo.DemoContext`."""
    from evaluators.chat.datasets import SAMPLES_DIR, TASKS
    from evaluators.chat.options import ChatOptions
    from evaluators.chat.run import run_chat
    from evaluators.core.backends.discovery import ServerOptions
    from evaluators.core.llamacpp import LlamaServer

    with LlamaServer(ctx.tiny_gguf, n_ctx=2048, parallel=2, alias="tiny") as server:
        results = run_chat(ChatOptions(tasks=list(TASKS), server=ServerOptions(base_url=server.base_url),
                                       name=ctx.model_name, data=str(SAMPLES_DIR),
                                       max_tokens=dict.fromkeys(TASKS, 48), results=str(ctx.store.root)))
    for res in results:
        s = res.summary
        ctx.notes.append(f"chat {res.task}: run {res.run_id} ({res.status}): {s['n_correct']} correct, "
                         f"{s['n_wrong']} wrong, {s['n_unanswered']} unanswered, {s['n_error']} errors")
