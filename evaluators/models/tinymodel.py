"""Tiny offline models: a real Llama-architecture model built locally, deterministically, in seconds.

No hub is reachable in tests or the demo, so we build a random-init `LlamaForCausalLM` and a byte-level
BPE tokenizer trained on a bundled corpus, and optionally write the same weights as a GGUF file that
llama.cpp loads. Weights come from numpy's seeded generator (not torch's initialisers), so the same seed
gives the same bytes whatever transformers does at init time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from evaluators.core.atomic import file_lock
from evaluators.core.errors import BadInput

CORPUS = Path(__file__).with_name("resources") / "tiny_corpus.txt"
INFO_FILE = "tiny.json"
GGUF_FILE = "model.gguf"
WEIGHT_FILES = ("model.safetensors",)

BOS, EOS, PAD, IM_START = "<|startoftext|>", "<|im_end|>", "<|endoftext|>", "<|im_start|>"
SPECIAL_TOKENS = (BOS, PAD, IM_START, EOS)  # ids 0..3, in this order
VOCAB_SIZE = 1000
N_CTX = 2048
ARCH = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0,
}
# Random weights with unit-scale activations: attention is sharp enough to exercise RoPE, and the output
# layer is scaled so that different continuations get clearly different log-probabilities.
LM_HEAD_SCALE = 3.0

# ChatML after a BOS, like Llama 3: transformers tokenizes the rendered BOS text, and llama.cpp strips it
# and adds BOS itself, so both see one BOS. Content may be absent (tool-call turns): rendered as empty.
CHAT_TEMPLATE = (
    "{{- bos_token -}}"
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' -}}"
    "{%- if message['content'] is string -%}{{- message['content'] -}}{%- endif -%}"
    "{{- '<|im_end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
)


def make_tiny(out_dir: str | os.PathLike, *, seed: int = 0, gguf: bool = False) -> dict[str, Any]:
    """Build the tiny model into `out_dir` (absent or empty); returns its description (see `_describe`).

    The folder appears complete or not at all: everything is written to a sibling temp folder first.
    """
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BadInput(f"{out}: exists and is not an empty folder; refusing to build the tiny model into it")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        info = _build(tmp, seed=seed, gguf=gguf)
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o777 & ~umask)  # mkdtemp made it private
        if out.exists():
            out.rmdir()
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return _describe(out, info)


def cached_tiny(cache_dir: str | os.PathLike, *, seed: int = 0, gguf: bool = True) -> dict[str, Any]:
    """The tiny model for `seed`, built once into `cache_dir` and reused; safe across processes.

    The cache key covers the seed and everything the bytes depend on (this module, the corpus, library
    versions), so a changed builder never serves a stale model.
    """
    cache = Path(cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    entry = cache / f"tiny-s{seed}-{_builder_hash()[:16]}"
    if _complete(entry, gguf):
        return _describe(entry, _read_info(entry))
    with file_lock(cache / f"{entry.name}.lock"):
        if not entry.exists():
            make_tiny(entry, seed=seed, gguf=gguf)
        elif gguf and not (entry / GGUF_FILE).exists():
            _add_gguf(entry)
    return _describe(entry, _read_info(entry))


def write_gguf(model_dir: str | os.PathLike, out_path: str | os.PathLike) -> Path:
    """Write the tiny model in `model_dir` as a float32 GGUF (llama architecture, gpt2-style BPE vocab).

    Reads the saved files (config.json, tokenizer.json, safetensors) rather than a live model, so it
    needs neither torch nor transformers.
    """
    import gguf as gg
    import numpy as np
    from safetensors.numpy import load_file

    model_dir, out_path = Path(model_dir), Path(out_path)
    config = json.loads((model_dir / "config.json").read_text())
    tok = json.loads((model_dir / "tokenizer.json").read_text())
    tensors = load_file(model_dir / WEIGHT_FILES[0])
    n_head, n_kv = config["num_attention_heads"], config["num_key_value_heads"]
    head_dim = config["hidden_size"] // n_head

    writer = gg.GGUFWriter(str(out_path), "llama")
    writer.add_name("bananabench-tiny")
    writer.add_file_type(gg.LlamaFileType.ALL_F32)
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_kv)
    writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
    writer.add_rope_freq_base(config["rope_parameters"]["rope_theta"])
    writer.add_rope_dimension_count(head_dim)
    writer.add_vocab_size(config["vocab_size"])

    special = {t["content"]: t["id"] for t in tok["added_tokens"] if t["special"]}
    tokens = [""] * config["vocab_size"]
    for text, idx in [*tok["model"]["vocab"].items(), *special.items()]:
        tokens[idx] = text
    if not all(tokens):
        raise ValueError(f"{model_dir}: tokenizer does not cover ids 0..{config['vocab_size'] - 1}")
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(tokens)
    writer.add_token_types([gg.TokenType.CONTROL if t in special else gg.TokenType.NORMAL for t in tokens])
    writer.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in tok["model"]["merges"]])
    writer.add_bos_token_id(special[BOS])
    writer.add_eos_token_id(special[EOS])
    writer.add_pad_token_id(special[PAD])
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)

    def permute(w: np.ndarray, heads: int) -> np.ndarray:
        # transformers' rotate-half rotary layout -> llama.cpp's interleaved pairs, per head.
        return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)

    def add(name: str, array: np.ndarray) -> None:
        writer.add_tensor(name, np.ascontiguousarray(array, dtype=np.float32))

    add("token_embd.weight", tensors["model.embed_tokens.weight"])
    for i in range(config["num_hidden_layers"]):
        p = f"model.layers.{i}."
        add(f"blk.{i}.attn_norm.weight", tensors[p + "input_layernorm.weight"])
        add(f"blk.{i}.attn_q.weight", permute(tensors[p + "self_attn.q_proj.weight"], n_head))
        add(f"blk.{i}.attn_k.weight", permute(tensors[p + "self_attn.k_proj.weight"], n_kv))
        add(f"blk.{i}.attn_v.weight", tensors[p + "self_attn.v_proj.weight"])
        add(f"blk.{i}.attn_output.weight", tensors[p + "self_attn.o_proj.weight"])
        add(f"blk.{i}.ffn_norm.weight", tensors[p + "post_attention_layernorm.weight"])
        add(f"blk.{i}.ffn_gate.weight", tensors[p + "mlp.gate_proj.weight"])
        add(f"blk.{i}.ffn_up.weight", tensors[p + "mlp.up_proj.weight"])
        add(f"blk.{i}.ffn_down.weight", tensors[p + "mlp.down_proj.weight"])
    add("output_norm.weight", tensors["model.norm.weight"])
    add("output.weight", tensors["lm_head.weight"])

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out_path


def train_tokenizer() -> Any:
    """The byte-level BPE tokenizer (a `tokenizers.Tokenizer`) trained on the bundled corpus."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE, special_tokens=list(SPECIAL_TOKENS), show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(CORPUS.read_text(encoding="utf-8").split("\n\n"), trainer=trainer)
    if tok.get_vocab_size() != VOCAB_SIZE:
        raise RuntimeError(f"tokenizer training gave {tok.get_vocab_size()} tokens, expected {VOCAB_SIZE}")
    # Like Llama: encode() with special tokens prepends BOS; add_special_tokens=False gives the bare text.
    tok.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A", pair=f"{BOS} $A {BOS} $B", special_tokens=[(BOS, tok.token_to_id(BOS))],
    )
    return tok


def _random_weights(seed: int, vocab_size: int) -> dict[str, Any]:
    """Seeded weights in transformers' Llama naming (numpy float32, row-major [out, in])."""
    import numpy as np

    rng = np.random.default_rng(seed)
    h, f = ARCH["hidden_size"], ARCH["intermediate_size"]
    head_dim = h // ARCH["num_attention_heads"]
    kv = ARCH["num_key_value_heads"] * head_dim

    def linear(n_out: int, n_in: int, scale: float = 1.0) -> np.ndarray:
        return (rng.standard_normal((n_out, n_in)) * scale / np.sqrt(n_in)).astype(np.float32)

    def norm(n: int) -> np.ndarray:
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

    w = {"model.embed_tokens.weight": rng.standard_normal((vocab_size, h)).astype(np.float32)}
    for i in range(ARCH["num_hidden_layers"]):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = norm(h)
        w[p + "self_attn.q_proj.weight"] = linear(h, h, 2.0)
        w[p + "self_attn.k_proj.weight"] = linear(kv, h, 2.0)
        w[p + "self_attn.v_proj.weight"] = linear(kv, h)
        w[p + "self_attn.o_proj.weight"] = linear(h, h)
        w[p + "post_attention_layernorm.weight"] = norm(h)
        w[p + "mlp.gate_proj.weight"] = linear(f, h)
        w[p + "mlp.up_proj.weight"] = linear(f, h)
        w[p + "mlp.down_proj.weight"] = linear(h, f)
    w["model.norm.weight"] = norm(h)
    w["lm_head.weight"] = linear(vocab_size, h, LM_HEAD_SCALE)
    return w


def _build(out: Path, *, seed: int, gguf: bool) -> dict[str, Any]:
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging

    raw = train_tokenizer()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=raw, bos_token=BOS, eos_token=EOS, pad_token=PAD,
        chat_template=CHAT_TEMPLATE, model_max_length=N_CTX,
    )
    ids = {t: raw.token_to_id(t) for t in SPECIAL_TOKENS}
    config = LlamaConfig(
        vocab_size=VOCAB_SIZE, max_position_embeddings=N_CTX, tie_word_embeddings=False,
        bos_token_id=ids[BOS], eos_token_id=ids[EOS], pad_token_id=ids[PAD],
        hidden_size=ARCH["hidden_size"], intermediate_size=ARCH["intermediate_size"],
        num_hidden_layers=ARCH["num_hidden_layers"], num_attention_heads=ARCH["num_attention_heads"],
        num_key_value_heads=ARCH["num_key_value_heads"], rms_norm_eps=ARCH["rms_norm_eps"],
        rope_parameters={"rope_type": "default", "rope_theta": ARCH["rope_theta"]},
        dtype="float32",
    )
    weights = _random_weights(seed, VOCAB_SIZE)
    with torch.device("meta"):
        model = LlamaForCausalLM(config)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()}, strict=True, assign=True)
    model.generation_config = GenerationConfig(
        bos_token_id=ids[BOS], eos_token_id=ids[EOS], pad_token_id=ids[PAD], do_sample=False,
    )
    hf_logging.disable_progress_bar()
    try:
        model.save_pretrained(out)
    finally:
        hf_logging.enable_progress_bar()
    tokenizer.save_pretrained(out)
    _portable_tokenizer_config(out)
    info = {
        "seed": seed,
        "vocab_size": VOCAB_SIZE,
        "n_params": sum(int(v.size) for v in weights.values()),
        "weights_sha256": _weights_sha256(out),
        "n_ctx": N_CTX,
        "special_tokens": {"bos": BOS, "eos": EOS, "pad": PAD, "im_start": IM_START},
        "special_token_ids": {"bos": ids[BOS], "eos": ids[EOS], "pad": ids[PAD], "im_start": ids[IM_START]},
    }
    (out / INFO_FILE).write_text(json.dumps(info, indent=2) + "\n")
    if gguf:
        write_gguf(out, out / GGUF_FILE)
    return info


def _portable_tokenizer_config(model_dir: Path) -> None:
    """Name the generic fast-tokenizer class, which transformers 4 also loads (5 writes its own alias)."""
    path = model_dir / "tokenizer_config.json"
    config = json.loads(path.read_text())
    config["tokenizer_class"] = "PreTrainedTokenizerFast"
    path.write_text(json.dumps(config, indent=2) + "\n")


def _add_gguf(entry: Path) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{GGUF_FILE}.", dir=entry)
    os.close(fd)
    try:
        write_gguf(entry, tmp)
        os.replace(tmp, entry / GGUF_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _weights_sha256(model_dir: Path) -> str:
    """SHA-256 over the weight files' bytes, in name order (for one file: `sha256sum model.safetensors`)."""
    digest = hashlib.sha256()
    for name in WEIGHT_FILES:
        with open(model_dir / name, "rb") as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
    return digest.hexdigest()


def _describe(model_dir: Path, info: dict[str, Any]) -> dict[str, Any]:
    gguf_path = model_dir / GGUF_FILE
    return {
        "path": str(model_dir.resolve()),
        "gguf": str(gguf_path.resolve()) if gguf_path.exists() else None,
        "weights_sha256": info["weights_sha256"],
        "vocab_size": info["vocab_size"],
        "n_params": info["n_params"],
        "seed": info["seed"],
        "n_ctx": info["n_ctx"],
        "special_token_ids": info["special_token_ids"],
    }


def _read_info(model_dir: Path) -> dict[str, Any]:
    return json.loads((model_dir / INFO_FILE).read_text())


def _complete(entry: Path, gguf: bool) -> bool:
    return (entry / INFO_FILE).exists() and (not gguf or (entry / GGUF_FILE).exists())


def _builder_hash() -> str:
    """Hash of what the built bytes depend on: this file, the corpus, and the libraries that write them."""
    from importlib.metadata import PackageNotFoundError, version

    digest = hashlib.sha256(Path(__file__).read_bytes() + CORPUS.read_bytes())
    for dist in ("numpy", "tokenizers", "transformers", "safetensors", "gguf"):
        with contextlib.suppress(PackageNotFoundError):
            digest.update(f"{dist}=={version(dist)}".encode())
    return digest.hexdigest()
