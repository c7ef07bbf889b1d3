"""Continuation log-likelihood benchmarks for base models: BananaMind Base Bench 1.1 and base-evals."""

from evaluators.core.presentation import Presentation, Rank

# What the site shows of loglik runs: their scores and the item table (registered by `start_run`).
PRESENTATION = Presentation(rank=Rank.LIKELIHOOD)
