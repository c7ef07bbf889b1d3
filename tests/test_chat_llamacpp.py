"""Chat plumbing against a real llama.cpp server (xllamacpp) on the tiny GGUF model.

Discovery and fingerprint, concurrency over the server's slots, kill -9 then --resume, the
lm-eval shim, and the demo step. The tiny model's answers are noise; what is checked is the
machinery around them.
"""

from __future__ import annotations

import http.client
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from evaluators.chat.shim import Shim
from evaluators.models.backends.base import GenerationRequest
from evaluators.models.backends.discovery import discover
from evaluators.models.backends.server import ServerBackend
from evaluators.models.llamacpp import LlamaServer
from evaluators.store.store import Store
from tests.conftest import REPO, cli_env, run_cli

SAMPLES_DIR = REPO / "tasks" / "samples" / "chat"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tiny_model):
    # One thread: on a loaded 2-core machine more llama.cpp threads spin-wait and answer ~10x slower.
    with LlamaServer(tiny_model["gguf"], n_ctx=2048, parallel=2, alias="tiny", threads=1) as srv:
        yield srv


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


def post_json(url: str, body: dict):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())


def test_discovery_and_fingerprint(server, tiny_model):
    info = discover(server.base_url + "/v1", name="whatever")
    assert (info.mode, info.model_id, info.model_choice) == ("single", "tiny", "the only model")
    assert (info.ctx, info.ctx_source, info.n_slots) == (1024, "/props?model=tiny (n_ctx)", 2)
    assert info.model_path.endswith("model.gguf") and info.build_info
    assert info.config()["slots"][0]["n_ctx"] == 1024
    busy = threading.Thread(target=post_json, args=(server.base_url + "/v1/chat/completions",
                            {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 64}))
    busy.start()
    again = discover(server.base_url)  # slot state changes; the configuration does not
    busy.join()
    assert again.fingerprint == info.fingerprint
    with LlamaServer(tiny_model["gguf"], n_ctx=1024, parallel=2, alias="tiny", threads=1) as other:
        changed = discover(other.base_url)
    assert changed.ctx == 512 and changed.fingerprint != info.fingerprint


def test_a_restarted_server_with_the_same_configuration_has_the_same_fingerprint(tiny_model):
    """llama.cpp draws a random `media_marker` per start: it is state, not configuration."""
    seen = []
    for _ in range(2):
        with LlamaServer(tiny_model["gguf"], n_ctx=512, alias="tiny", threads=1) as srv:
            seen.append(discover(srv.base_url))
    assert seen[0].props["media_marker"] != seen[1].props["media_marker"]
    assert seen[0].fingerprint == seen[1].fingerprint


def test_generation_runs_on_all_slots_at_once(server):
    info = discover(server.base_url)
    backend = ServerBackend(info)
    assert backend.concurrency == 2
    seen_busy = 0
    stop = threading.Event()

    def watch() -> None:
        nonlocal seen_busy
        while not stop.is_set():
            slots = get_json(server.base_url + "/slots")
            seen_busy = max(seen_busy, sum(bool(s.get("is_processing")) for s in slots))
            time.sleep(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    reqs = [GenerationRequest(messages=({"role": "user", "content": f"Count to {n}"},), max_tokens=200,
                              extra={"ignore_eos": True}) for n in range(6)]
    results = dict(backend.generate(reqs))
    stop.set()
    watcher.join()
    assert sorted(results) == list(range(6)) and all(r.error is None for r in results.values())
    assert all(r.tokens_out == 200 and r.finish_reason == "length" for r in results.values())
    assert all(r.timings["predicted_per_second"] > 0 and r.timings["ttft_s"] >= 0 for r in results.values())
    assert seen_busy == 2


def _journal_lines(results: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in results.glob("runs/*/attempts.jsonl"))


def test_kill9_mid_run_then_resume_scores_every_doc_once(server, tmp_path):
    results = tmp_path / "results"
    args = ["chat", "run", "--task", "arc", "--base-url", server.base_url, "--name", "tiny-llama",
            "--data", str(SAMPLES_DIR), "--results", str(results), "--max-tokens", "160",
            "--extra-body", '{"ignore_eos": true}']
    proc = subprocess.Popen([sys.executable, "-m", "evaluators", *args], cwd=REPO, env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while _journal_lines(results) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    first = _journal_lines(results)
    assert 3 <= first < 12, "the run must be killed in the middle"

    resumed = run_cli(*args, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    store = Store(results)
    [run] = store.runs(benchmark="arc_challenge_chat")
    assert run.status == "finished"
    rows = store.attempts(run.run_id)
    assert len(rows) == 12 and len({r.item_id for r in rows}) == 12
    # ignore_eos: every answer runs into the budget, so each one is cut (or has no text at all)
    assert all(r.tokens_out == 160 and r.extra["finish_reason"] == "length" for r in rows)
    assert all(r.status in ("truncated", "unanswered") for r in rows)
    scores = {s.metric: s.value for s in store.scores(run.run_id) if s.scope == "overall"}
    assert scores["n_truncated"] + scores["n_unanswered"] == 12 and scores["n_error"] == 0
    assert f"resuming run {run.run_id}" in resumed.stderr
    rescore = run_cli("chat", "rescore", run.run_id, "--results", str(results))
    assert "0 of 12 verdicts changed" in rescore.stdout


def test_shim_translates_for_lm_eval_and_proxies_the_rest(server):
    props = get_json(server.base_url + "/props")
    with Shim(server.base_url) as shim:
        info = get_json(shim.base_url + "/tokenizer_info")
        assert info == {"bos_token": props["bos_token"], "eos_token": props["eos_token"],
                        "chat_template": props["chat_template"]}
        upstream_tokens = post_json(server.base_url + "/tokenize", {"content": "hello world"})["tokens"]
        tokens = post_json(shim.base_url + "/tokenize", {"prompt": "hello world", "add_special_tokens": False})
        assert tokens == {"tokens": upstream_tokens} and upstream_tokens
        with_bos = post_json(shim.base_url + "/tokenize", {"prompt": "hello world", "add_special_tokens": True})
        assert len(with_bos["tokens"]) == len(upstream_tokens) + 1
        assert post_json(shim.base_url + "/detokenize", {"tokens": upstream_tokens}) == {"prompt": "hello world"}

        body = {"model": "tiny", "prompt": "The river starts", "max_tokens": 5, "logprobs": 3, "temperature": 0}
        raw = post_json(server.base_url + "/v1/completions", body)
        legacy = post_json(shim.base_url + "/v1/completions", body)
        content = raw["choices"][0]["logprobs"]["content"]
        lp = legacy["choices"][0]["logprobs"]
        assert lp["tokens"] == [c["token"] for c in content] and len(lp["tokens"]) == 5
        assert lp["token_logprobs"] == pytest.approx([c["logprob"] for c in content])
        assert all(len(top) <= 3 and max(top.values()) >= chosen for top, chosen in
                   zip(lp["top_logprobs"], lp["token_logprobs"], strict=True))
        assert lp["text_offset"] == [sum(len(t) for t in lp["tokens"][:i]) for i in range(5)]
        assert legacy["choices"][0]["text"] == raw["choices"][0]["text"]

        # streamed completions: every chunk's log-probs in the legacy shape too
        conn = http.client.HTTPConnection("127.0.0.1", shim.port, timeout=60)
        conn.request("POST", "/v1/completions", json.dumps({**body, "stream": True}), {"Content-Type": "application/json"})
        events = [json.loads(line[6:]) for line in (raw_line.decode().strip() for raw_line in conn.getresponse())
                  if line.startswith("data: {")]
        conn.close()
        streamed = [e["choices"][0]["logprobs"] for e in events if e.get("choices") and e["choices"][0].get("logprobs")]
        assert streamed and all(set(lp) == {"tokens", "token_logprobs", "top_logprobs", "text_offset"} for lp in streamed)
        assert [t for lp in streamed for t in lp["tokens"]] == lp["tokens"]

        # everything else passes through unchanged, streams included
        assert get_json(shim.base_url + "/v1/models")["data"][0]["id"] == "tiny"
        conn = http.client.HTTPConnection("127.0.0.1", shim.port, timeout=60)
        conn.request("POST", "/v1/chat/completions", json.dumps(
            {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 8, "stream": True}),
            {"Content-Type": "application/json"})
        resp = conn.getresponse()
        lines = [line.decode().strip() for line in resp if line.strip()]
        conn.close()
        # a stream of events, not one body (the sampled tiny model may end before max_tokens)
        assert resp.status == 200 and lines[-1] == "data: [DONE]" and len(lines) >= 3
        assert all(line.startswith("data: ") for line in lines)
        conn = http.client.HTTPConnection("127.0.0.1", shim.port, timeout=60)
        conn.request("GET", "/no-such-endpoint")
        assert conn.getresponse().status == 404
        conn.close()


def _line_within(stream, deadline: float) -> str:
    """One line from a child's pipe, or AssertionError at the deadline (never a read that blocks forever)."""
    data = b""
    with selectors.DefaultSelector() as sel:
        sel.register(stream, selectors.EVENT_READ)
        while not data.endswith(b"\n"):
            assert time.monotonic() < deadline, f"no complete line before the deadline (got {data!r})"
            if sel.select(timeout=0.2):
                chunk = os.read(stream.fileno(), 4096)
                assert chunk, f"the process closed its output (got {data!r})"
                data += chunk
    return data.decode()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_shim_cli_serves_until_stopped(server, stop):
    proc = subprocess.Popen([sys.executable, "-m", "evaluators", "chat", "shim", "--upstream", server.base_url,
                             "--port", "0"], cwd=REPO, env=cli_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        line = _line_within(proc.stdout, time.monotonic() + 120)
        url = line.split("shim listening on ")[1].split(",")[0]
        assert get_json(url + "/tokenizer_info")["eos_token"]
        # A stop signal at any moment after the announcement ends the shim cleanly, even right away.
        proc.send_signal(stop)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, proc.stderr.read().decode()


def test_demo_step(tmp_path, tiny_model):
    from evaluators.chat import demo
    from evaluators.demo import DemoContext, DemoModel

    tiny = DemoModel("tiny-llama", Path(tiny_model["path"]), Path(tiny_model["gguf"]), threads=1, chat_tokens=48,
                     modes_tokens=24)
    ctx = DemoContext(store=Store(tmp_path / "results"), work=tmp_path, site=tmp_path / "site", main=tiny, tiny=tiny)
    demo.run(ctx)
    runs = ctx.store.runs(model="tiny-llama")
    assert sorted(r.benchmark for r in runs) == ["arc_challenge_chat", "mmlu_generative", "tinyGSM8k"]
    assert all(r.status == "finished" for r in runs) and len(ctx.notes) == 3
    assert [len(ctx.store.attempts(r.run_id)) for r in runs] == [demo.QUESTIONS] * 3
