"""The task corpus: the task format, pinned repositories, validation and its ledger, lint, measurement, importers."""
