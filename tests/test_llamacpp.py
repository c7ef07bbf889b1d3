"""llama.cpp server from the xllamacpp wheel: GGUF/transformers parity, lifecycle, no orphans, `models serve`."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from evaluators.core.errors import BadInput
from evaluators.models.llamacpp import LlamaServer
from tests.conftest import REPO, cli_env

TEXTS = [
    "The river starts high in the hills, where snow melts slowly through the spring.",
    "def add(a, b):\n    return a + b\n\nprint(add(2, 40))  # 42",
    "Question: What is 17 x 3?\nAnswer: 51. Café, naïve, 東京 🍌",
]


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie left for an absent reaper counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def _wait_gone(pid: int, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(scope="module")
def hf(tiny_model):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_model["path"])
    model = AutoModelForCausalLM.from_pretrained(tiny_model["path"], dtype=torch.float32).eval()
    return tok, model


def test_gguf_logits_match_transformers(tiny_model, hf):
    """Full next-token distributions from llama.cpp (f32, exact) equal transformers' at every position."""
    import torch

    tok, model = hf
    vocab = tiny_model["vocab_size"]
    # A lone partial UTF-8 byte as the top token makes the server drop its probabilities; banning those
    # ids from sampling leaves the reported (pre-sampling) log-probs untouched.
    partial = [i for i in range(vocab) if "\ufffd" in tok.decode([i])]
    worst = 0.0
    with LlamaServer(tiny_model["gguf"], n_ctx=512, threads=1) as srv:
        for text in TEXTS:
            ids = tok(text, add_special_tokens=False).input_ids
            with torch.no_grad():
                ref = torch.log_softmax(model(torch.tensor([ids])).logits[0].double(), dim=-1)
            for n in range(1, len(ids) + 1):
                out = srv.client.post("/completion", {
                    "prompt": ids[:n], "n_predict": 1, "n_probs": vocab, "temperature": 0,
                    "cache_prompt": True, "logit_bias": [[i, False] for i in partial],
                })
                top = out["completion_probabilities"][0]["top_logprobs"]
                got = torch.full((vocab,), float("nan"), dtype=torch.float64)
                for entry in top:
                    got[entry["id"]] = entry["logprob"]
                assert not torch.isnan(got).any(), f"server returned {len(top)} of {vocab} log-probs"
                assert int(got.argmax()) == int(ref[n - 1].argmax())
                worst = max(worst, float((got - ref[n - 1]).abs().max()))
    print(f"max |log p(gguf) - log p(transformers)| = {worst:.2e}")
    assert worst <= 1e-4


def test_gguf_tokenizes_like_transformers(tiny_model, hf):
    tok, _ = hf
    texts = [*TEXTS, " continuation", "  two  spaces\tand\ttabs\n\n", "<|im_start|>user\nHi<|im_end|>", "x" * 300]
    with LlamaServer(tiny_model["gguf"], n_ctx=512, threads=1) as srv:
        for text in texts:
            for special in (False, True):
                got = srv.client.post("/tokenize", {"content": text, "add_special": special})["tokens"]
                assert got == tok(text, add_special_tokens=special).input_ids, (text, special)
        chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
        rendered = srv.client.post("/apply-template", {"messages": chat})["prompt"]
        assert tok.bos_token + rendered == tok.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        models = srv.client.get("/v1/models")
        assert models["data"][0]["id"] == "model.gguf"


def test_server_stops_after_the_block_even_on_error(tiny_model):
    with pytest.raises(RuntimeError, match="test failure"):
        with LlamaServer(tiny_model["gguf"], n_ctx=256, alias="tiny", parallel=2, threads=1) as srv:
            pid, url = srv.pid, srv.base_url
            assert srv.client.get("/v1/models")["data"][0]["id"] == "tiny"
            assert srv.client.get("/props")["total_slots"] == 2
            raise RuntimeError("test failure")
    assert _wait_gone(pid, timeout=1)
    assert not srv.running
    with pytest.raises(OSError):
        urllib.request.urlopen(url + "/health", timeout=2)


def test_no_orphan_when_the_parent_is_killed(tiny_model):
    code = ("import sys, time; from evaluators.models.llamacpp import LlamaServer; "
            "s = LlamaServer(sys.argv[1], n_ctx=256, threads=1).start(); print(s.pid, flush=True); time.sleep(600)")
    parent = subprocess.Popen([sys.executable, "-c", code, tiny_model["gguf"]], env=cli_env(), cwd=REPO,
                              stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        assert _alive(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert _wait_gone(child), "the llama.cpp server outlived its killed parent"
    finally:
        parent.kill()
        parent.wait()
        parent.stdout.close()


def test_bad_inputs_are_refused_clearly(tiny_model, tmp_path):
    with pytest.raises(BadInput, match="no such GGUF file"):
        LlamaServer(tmp_path / "missing.gguf")
    fake = tmp_path / "fake.gguf"
    fake.write_text("not a model")
    with pytest.raises(BadInput, match="not a GGUF file"):
        LlamaServer(fake)
    with pytest.raises(BadInput, match="no attribute 'no_such_field'"):
        LlamaServer(tiny_model["gguf"], extra_args=["no_such_field=1"]).start()
    with pytest.raises(BadInput, match="expected NAME=VALUE"):
        LlamaServer(tiny_model["gguf"], extra_args=["n_batch"])


def test_extra_args_reach_llama_cpp(tiny_model):
    with LlamaServer(tiny_model["gguf"], n_ctx=256, threads=1, extra_args=["sampling.top_k=7", "n_batch=64"]) as srv:
        assert srv.client.get("/props")["default_generation_settings"]["params"]["top_k"] == 7


def test_models_serve_cli_until_sigterm(tiny_model):
    proc = subprocess.Popen([sys.executable, "-m", "evaluators", "models", "serve", tiny_model["gguf"],
                             "--port", "0", "--alias", "tiny-demo", "--ctx", "512", "--exact", "--threads", "1"],
                            env=cli_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("serving model.gguf as 'tiny-demo' at http://127.0.0.1:"), line
        url = line.split(" at ", 1)[1].split()[0]
        with urllib.request.urlopen(url + "/v1/models", timeout=10) as resp:
            assert json.load(resp)["data"][0]["id"] == "tiny-demo"
        body = json.dumps({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4}).encode()
        req = urllib.request.Request(url + "/v1/chat/completions", body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert json.load(resp)["usage"]["completion_tokens"] >= 1
        children = [int(p) for p in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]
        assert len(children) == 1
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "stopped" in out
        assert _wait_gone(children[0], timeout=1)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_models_serve_cli_bad_file_exits_2(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "evaluators", "models", "serve", str(tmp_path / "nope.gguf")],
                          env=cli_env(), cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "nope.gguf: no such GGUF file" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
