"""Generative answers from a chat server: ARC-Challenge, MMLU and GSM8K with letter/number extraction.

datasets (load + validate) -> run (one attempt row per item, resumable) -> metrics (accuracy and
the correct/wrong/unanswered/error split); extract holds the answer rules, compare the paired A/B
report, shim the llama-server <-> lm-eval adapter, lmeval_import brings lm-eval runs in.
"""

from typing import Any

from evaluators.core.contract import CommonExtra
from evaluators.core.presentation import Presentation, Rank


class AttemptExtra(CommonExtra, total=False):
    """`attempts.extra` of a chat attempt: the request, the item's letters and the server's answer."""

    messages: list[dict[str, Any]]
    letters: str | None
    content_hash: str
    index: int
    accepted: list[str]
    finish_reason: str | None
    attempts: int | None  # HTTP tries it took
    tool_calls: list[Any]
    cached_tokens: int
    replica: str
    moved: bool


# What the site shows of chat runs: their scores and the item table (registered by `start_run`).
PRESENTATION = Presentation(rank=Rank.GENERATION)
