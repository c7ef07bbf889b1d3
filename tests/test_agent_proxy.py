"""The host-side filtering proxy on its unix socket, against the scripted stand-in (no containers)."""

from __future__ import annotations

import http.client
import json
import socket
from pathlib import Path

from evaluators.agent.proxy import ModelProxy
from tests.mock_openai import MockOpenAI, ModelSpec, Reply


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: Path):
        super().__init__("sandbox", timeout=30)
        self.path = str(path)

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def _post(proxy: ModelProxy, path: str, body: dict) -> tuple[int, bytes]:
    conn = UnixHTTPConnection(proxy.socket_path)
    conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, data


def test_streaming_usage_model_pin_and_filter(tmp_path: Path):
    replies = [Reply(content="hello world, how are you", chunk_chars=4, prompt_tokens=50, cached_tokens=10)]
    with MockOpenAI(replies=replies, models=[ModelSpec(id="real-model")]) as mock, \
            ModelProxy(tmp_path / "s", mock.base_url, "real-model") as proxy:
        status, data = _post(proxy, "/v1/chat/completions", {
            "model": "something-else", "stream": True, "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": "hi"}]})
        assert status == 200 and b"data: [DONE]" in data
        text = "".join(json.loads(line[5:])["choices"][0]["delta"].get("content") or ""
                       for line in data.decode().splitlines()
                       if line.startswith("data: {") and json.loads(line[5:]).get("choices"))
        assert text == "hello world, how are you"
        assert mock.generation_requests()[0].body["model"] == "real-model"      # pinned by the proxy
        denied, _ = _post(proxy, "/v1/embeddings", {"input": "x"})
        assert denied == 403
        summary = proxy.traffic.summary()
    assert summary["llm_requests"] == 1 and summary["llm_prompt_tokens"] == 50 and summary["llm_cached_tokens"] == 10
    assert summary["llm_completion_tokens"] > 0 and summary["decode_tps"] > 0 and summary["ttft_s"] is not None
    assert summary["max_chunks"] >= 6 and summary["denied"] == ["POST /v1/embeddings"]


def test_runaway_response_is_cut_off(tmp_path: Path):
    with MockOpenAI(replies=[Reply(content="x", repeat=-1)]) as mock, \
            ModelProxy(tmp_path / "s", mock.base_url, "mock-model", max_chunks=50) as proxy:
        status, data = _post(proxy, "/v1/chat/completions", {"stream": True, "messages": [
            {"role": "user", "content": "go"}]})
        assert status == 200 and data.count(b"data:") <= 51
        assert proxy.traffic.runaway and proxy.traffic.requests[0].cut_off


def test_upstream_down_is_a_502_and_recorded(tmp_path: Path):
    with ModelProxy(tmp_path / "s", "http://127.0.0.1:9", "m") as proxy:
        status, data = _post(proxy, "/v1/chat/completions", {"messages": []})
        assert status == 502 and b"upstream unreachable" in data
        assert len(proxy.traffic.upstream_failures()) == 1
