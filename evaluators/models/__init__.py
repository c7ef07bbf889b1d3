"""The models behind the evaluators: backends (transformers, GGUF, llama.cpp servers), llama.cpp itself, the test models."""
