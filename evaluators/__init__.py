"""BananaBench: batch evaluation of language models into one DuckDB store.

Importing this package must stay cheap: heavy dependencies (torch, transformers,
llama.cpp, playwright) are imported lazily inside the code paths that need them.
"""

__version__ = "0.1.0"
