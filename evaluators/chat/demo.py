"""Demo step: the built-in chat benchmarks on their bundled sample questions, asked of the main model via llama.cpp.

With SmolLM2-135M-Instruct the answers are real English, mostly wrong as a 135M model's should be:
real extraction, unanswered and truncated answers counted apart. With `--tiny` they are noise.
"""

from __future__ import annotations

from typing import Any

from evaluators.core.shipped import shipped

TITLE = "chat: the built-in chat benchmarks' sample questions, the main model served by llama.cpp"
SAMPLES = shipped("tasks/samples/chat")
# Questions asked per benchmark: enough for every outcome (correct, wrong, unanswered, truncated) to show, few
# enough that a 135M model on one llama.cpp thread answers them all in well under a minute (GSM8K's long answers
# are most of it). `bananabench chat run --data tasks/samples/chat` asks all of them.
QUESTIONS = 6


def run(ctx: Any) -> None:
    """`ctx`: the demo's `evaluators.demo.DemoContext`."""
    from evaluators.chat.options import ChatOptions
    from evaluators.chat.run import ALL, EVERY_TASK, run_chat
    from evaluators.models.backends.discovery import ServerOptions
    from evaluators.models.llamacpp import LlamaServer

    model = ctx.main
    with LlamaServer(model.gguf, n_ctx=4096, parallel=2, alias=model.name, threads=model.threads) as server:
        results = run_chat(ChatOptions(tasks=[ALL], server=ServerOptions(base_url=server.base_url), name=model.name,
                                       data=str(SAMPLES), limit=QUESTIONS, max_tokens={EVERY_TASK: model.chat_tokens},
                                       results=str(ctx.store.root)))
    for res in results:
        s = res.summary
        ctx.notes.append(f"chat {res.task}: run {res.run_id} ({res.status}): {s['n_correct']} correct, "
                         f"{s['n_wrong']} wrong, {s['n_unanswered']} unanswered, {s['n_truncated']} truncated, "
                         f"{s['n_error']} errors")
