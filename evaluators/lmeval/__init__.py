"""`bananabench lm-eval`: any lm-eval task on our exact engine (hf, gguf, server), into lm-eval's folder and the store."""

from typing import Any

from evaluators.core.contract import CommonExtra


class AttemptExtra(CommonExtra, total=False):
    """`attempts.extra` of an imported lm-eval sample (filed under loglik or chat, beside their own keys)."""

    lm_eval: dict[str, Any]  # task, doc_id, line of its samples file, and lm-eval's per-document metrics
