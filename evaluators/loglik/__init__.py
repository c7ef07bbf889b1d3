"""Continuation log-likelihood benchmarks for base models: BananaMind Base Bench 1.1 and base-evals."""
