"""Demo step: the three chat tasks on the bundled sample questions, asked of the main model via llama.cpp.

With SmolLM2-135M-Instruct the answers are real English, mostly wrong as a 135M model's should be:
real extraction, unanswered and truncated answers counted apart. With `--tiny` they are noise.
"""

from __future__ import annotations

from typing import Any

TITLE = "chat: ARC, MMLU and GSM8K sample questions, the main model served by llama.cpp"


def run(ctx: Any) -> None:
    from evaluators import api
    from evaluators.chat.datasets import SAMPLES_DIR
    from evaluators.core.llamacpp import LlamaServer

    model = ctx.main
    with LlamaServer(model.gguf, n_ctx=4096, parallel=2, alias=model.name, threads=model.threads) as server:
        results = api.run_chat(["arc", "mmlu", "gsm8k"], base_url=server.base_url, name=model.name,
                               data=SAMPLES_DIR, max_tokens=dict.fromkeys(("arc", "mmlu", "gsm8k"), model.chat_tokens),
                               results=ctx.store)
    for res in results:
        s = res.summary
        ctx.notes.append(f"chat {res.task}: run {res.run_id} ({res.status}): {s['n_correct']} correct, "
                         f"{s['n_wrong']} wrong, {s['n_unanswered']} unanswered, {s['n_truncated']} truncated, "
                         f"{s['n_error']} errors")
