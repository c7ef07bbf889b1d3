"""Server access (evaluators/models/backends/server.py) against the scripted stand-in.

The stand-in plays answers and router mode; tests/test_server_llamacpp.py covers the same
plumbing against a real llama.cpp server.
"""

from __future__ import annotations

import re
import time

import pytest

from evaluators.core.errors import BadInput
from evaluators.core.http import RetryPolicy, normalize_base_url
from evaluators.core.text import split_reasoning
from evaluators.models.backends.base import GenerationRequest
from evaluators.models.backends.discovery import (
    ServerOptions,
    ServerUnavailable,
    choose_model,
    ctx_from_args,
    discover,
)
from evaluators.models.backends.server import ServerBackend
from evaluators.models.backends.server_configs import note_server_change, record_server_config, server_history
from evaluators.store.records import RunRow
from evaluators.store.store import Store
from tests.mock_openai import MockOpenAI, ModelSpec, Reply, Rule

FAST = RetryPolicy(attempts=3, base_s=0.01, max_s=0.02)


def ask(text: str, **kw) -> GenerationRequest:
    return GenerationRequest(messages=({"role": "user", "content": text},), max_tokens=64, **kw)


@pytest.mark.parametrize("given,expected", [
    ("127.0.0.1:8080", "http://127.0.0.1:8080"),
    ("http://h:1/v1", "http://h:1"),
    ("http://h:1/v1/", "http://h:1"),
    ("http://h:1/v1/chat/completions", "http://h:1"),
    ("https://h/proxy/v1/completions", "https://h/proxy"),
])
def test_normalize_base_url(given, expected):
    assert normalize_base_url(given) == expected


def test_normalize_base_url_rejects_garbage_and_credentials():
    with pytest.raises(BadInput):
        normalize_base_url("ftp://x")
    with pytest.raises(BadInput, match="BANANABENCH_API_KEY") as err:
        normalize_base_url("http://user:hunter2@host:8080/v1")
    assert "hunter2" not in str(err.value)


M = [{"id": "qwen-8b.gguf", "status": {"value": "loaded"}}, {"id": "gemma-4b.gguf", "status": {"value": "unloaded"}}]


@pytest.mark.parametrize("entries,model_id,name,expected", [
    ([{"id": "only"}], None, None, ("only", "the only model")),
    ([{"id": "only"}], None, "unrelated", ("only", "the only model")),
    (M, None, None, ("qwen-8b.gguf", "the loaded model")),
    (M, "gemma-4b.gguf", None, ("gemma-4b.gguf", "--model-id")),
    ([{"id": "a", "aliases": ["alias-a"]}, {"id": "b"}], "alias-a", None, ("a", "--model-id")),
    ([{"id": "Qwen3-8B-Q4_K_M.gguf"}, {"id": "gemma-3-4b.gguf"}], None, "qwen3-8b", ("Qwen3-8B-Q4_K_M.gguf", "matches --name")),
    ([{"id": "file-a"}, {"id": "file-b"}], None, "FILE_B", ("file-b", "matches --name")),
    ([], "anything", None, ("anything", "--model-id")),
])
def test_choose_model(entries, model_id, name, expected):
    assert choose_model(entries, model_id, name) == expected


@pytest.mark.parametrize("entries,model_id,name,needle", [
    ([{"id": "a"}, {"id": "b"}], None, None, "a, b"),
    ([{"id": "a", "status": {"value": "loaded"}}, {"id": "b", "status": {"value": "loaded"}}], None, "c",
     "a (loaded), b (loaded)"),
    ([{"id": "model-x"}, {"id": "model-y"}], None, "model", "--model-id"),
    ([{"id": "a"}], "zzz", None, "does not offer it"),
    ([], None, None, "lists no models"),
])
def test_choose_model_refuses_unclear_choices(entries, model_id, name, needle):
    with pytest.raises(BadInput, match=re.escape(needle)):
        choose_model(entries, model_id, name)


@pytest.mark.parametrize("args,expected", [
    (["llama-server", "-c", "8192", "-np", "2"], 4096),
    (["llama-server", "--ctx-size", "8192", "--parallel", "4"], 2048),
    (["llama-server", "--ctx-size=16384", "--parallel=2"], 8192),
    (["llama-server", "-c", "8192", "-np", "2", "--kv-unified"], 8192),
    (["llama-server", "-c", "8192", "-np", "2", "-kvu"], 8192),
    (["llama-server", "-c", "65536"], 65536),
    (["llama-server", "-ctx", "4096", "-np", "-1"], 4096),
    (["llama-server", "-c", "0", "-np", "2"], None),
    (["llama-server", "-np", "2"], None),
    (["llama-server", "-c", "lots"], None),
])
def test_ctx_from_args(args, expected):
    got = ctx_from_args(args)
    assert (got[0] if got else None) == expected


@pytest.mark.parametrize("text,answer,reasoning", [
    ("The answer is B", "The answer is B", ""),
    ("<think>hmm, maybe A</think>The answer is B", "The answer is B", "hmm, maybe A"),
    ("<think>a</think>x<think>b</think>y", "xy", "a\nb"),
    ("<think>still thinking when the budget ran out", "", "still thinking when the budget ran out"),
    ("opened by the template</think>\nThe answer is C", "The answer is C", "opened by the template"),
    ("<thinking>t</thinking> 42", "42", "t"),
    ("", "", ""),
    (None, "", ""),
])
def test_split_reasoning(text, answer, reasoning):
    assert split_reasoning(text) == (answer, reasoning)


# -- discovery -------------------------------------------------------------------------------------


def test_discover_single_mode_props_and_fingerprint():
    with MockOpenAI(models=[ModelSpec(id="tiny.gguf", n_ctx=2048, slots=3)]) as mock:
        info = discover(mock.base_url + "/v1")
        again = discover(mock.base_url)
    assert (info.mode, info.model_id, info.model_choice) == ("single", "tiny.gguf", "the only model")
    assert (info.ctx, info.n_slots) == (2048, 3)
    assert info.ctx_source == "/props?model=tiny.gguf (n_ctx)"
    assert info.fingerprint == again.fingerprint and len(info.fingerprint) == 16
    assert info.config()["props"]["total_slots"] == 3 and info.config()["slots"][0]["n_ctx"] == 2048
    assert "context 2048 tokens (from /props" in info.startup_line()
    with MockOpenAI(models=[ModelSpec(id="tiny.gguf", n_ctx=4096, slots=3)]) as mock:
        assert discover(mock.base_url).fingerprint != info.fingerprint


def test_discover_ctx_sources_in_order():
    with MockOpenAI(models=[ModelSpec(id="m", n_ctx=1000)]) as mock:
        info = discover(mock.base_url, ctx=777)
        assert (info.ctx, info.ctx_source) == (777, "--ctx")
    with MockOpenAI(models=[ModelSpec(id="m", n_ctx=1000, slots=2)], disable={"/props"}) as mock:
        info = discover(mock.base_url)
        assert (info.ctx, info.ctx_source, info.mode, info.n_slots) == (1000, "/slots (n_ctx)", "openai", 2)
    with MockOpenAI(models=[ModelSpec(id="m")], disable={"/props", "/slots"}) as mock:
        with pytest.raises(BadInput, match="pass --ctx"):
            discover(mock.base_url)
        assert discover(mock.base_url, ctx=512).ctx == 512


def test_discover_router_mode_args_preset_and_choice():
    models = [ModelSpec(id="big", status="unloaded", args=["llama-server", "-c", "32768", "-np", "4"]),
              ModelSpec(id="small", status="loaded", args=["llama-server", "-c", "8192", "-np", "2"], preset="[small]\nc = 8192")]
    with MockOpenAI(models=models, router=True, autoload=False, disable={"/props"}) as mock:
        info = discover(mock.base_url)
        assert (info.mode, info.model_id, info.model_choice) == ("router", "small", "the loaded model")
        assert (info.ctx, info.ctx_source) == (4096, "router launch args (-c 8192 / -np 2)")
        assert info.preset == "[small]\nc = 8192" and info.args[-1] == "2"
        assert info.config()["router_models"]["data"][0]["id"] == "big"
        # An unloaded model has no launch args and /slots refuses to autoload it: ask for --ctx.
        with pytest.raises(BadInput, match="--ctx"):
            discover(mock.base_url, model_id="big")
        assert discover(mock.base_url, model_id="big", ctx=16384).ctx_source == "--ctx"
        with pytest.raises(BadInput, match="--model-id"):
            discover(mock.base_url, model_id="nope")


def test_discover_router_props_per_model_and_ambiguity():
    models = [ModelSpec(id="org/model-a:Q4", n_ctx=3000), ModelSpec(id="org/model-b:Q8", n_ctx=5000)]
    with MockOpenAI(models=models, router=True) as mock:
        with pytest.raises(BadInput, match="org/model-a:Q4 \\(loaded\\), org/model-b:Q8 \\(loaded\\)"):
            discover(mock.base_url)
        info = discover(mock.base_url, name="model-b")
        assert (info.model_id, info.ctx, info.model_choice) == ("org/model-b:Q8", 5000, "matches --name")
        props_calls = [r.query for r in mock.requests if r.path == "/props"]
        assert props_calls[-1] == {"model": "org/model-b:Q8"}


def test_discover_server_down_is_an_infrastructure_failure():
    with MockOpenAI() as mock:
        url = mock.base_url
    with pytest.raises(ServerUnavailable, match="cannot reach") as err:
        discover(url, connect_wait_s=0.3)
    assert err.value.exit_code == 3


def test_discover_waits_while_the_model_loads():
    with MockOpenAI(health_failures=2) as mock:
        assert discover(mock.base_url, load_wait_s=5).model_id == "mock-model"
        assert [r.path for r in mock.requests].count("/health") == 3


# -- generation ------------------------------------------------------------------------------------


def test_generate_concurrency_is_bounded_by_slots():
    with MockOpenAI(models=[ModelSpec(slots=3)], default=Reply(content="ok", delay_s=0.5)) as mock:
        backend = ServerBackend(discover(mock.base_url), retry=FAST)
        results = dict(backend.generate([ask(f"q{i}") for i in range(9)]))
    assert sorted(results) == list(range(9)) and all(r.text == "ok" for r in results.values())
    assert mock.max_in_flight == 3
    with MockOpenAI(default=Reply(content="ok", delay_s=0.05)) as mock:
        backend = ServerBackend(discover(mock.base_url), concurrency=1, retry=FAST)
        list(backend.generate([ask("a"), ask("b"), ask("c")]))
    assert mock.max_in_flight == 1


@pytest.mark.parametrize("stream", [True, False])
def test_generate_keeps_reasoning_apart(stream):
    replies = [Reply(reasoning="The question asks... B fits.", content="The answer is B"),
               Reply(content="<think>weighing A against C</think>The answer is C"),
               Reply(reasoning="thinking until the budget runs out", content="", finish_reason="length")]
    with MockOpenAI(replies) as mock:
        backend = ServerBackend(discover(mock.base_url), concurrency=1, retry=FAST, stream=stream)
        results = [r for _, r in sorted(backend.generate([ask("a"), ask("b"), ask("c")]))]
        body = mock.generation_requests()[0].body
    assert (results[0].text, results[0].reasoning) == ("The answer is B", "The question asks... B fits.")
    assert (results[1].text, results[1].reasoning) == ("The answer is C", "weighing A against C")
    assert results[1].raw["content"].startswith("<think>")
    assert (results[2].text, results[2].finish_reason, results[2].error) == ("", "length", None)
    assert all(r.tokens_out and r.tokens_in for r in results)
    assert body["temperature"] == 0.0 and body["max_tokens"] == 64 and body["model"] == "mock-model"
    assert body.get("stream", False) is stream
    if stream:
        assert body["stream_options"] == {"include_usage": True}
        assert results[0].timings["ttft_s"] >= 0 and results[0].timings["predicted_per_second"] > 0


def test_generate_request_fields_and_raw_prompt():
    with MockOpenAI(default="fine") as mock:
        backend = ServerBackend(discover(mock.base_url), retry=FAST)
        req = GenerationRequest(prompt="Once upon a time", max_tokens=5, stop=("\n",), seed=7, top_p=0.9,
                                extra={"chat_template_kwargs": {"enable_thinking": False}})
        [(_, result)] = list(backend.generate([req]))
        body = mock.generation_requests()[0]
    assert result.text == "fine"
    assert body.path == "/v1/completions"
    assert body.body["stop"] == ["\n"] and body.body["seed"] == 7 and body.body["top_p"] == 0.9
    assert body.body["chat_template_kwargs"] == {"enable_thinking": False}


def test_generate_collects_streamed_tool_calls():
    reply = Reply(content="", tool_calls=[{"name": "read", "arguments": {"path": "a.py"}},
                                         {"name": "bash", "arguments": {"command": "ls"}}])
    with MockOpenAI([reply]) as mock:
        [(_, result)] = list(ServerBackend(discover(mock.base_url), retry=FAST).generate([ask("x")]))
    calls = result.raw["tool_calls"]
    assert [c["name"] for c in calls] == ["read", "bash"] and calls[0]["arguments"] == '{"path": "a.py"}'
    assert result.finish_reason == "tool_calls"


def test_transient_failures_are_retried():
    replies = [Reply(status=500, error="boom"), Reply(content="x" * 50, drop_after=2), Reply(content="The answer is A")]
    with MockOpenAI(replies) as mock:
        [(_, result)] = list(ServerBackend(discover(mock.base_url), retry=RetryPolicy(4, 0.01, 0.02)).generate([ask("q")]))
    assert (result.text, result.error, result.raw["attempts"]) == ("The answer is A", None, 3)


def test_idle_timeout_is_retried():
    replies = [Reply(content="late", delay_s=2.0), Reply(content="on time")]
    with MockOpenAI(replies) as mock:
        backend = ServerBackend(discover(mock.base_url), retry=FAST, idle_timeout_s=0.3)
        [(_, result)] = list(backend.generate([ask("q")]))
    assert result.text == "on time" and result.raw["attempts"] == 2


def test_persistent_and_permanent_failures_become_errors():
    rules = [Rule(match="always 500", reply=Reply(status=500, error="kaput")),
             Rule(match="bad request", reply=Reply(status=400, error="context too long"))]
    with MockOpenAI(rules=rules, default="fine") as mock:
        backend = ServerBackend(discover(mock.base_url), concurrency=1, retry=FAST)
        results = dict(backend.generate([ask("always 500"), ask("bad request"), ask("ok")]))
        n_requests = len(mock.generation_requests())
    assert results[0].text is None and "HTTP 500: kaput (after 3 attempts)" == results[0].error
    assert results[1].error == "HTTP 400: context too long (after 1 attempt)"
    assert results[2].text == "fine" and results[2].error is None
    assert n_requests == 3 + 1 + 1


def test_server_going_away_stops_the_batch():
    with MockOpenAI(default=Reply(content="ok", delay_s=0.02)) as mock:
        backend = ServerBackend(discover(mock.base_url), concurrency=1, retry=FAST, max_consecutive_failures=2)
        gen = backend.generate([ask(f"q{i}") for i in range(50)])
        first = [next(gen) for _ in range(3)]
    assert all(r.text == "ok" for _, r in first)
    seen = []
    t0 = time.monotonic()
    with pytest.raises(ServerUnavailable, match="2 requests in a row failed"):
        for item in gen:
            seen.append(item)
    assert time.monotonic() - t0 < 10
    assert 1 <= len(seen) <= 3 and all(r.error for _, r in seen)


# -- the store -------------------------------------------------------------------------------------


def test_server_configs_and_history_in_the_store(tmp_path):
    store = Store(tmp_path / "results")
    with MockOpenAI(models=[ModelSpec(id="m", n_ctx=2048)]) as mock:
        first = discover(mock.base_url)
    with MockOpenAI(models=[ModelSpec(id="m", n_ctx=4096)]) as mock:
        second = discover(mock.base_url)
    for info, run_id in ((first, "r1"), (first, "r2"), (second, "r3")):
        record_server_config(store, info)
        store.insert_run(RunRow(run_id=run_id, evaluator="chat", benchmark="b", model_name="m", status="finished",
                                started_at=_at(run_id), extra={"server_fingerprint": info.fingerprint}))
    store.upsert("attempts", [{"run_id": "r3", "item_id": "x", "attempt": 1, "status": "correct",
                               "started_at": _at("r4"), "extra": {"server_fingerprint": first.fingerprint}}])
    history = server_history(store, "m")
    assert [h["fingerprint"] for h in history] == [first.fingerprint, second.fingerprint]
    assert history[0]["runs"] == ["r1", "r2", "r3"] and history[1]["runs"] == ["r3"]
    assert history[1]["config"]["props"]["default_generation_settings"]["n_ctx"] == 4096
    assert server_history(store, "other") == []
    # The latest configuration seen for "m" is `first` (attempt r3/x); coming back with `second` is a change.
    changes = note_server_change(store, "m", second)
    assert "ctx: 2048 -> 4096" in changes and "props.default_generation_settings changed" in changes
    assert note_server_change(store, "m", first) == []


def _at(run_id: str):
    import datetime as dt

    return dt.datetime(2026, 1, 1) + dt.timedelta(hours=int(run_id[1:]))


def test_api_key_comes_from_the_named_variable_or_the_defaults(monkeypatch):
    from evaluators.core.errors import BadInput
    from evaluators.core.secrets import api_key_from_env, scrub_text

    for name in ("BANANABENCH_API_KEY", "OPENAI_API_KEY", "MY_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert api_key_from_env() is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-0000")
    assert api_key_from_env() == "sk-openai-0000"
    monkeypatch.setenv("BANANABENCH_API_KEY", "sk-banana-1111")
    assert api_key_from_env() == "sk-banana-1111"  # ours first
    with pytest.raises(BadInput, match="MY_KEY"):
        api_key_from_env("MY_KEY")
    monkeypatch.setenv("MY_KEY", "sk-mine-2222")
    assert api_key_from_env("MY_KEY") == "sk-mine-2222"
    assert "sk-mine-2222" not in scrub_text("calling with sk-mine-2222")


def test_router_replicas_match_though_each_gave_its_model_another_port():
    def router(port: str, ctx: str = "4096") -> MockOpenAI:
        args = ["-m", "/models/m.gguf", "-c", ctx, "--port", port, "--host", "127.0.0.1"]
        return MockOpenAI(models=[ModelSpec(id="m", args=args)], router=True, default="hi")

    with router("41001") as a, router("41002") as b:
        info = ServerOptions(base_url=[a.base_url, b.base_url]).discover()
        assert (info.mode, info.urls) == ("router", [a.base_url, b.base_url])
    with router("41001") as a, router("41003", ctx="8192") as b:
        with pytest.raises(BadInput, match=r"differs from .*args.*8192") as refused:
            ServerOptions(base_url=[a.base_url, b.base_url]).discover()
    assert "41003" not in str(refused.value)  # the port is not configuration
