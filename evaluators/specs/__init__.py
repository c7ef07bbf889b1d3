"""Benchmark specs: the TOML language, its records and data files, few-shot draws; the built-in specs sit beside the code."""
