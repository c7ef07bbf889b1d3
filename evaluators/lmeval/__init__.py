"""`bananabench lm-eval`: any lm-eval task on our exact engine (hf, gguf, server), into lm-eval's folder and the store."""
