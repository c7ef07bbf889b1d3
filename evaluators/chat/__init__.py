"""Generative answers from a chat server: ARC-Challenge, MMLU and GSM8K with letter/number extraction.

datasets (load + validate) -> run (one attempt row per item, resumable) -> metrics (accuracy and
the correct/wrong/unanswered/error split); extract holds the answer rules, compare the paired A/B
report, shim the llama-server <-> lm-eval adapter, lmeval_import brings lm-eval runs in.
"""

from evaluators.core.presentation import Presentation, Rank

# What the site shows of chat runs: their scores and the item table (registered by `start_run`).
PRESENTATION = Presentation(rank=Rank.GENERATION)
