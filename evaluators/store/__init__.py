"""The store: one DuckDB file of runs, attempts, scores and choices; its schema, rows, export, merge and paired reads."""
