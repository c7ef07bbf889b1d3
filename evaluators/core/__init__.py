"""Shared machinery of every evaluator: the store, run lifecycle, model backends, data, statistics.

Nothing in this package knows about a particular evaluator.
"""
