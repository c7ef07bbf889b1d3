"""HFBackend on a local folder: loading options, tokenization rules, identity, clear refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluators.core.errors import BadInput


@pytest.fixture(scope="module")
def backend(tiny_model):
    from evaluators.models.backends.hf import HFBackend

    with HFBackend(tiny_model["path"], device="cpu") as b:
        yield b


def test_identity_describes_exactly_what_was_loaded(backend, tiny_model):
    ident = backend.identity
    assert ident.kind == "hf" and ident.source == str(Path(tiny_model["path"]).resolve())
    assert ident.revision is None and ident.dtype == "float32"
    assert ident.n_params == tiny_model["n_params"]
    assert ident.files_sha256["model.safetensors"] == tiny_model["weights_sha256"]
    assert {"config.json", "tokenizer.json", "tokenizer_config.json", "chat_template.jinja"} <= set(ident.files_sha256)
    assert "model.gguf" not in ident.files_sha256 and "tiny.json" not in ident.files_sha256
    sig = ident.signature()
    assert sig["weights_sha256"] == ident.weights_sha256 and "source" not in sig  # a moved folder is the same model
    assert ident.extra["device"] == "cpu" and ident.extra["architecture"] == "LlamaForCausalLM"


def test_tokenize_adds_no_special_tokens(backend, tiny_model):
    ids = backend.tokenize("The cat sat.")
    assert ids and backend.bos_token_id == tiny_model["special_token_ids"]["bos"]
    assert backend.bos_token_id not in ids
    assert backend.tokenizer.decode(ids) == "The cat sat."
    assert backend.tokenizer.convert_ids_to_tokens(backend.tokenize(" river"))[0].startswith("Ġ")
    assert backend.max_length == 2048


def test_dtype_and_threads(tiny_model):
    import torch

    from evaluators.models.backends.hf import HFBackend

    before = torch.get_num_threads()
    try:
        b = HFBackend(tiny_model["path"], device="auto", dtype="bfloat16", threads=1)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
    assert next(b.model.parameters()).dtype == torch.bfloat16
    assert b.identity.dtype == "bfloat16" and b.identity.files_sha256["model.safetensors"] == tiny_model["weights_sha256"]
    assert b.identity.signature() != {**b.identity.signature(), "dtype": "float32"}


def test_bad_inputs_are_refused_clearly(tiny_model, tmp_path):
    from evaluators.models.backends.hf import HFBackend

    cases = [
        ((tmp_path / "missing",), {}, "no such model folder, and not a Hub repo id"),
        ((tiny_model["gguf"],), {}, "is a file; give the model's folder"),
        ((tmp_path,), {}, "no config.json"),
        ((tiny_model["path"],), {"dtype": "float8"}, "dtype must be one of float32, bfloat16, float16"),
        ((tiny_model["path"],), {"device": "tpu"}, "device must be cpu, cuda, cuda:N or auto"),
        ((tiny_model["path"],), {"revision": "main"}, "--revision applies to Hub repo ids"),
        ((tiny_model["path"],), {"threads": 0}, "threads must be at least 1"),
    ]
    for args, kwargs, message in cases:
        with pytest.raises(BadInput, match=message.replace(".", r"\.")):
            HFBackend(*args, **kwargs)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text('{"model_type": "llama"}')
    with pytest.raises(BadInput, match="transformers cannot load it"):
        HFBackend(broken)
