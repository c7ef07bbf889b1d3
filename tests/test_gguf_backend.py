"""The in-process GGUF backend: exact against transformers, independent of how requests are packed."""

from __future__ import annotations

import random
import struct

import numpy as np
import pytest

from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.models import llama_capi
from evaluators.models.backends.base import LoglikRequest
from evaluators.models.backends.gguf import GGUFBackend
from evaluators.runs.runs import sha256_file

WORDS = ("the a cat dog sat on mat ran fast slow red blue house tree river code python def return if else "
         "number apple banana quick brown fox jumps over lazy café naïve 日本 🍌 (x) [1, 2] {'k': 3}").split()


def make_requests(tokenize, n_items: int, seed: int = 0, choices: int = 4) -> list[LoglikRequest]:
    rng = random.Random(seed)
    reqs = []
    for _ in range(n_items):
        context = tuple(tokenize(" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 50)))))
        for _ in range(choices):
            cont = tuple(tokenize(" " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 10)))))
            reqs.append(LoglikRequest(context, cont))
    return reqs


@pytest.fixture(scope="module")
def backend(tiny_model):
    with GGUFBackend(tiny_model["gguf"], threads=1) as b:
        yield b


@pytest.fixture(scope="module")
def hf(tiny_model):
    torch = pytest.importorskip("torch")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(1)
    model = AutoModelForCausalLM.from_pretrained(tiny_model["path"], dtype=torch.float32).eval()
    return model, AutoTokenizer.from_pretrained(tiny_model["path"])


def reference_logprobs(model, req: LoglikRequest) -> tuple[list[float], bool]:
    """A plain unbatched transformers forward pass: per-token log-probs and whether all were the argmax."""
    import torch

    ids = torch.tensor([[*req.context, *req.continuation]])
    with torch.no_grad():
        logp = model(ids).logits[0].float().log_softmax(-1)
    rows = logp[len(req.context) - 1: len(req.context) - 1 + len(req.continuation)]
    targets = torch.tensor(req.continuation)
    values = rows[torch.arange(len(targets)), targets].tolist()
    return values, bool((rows.argmax(-1) == targets).all())


def test_tokenizer_matches_transformers(backend, hf):
    _, tok = hf
    texts = ["The cat sat.", " leading space", "café naïve 日本 🍌", "def f(x):\n    return x  # ok", "",
             "   ", "<|startoftext|> literal special text"]
    for text in texts:
        expected = tok(text, add_special_tokens=False)["input_ids"]
        if "<|" in text:  # transformers maps special-token text to its id; llama.cpp is told not to parse it
            assert backend.tokenize(text) != expected and tok.bos_token_id not in backend.tokenize(text)
        else:
            assert backend.tokenize(text) == expected, text
    assert backend.bos_token_id == tok.bos_token_id


def test_logprobs_match_a_transformers_forward_pass(backend, hf):
    model, _ = hf
    reqs = make_requests(backend.tokenize, 12)
    results = dict(backend.loglikelihood(reqs))
    assert sorted(results) == list(range(len(reqs)))
    worst = 0.0
    for i, req in enumerate(reqs):
        ref, ref_greedy = reference_logprobs(model, req)
        got = results[i]
        assert got.n_tokens == len(req.continuation) == len(got.token_logprobs)
        worst = max(worst, float(np.max(np.abs(np.subtract(ref, got.token_logprobs)))))
        assert got.logprob_sum == pytest.approx(sum(got.token_logprobs), abs=1e-6)
        assert got.is_greedy == ref_greedy
    assert worst <= 1e-4, worst
    assert any(r.logprob_sum != results[0].logprob_sum for r in results.values())


@pytest.mark.parametrize("options", [
    {"n_batch": 3},  # many decode calls per context and per continuation
    {"n_batch": 7},
    {"n_ctx": 256, "n_batch": 4096},  # a small KV cache; everything in one call
    {"threads": 2},
])
def test_scores_are_bitwise_independent_of_batching_threads_and_batch_mates(tiny_model, backend, options):
    reqs = make_requests(backend.tokenize, 10, seed=3)
    long_context = tuple(backend.tokenize(" ".join(WORDS * 4)))[:200]
    reqs += [LoglikRequest(long_context, tuple(backend.tokenize(" " + " ".join(WORDS[k:k + 12]))))
             for k in range(4)]
    expected = dict(backend.loglikelihood(reqs))
    with GGUFBackend(tiny_model["gguf"], threads=options.pop("threads", 1), **options) as other:
        reordered = list(reversed(reqs))
        got = {len(reqs) - 1 - i: r for i, r in other.loglikelihood(reordered)}
        alone = {i: dict(other.loglikelihood([reqs[i]]))[0] for i in (0, 5, len(reqs) - 1)}
    for i in expected:
        assert got[i].token_logprobs == expected[i].token_logprobs
    for i, result in alone.items():
        assert result.token_logprobs == expected[i].token_logprobs


def test_cutting_back_to_the_context_equals_decoding_each_continuation_afresh(backend):
    """The path recurrent models take (context and continuation decoded together from scratch) gives the
    same numbers as the default one (context once, each continuation after it)."""
    reqs = make_requests(backend.tokenize, 6, seed=5)
    expected = dict(backend.loglikelihood(reqs))
    saved = backend.cut_back, backend.call_size
    try:
        backend.cut_back, backend.call_size = False, 3
        got = dict(backend.loglikelihood(reqs))
    finally:
        backend.cut_back, backend.call_size = saved
    for i in expected:
        assert got[i].token_logprobs == expected[i].token_logprobs


def test_identical_continuations_get_identical_scores(backend):
    context = tuple(backend.tokenize("The first choice wins a tie:"))
    yes, no = tuple(backend.tokenize(" yes")), tuple(backend.tokenize(" no"))
    got = dict(backend.loglikelihood([LoglikRequest(context, c) for c in (yes, no, yes, no)]))
    assert got[0] == got[2] and got[1] == got[3]


def test_identity_describes_the_file(tiny_model, backend):
    ident = backend.identity
    assert ident.kind == "gguf"
    assert ident.files_sha256 == {"model.gguf": sha256_file(tiny_model["gguf"])}
    assert ident.quantization == "F32"
    assert ident.n_params == tiny_model["n_params"]
    assert ident.extra["llama_cpp"] == f"b{llama_capi.LAYOUT_BUILD}"
    assert ident.extra["exact"] == {"flash_attn": False, "kv_cache": "f32", "log_softmax": "float32"}
    assert backend.max_length == min(tiny_model["n_ctx"], 4096)


def test_bad_requests_are_refused(backend):
    ok = backend.tokenize(" the cat")
    cases = {
        "empty context": LoglikRequest((), tuple(ok)),
        "empty continuation": LoglikRequest(tuple(ok), ()),
        "outside the vocabulary": LoglikRequest(tuple(ok), (backend.model.n_vocab,)),
        "exceed the context": LoglikRequest(tuple(ok) * backend.max_length, tuple(ok)),
    }
    for words, req in cases.items():
        with pytest.raises(ValueError, match=words):
            list(backend.loglikelihood([req]))


def test_bad_files_are_refused(tmp_path):
    with pytest.raises(BadInput, match="no such GGUF file"):
        GGUFBackend(tmp_path / "missing.gguf")
    (tmp_path / "notes.gguf").write_text("not a model")
    with pytest.raises(BadInput, match="not a GGUF file"):
        GGUFBackend(tmp_path / "notes.gguf")
    (tmp_path / "cut.gguf").write_bytes(b"GGUF" + struct.pack("<I", 3) + b"\0" * 12)
    with pytest.raises(BadInput, match="could not load"):
        GGUFBackend(tmp_path / "cut.gguf")


def test_struct_layout_is_checked_against_the_library(monkeypatch):
    lib = llama_capi.library()
    raw = bytes(lib.llama_context_default_params().raw)
    assert llama_capi.CONTEXT_PARAMS.mismatches(raw) == []
    shifted = bytes(4) + raw[:-4]  # what a field inserted at the front would look like
    assert llama_capi.CONTEXT_PARAMS.mismatches(shifted)
    fields = dict(llama_capi.CONTEXT_PARAMS.fields)
    fields["kv_unified"] = llama_capi.Field(0x8C, "?", False)  # a wrong offset
    monkeypatch.setattr(llama_capi, "CONTEXT_PARAMS", llama_capi.Layout("llama_context_params", 168, fields))
    with pytest.raises(EvaluationFailure, match="kv_unified@0x8c"):
        llama_capi.Library(lib.path)
