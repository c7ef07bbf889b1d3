"""Model access behind one small interface (see `base`): hf (transformers), gguf (llama.cpp), server (HTTP)."""
