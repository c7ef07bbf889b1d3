"""The tiny offline model: deterministic, loadable by transformers, a complete GGUF, safe to cache concurrently."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, cli_env, run_cli


def test_same_seed_same_weights_other_seed_different(tiny_model, tmp_path):
    from evaluators.models.tinymodel import make_tiny

    again = make_tiny(tmp_path / "s0", seed=0)
    other = make_tiny(tmp_path / "s1", seed=1)
    assert again["weights_sha256"] == tiny_model["weights_sha256"]
    assert other["weights_sha256"] != tiny_model["weights_sha256"]
    # The documented hash is the plain SHA-256 of the one weight file.
    data = (tmp_path / "s0" / "model.safetensors").read_bytes()
    assert again["weights_sha256"] == hashlib.sha256(data).hexdigest()
    # The tokenizer does not depend on the seed; it is trained deterministically.
    assert (tmp_path / "s0" / "tokenizer.json").read_bytes() == (tmp_path / "s1" / "tokenizer.json").read_bytes()
    assert again["gguf"] is None and again["n_params"] == tiny_model["n_params"]


def test_transformers_loads_it_and_the_tokenizer_behaves(tiny_model):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_model["path"])
    model = AutoModelForCausalLM.from_pretrained(tiny_model["path"], dtype=torch.float32)
    assert type(model).__name__ == "LlamaForCausalLM"
    assert sum(p.numel() for p in model.parameters()) == tiny_model["n_params"]
    assert len(tok) == tiny_model["vocab_size"] == model.config.vocab_size

    text = "The cat sat near the river. x = 42\n"
    bare = tok(text, add_special_tokens=False).input_ids
    assert tok(text).input_ids == [tok.bos_token_id, *bare]
    assert tok.decode(bare) == text
    word = tok(" continuation", add_special_tokens=False).input_ids
    assert tok.convert_ids_to_tokens(word)[0].startswith("Ġ")
    assert tok.decode(tok("café 🍌 東京", add_special_tokens=False).input_ids) == "café 🍌 東京"

    chat = tok.apply_chat_template([{"role": "user", "content": "Hi"}], tokenize=False, add_generation_prompt=True)
    assert chat == "<|startoftext|><|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    ids = tok.apply_chat_template([{"role": "user", "content": "Hi"}], add_generation_prompt=True)["input_ids"]
    assert ids.count(tok.bos_token_id) == 1 and ids[0] == tok.bos_token_id
    assert tok.eos_token == "<|im_end|>" and model.generation_config.eos_token_id == tok.eos_token_id

    with torch.no_grad():
        logits = model(torch.tensor([bare])).logits[0]
    # Random weights, but scaled so that next-token distributions are clearly not flat.
    assert float(logits.std(dim=-1).min()) > 1.0


def test_gguf_has_the_metadata_llama_cpp_needs(tiny_model):
    from gguf import GGUFReader

    reader = GGUFReader(tiny_model["gguf"])

    def value(key):
        return reader.fields[key].contents()

    assert value("general.architecture") == "llama"
    assert value("llama.context_length") == 2048
    assert value("llama.embedding_length") == 64
    assert value("llama.block_count") == 2
    assert value("llama.attention.head_count") == 4
    assert value("llama.attention.head_count_kv") == 2
    assert value("llama.feed_forward_length") == 128
    assert value("tokenizer.ggml.model") == "gpt2"
    assert value("tokenizer.ggml.pre") == "gpt-2"
    assert len(value("tokenizer.ggml.tokens")) == tiny_model["vocab_size"]
    ids = tiny_model["special_token_ids"]
    assert value("tokenizer.ggml.bos_token_id") == ids["bos"]
    assert value("tokenizer.ggml.eos_token_id") == ids["eos"]
    assert value("tokenizer.ggml.add_bos_token") is True
    types = value("tokenizer.ggml.token_type")
    assert types[ids["bos"]] == 3 and types[ids["eos"]] == 3 and types[100] == 1
    assert "<|im_start|>" in value("tokenizer.chat_template")
    assert {t.name for t in reader.tensors} >= {"token_embd.weight", "output.weight", "blk.1.attn_q.weight"}
    assert all(t.tensor_type.name == "F32" for t in reader.tensors)


@pytest.mark.slow
def test_cli_make_tiny_and_refusal_of_a_non_empty_folder(tmp_path):
    out = tmp_path / "tiny"
    proc = run_cli("models", "make-tiny", str(out), "--seed", "3", "--gguf")
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["seed"] == 3 and Path(info["gguf"]).is_file() and info["path"] == str(out.resolve())
    assert "Writing model shards" not in proc.stderr

    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    proc = run_cli("models", "make-tiny", str(taken))
    assert proc.returncode == 2
    assert "not an empty folder" in proc.stderr and str(taken) in proc.stderr
    assert [p.name for p in taken.iterdir()] == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken", "tiny"]  # no temp folder left behind


@pytest.mark.slow
def test_cached_tiny_builds_once_under_concurrent_callers(tmp_path):
    cache = tmp_path / "cache"
    code = ("import json, sys; from evaluators.models.tinymodel import cached_tiny; "
            "print(json.dumps(cached_tiny(sys.argv[1], seed=5, gguf=sys.argv[2] == '1')))")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(cache), flag], cwd=REPO, env=cli_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for flag in ("1", "0", "1")]
    outs = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr
        outs.append(json.loads(stdout))
    assert len({o["path"] for o in outs}) == 1 and len({o["weights_sha256"] for o in outs}) == 1
    entries = [p for p in cache.iterdir() if not p.name.endswith(".lock")]
    assert len(entries) == 1 and (entries[0] / "model.gguf").is_file()
    assert not [p for p in entries[0].iterdir() if p.name.startswith(".")]  # no temp files left


def test_cached_tiny_adds_a_gguf_to_an_entry_built_without_one(tmp_path):
    from evaluators.models.tinymodel import cached_tiny

    first = cached_tiny(tmp_path, seed=7, gguf=False)
    assert first["gguf"] is None
    second = cached_tiny(tmp_path, seed=7, gguf=True)
    assert second["path"] == first["path"] and Path(second["gguf"]).is_file()
    assert cached_tiny(tmp_path, seed=7, gguf=False)["gguf"] == second["gguf"]
