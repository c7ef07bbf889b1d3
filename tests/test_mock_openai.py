"""The scripted stand-in behaves like llama-server where tests rely on it."""

from __future__ import annotations

import http.client
import json
import threading
import time
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest

from tests.mock_openai import MockOpenAI, MockProcess, ModelSpec, Reply, Rule


def get(url: str) -> tuple[int, object]:
    try:
        with urlopen(url, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except HTTPError as exc:
        return exc.code, json.loads(exc.read())


def post(url: str, body: dict) -> tuple[int, object]:
    req = Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except HTTPError as exc:
        return exc.code, json.loads(exc.read())


def stream(base_url: str, body: dict) -> tuple[list, bool]:
    """SSE events of a streamed request, and whether the stream ended cleanly with [DONE]."""
    host, port = base_url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", "/v1/chat/completions", json.dumps({**body, "stream": True}),
                 {"Content-Type": "application/json"})
    resp = conn.getresponse()
    events, done = [], False
    try:
        for raw in resp:
            line = raw.decode().strip()
            if not line.startswith("data: "):
                continue
            if line == "data: [DONE]":
                done = True
                continue
            events.append(json.loads(line[6:]))
    except http.client.IncompleteRead:
        pass
    finally:
        conn.close()
    return events, done


def chat(text: str) -> dict:
    return {"model": "mock-model", "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": text}]}


def test_queue_then_default_then_exhausted():
    with MockOpenAI(["first", Reply(content="second")]) as mock:
        assert post(mock.base_url + "/v1/chat/completions", chat("q"))[1]["choices"][0]["message"]["content"] == "first"
        assert post(mock.base_url + "/v1/chat/completions", chat("q"))[1]["choices"][0]["message"]["content"] == "second"
        status, body = post(mock.base_url + "/v1/chat/completions", chat("q"))
        assert status == 500 and "exhausted" in body["error"]["message"]
        mock.default = Reply(content="fallback")
        assert post(mock.base_url + "/v1/chat/completions", chat("q"))[1]["choices"][0]["message"]["content"] == "fallback"
        assert len(mock.generation_requests()) == 4
        assert mock.requests[0].body["messages"][1]["content"] == "q"


def test_rules_match_last_user_message_and_limits():
    rules = [Rule(match=r"capital of France", reply=Reply(content="Paris"), times=1),
             Rule(match=r"tool result 7", on="last", reply=[Reply(content="a"), Reply(content="b")])]
    with MockOpenAI(rules=rules, default="dunno") as mock:
        url = mock.base_url + "/v1/chat/completions"
        assert post(url, chat("What is the capital of France?"))[1]["choices"][0]["message"]["content"] == "Paris"
        assert post(url, chat("What is the capital of France?"))[1]["choices"][0]["message"]["content"] == "dunno"
        convo = {"messages": [{"role": "user", "content": "go"}, {"role": "tool", "content": "tool result 7"}]}
        outs = [post(url, convo)[1]["choices"][0]["message"]["content"] for _ in range(3)]
        assert outs == ["a", "b", "b"]


def test_streaming_reasoning_content_tool_calls_usage_and_timings():
    reply = Reply(reasoning="let me think", content="The answer is C",
                  tool_calls=[{"name": "bash", "arguments": {"command": "ls -la"}}], chunk_chars=4)
    with MockOpenAI([reply]) as mock:
        events, done = stream(mock.base_url, {**chat("q"), "stream_options": {"include_usage": True}})
    assert done
    deltas = [e["choices"][0]["delta"] for e in events if e["choices"]]
    reasoning = "".join(d.get("reasoning_content") or "" for d in deltas)
    content = "".join(d.get("content") or "" for d in deltas)
    args = "".join(tc["function"].get("arguments", "") for d in deltas for tc in d.get("tool_calls", []))
    assert reasoning == "let me think" and content == "The answer is C"
    assert json.loads(args) == {"command": "ls -la"}
    names = [tc["function"]["name"] for d in deltas for tc in d.get("tool_calls", []) if tc["function"].get("name")]
    assert names == ["bash"]
    finals = [e for e in events if e["choices"] and e["choices"][0]["finish_reason"]]
    assert finals[0]["choices"][0]["finish_reason"] == "tool_calls" and "predicted_per_second" in finals[0]["timings"]
    assert events[-1]["choices"] == [] and events[-1]["usage"]["completion_tokens"] > 0


def test_no_usage_chunk_without_include_usage():
    with MockOpenAI(["hello"]) as mock:
        events, done = stream(mock.base_url, chat("q"))
    assert done and all("usage" not in e for e in events)


def test_drop_mid_stream_and_error_status():
    with MockOpenAI([Reply(content="x" * 80, chunk_chars=8, drop_after=3), Reply(status=503, error="busy")]) as mock:
        events, done = stream(mock.base_url, chat("q"))
        assert not done and len(events) == 3
        status, body = post(mock.base_url + "/v1/chat/completions", chat("q"))
        assert status == 503 and body["error"]["message"] == "busy"


def test_runaway_stream_ends_when_client_leaves():
    with MockOpenAI([Reply(content="", repeat=-1, chunk_delay_s=0.001)]) as mock:
        host, port = mock.base_url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("POST", "/v1/chat/completions", json.dumps({**chat("q"), "stream": True}))
        resp = conn.getresponse()
        n = 0
        for raw in resp:
            n += raw.startswith(b"data: ")
            if n >= 200:
                break
        conn.close()
        assert n == 200
        deadline = time.monotonic() + 5
        while mock.in_flight and time.monotonic() < deadline:
            time.sleep(0.02)
        assert mock.in_flight == 0


def test_completions_endpoint_and_delays_overlap():
    with MockOpenAI(default=Reply(content="ok", delay_s=0.3)) as mock:
        status, body = post(mock.base_url + "/v1/completions", {"prompt": "Once upon", "max_tokens": 4})
        assert status == 200 and body["choices"][0]["text"] == "ok"
        threads = [threading.Thread(target=post, args=(mock.base_url + "/v1/chat/completions", chat("q")))
                   for _ in range(3)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert mock.max_in_flight == 3
        assert time.monotonic() - t0 < 0.9 * 3 * 0.3 + 0.5


def test_single_mode_discovery_documents():
    spec = ModelSpec(id="tiny.gguf", n_ctx=2048, slots=2)
    with MockOpenAI(models=[spec], health_failures=1) as mock:
        assert get(mock.base_url + "/health")[0] == 503
        assert get(mock.base_url + "/health") == (200, {"status": "ok"})
        assert get(mock.base_url + "/v1/models")[1]["data"][0]["id"] == "tiny.gguf"
        assert get(mock.base_url + "/models")[0] == 404
        props = get(mock.base_url + "/props?model=tiny.gguf")[1]
        assert props["default_generation_settings"]["n_ctx"] == 2048 and props["total_slots"] == 2
        assert [s["n_ctx"] for s in get(mock.base_url + "/slots")[1]] == [2048, 2048]


def test_router_mode_models_status_args_and_autoload():
    models = [ModelSpec(id="a", status="loaded", args=["llama-server", "-c", "8192", "-np", "2"]),
              ModelSpec(id="b", status="unloaded", args=["llama-server", "-c", "4096"])]
    with MockOpenAI(models=models, router=True, autoload=False, default="hi") as mock:
        listing = get(mock.base_url + "/models")[1]["data"]
        assert [(m["id"], m["status"]["value"]) for m in listing] == [("a", "loaded"), ("b", "unloaded")]
        assert listing[0]["status"]["args"][-1] == "2" and "args" not in listing[1]["status"]
        assert get(mock.base_url + "/props")[1]["role"] == "router"
        assert get(mock.base_url + "/props?model=b")[0] == 400
        assert get(mock.base_url + "/props?model=zzz")[0] == 400
        assert post(mock.base_url + "/v1/chat/completions", {**chat("q"), "model": "b"})[0] == 400
        assert get(mock.base_url + "/props?model=b&autoload=true")[0] == 200
        assert get(mock.base_url + "/models")[1]["data"][1]["status"]["value"] == "loaded"


def test_disabled_endpoints_answer_404():
    with MockOpenAI(disable={"/props", "/slots"}) as mock:
        assert get(mock.base_url + "/props")[0] == 404
        assert get(mock.base_url + "/slots")[0] == 404


@pytest.mark.parametrize("bad", [{"match": "x", "reply": {"nope": 1}}])
def test_bad_script_is_rejected(bad):
    with pytest.raises(ValueError, match="unknown reply fields"):
        Rule.from_dict(bad)


def test_subprocess_mode_with_control_endpoints(tmp_path):
    config = {"models": [{"id": "m1", "n_ctx": 1024}], "replies": ["one"]}
    with MockProcess(config, str(tmp_path)) as proc:
        assert post(proc.base_url + "/v1/chat/completions", chat("q"))[1]["choices"][0]["message"]["content"] == "one"
        post(proc.base_url + "/__mock__/script", {"rules": [{"match": "again", "reply": "two"}]})
        assert post(proc.base_url + "/v1/chat/completions", chat("again"))[1]["choices"][0]["message"]["content"] == "two"
        assert [r["path"] for r in proc.requests()] == ["/v1/chat/completions", "/v1/chat/completions"]
        proc.kill()
        with pytest.raises(OSError):
            urlopen(proc.base_url + "/health", timeout=2)
