"""The host-side filtering proxy on its unix socket, against the scripted stand-in (no containers)."""

from __future__ import annotations

import http.client
import json
import select
import socket
import time
from pathlib import Path

import pytest

from evaluators.agent.sandbox.proxy import ModelProxy
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


def _raw(proxy: ModelProxy) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(proxy.socket_path))       # blocking: waits for room in the listen queue
    sock.settimeout(10)
    return sock


def _status(sock: socket.socket) -> int | None:
    """The status code of the response on `sock`, None when the proxy closed without answering."""
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return int(data.split()[1]) if data.startswith(b"HTTP/") else None


def _head(length: str, path: str = "/v1/chat/completions", extra: str = "") -> bytes:
    return f"POST {path} HTTP/1.1\r\nHost: sandbox\r\nContent-Length: {length}\r\n{extra}\r\n".encode()


@pytest.mark.parametrize("length, extra, want", [
    ("-1", "", 400), ("1e3", "", 400), ("abc", "", 400), ("+5", "", 400), ("0x10", "", 400),
    ("5", "Content-Length: 6\r\n", 400), (str(64 << 20), "", 413), ("99999999999999999999", "", 413),
    ("5", "Transfer-Encoding: chunked\r\n", 411),
])
def test_bad_lengths_are_refused_before_reading(tmp_path: Path, length: str, extra: str, want: int):
    with ModelProxy(tmp_path / "s", "http://127.0.0.1:9", "m") as proxy:
        for path in ("/v1/chat/completions", "/v1/embeddings"):
            sock = _raw(proxy)
            sock.sendall(_head(length, path, extra))
            assert _status(sock) == want, (length, path)
            sock.close()
        assert proxy.traffic.requests == [] and proxy.traffic.buffered == 0


def test_a_negative_length_cannot_make_the_proxy_buffer_a_stream(tmp_path: Path):
    """Content-Length: -1 used to mean `read until the client stops`: the host buffered whatever came."""
    with ModelProxy(tmp_path / "s", "http://127.0.0.1:9", "m") as proxy:
        sock = _raw(proxy)
        sock.sendall(_head("-1"))
        sent, block = 0, b"x" * (1 << 20)
        try:
            while sent < (256 << 20):
                sock.sendall(block)
                sent += len(block)
        except OSError:
            pass                                   # the proxy answered and closed: the rest was never read
        assert _status(sock) in (400, None) and sent < (32 << 20), sent
        sock.close()


def _closed_by_the_peer(socks: list[socket.socket], quiet_s: float) -> int:
    """How many of `socks` the other side closed (EOF), waiting until none has news for `quiet_s`: the
    connections it kept open are waited on together, not one timeout after another."""
    pending, closed = set(socks), 0
    while pending:
        ready, _, _ = select.select(list(pending), [], [], quiet_s)
        if not ready:
            break
        for sock in ready:
            pending.discard(sock)
            try:
                closed += sock.recv(1) == b""
            except OSError:
                pass
    return closed


def test_buffered_bytes_and_connections_are_bounded_per_attempt(tmp_path: Path):
    with MockOpenAI(models=[ModelSpec(id="m")]) as mock, ModelProxy(tmp_path / "s", mock.base_url, "m") as proxy:
        holders = []
        for _ in range(2):                         # two bodies of 30 MiB announced, one byte sent: 60 MiB held
            sock = _raw(proxy)
            sock.sendall(_head(str(30 << 20)) + b"{")
            holders.append(sock)
        deadline = time.monotonic() + 10
        while proxy.traffic.buffered < (60 << 20) and time.monotonic() < deadline:
            time.sleep(0.01)
        third = _raw(proxy)
        third.sendall(_head(str(30 << 20)) + b"{")
        assert _status(third) == 503               # the budget is spent: refused, not buffered
        third.close()
        flood = [_raw(proxy) for _ in range(40)]
        refused = _closed_by_the_peer(flood, quiet_s=0.5)
        assert refused >= 40 - (16 - 2) - 1 and proxy.traffic.refused_connections >= refused
        for sock in flood + holders:
            sock.close()
        while (proxy.traffic.buffered or proxy.traffic.connections) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert proxy.traffic.buffered == 0
        conn = UnixHTTPConnection(proxy.socket_path)
        conn.request("GET", "/v1/models")
        assert conn.getresponse().status == 200    # still serving
        conn.close()


def test_replicas_share_the_requests_and_a_dead_one_hands_them_to_the_other(tmp_path: Path):
    from evaluators.models.backends.replicas import ReplicaSet

    body = {"messages": [{"role": "user", "content": "hi"}]}
    with MockOpenAI(default=Reply(content="one"), models=[ModelSpec(id="m")]) as first, \
            MockOpenAI(default=Reply(content="two"), models=[ModelSpec(id="m")]) as second:
        urls = [first.base_url, second.base_url]
        replicas = ReplicaSet(urls, slots=1)
        with ModelProxy(tmp_path / "s", replicas, "m") as proxy:
            for _ in range(4):
                assert _post(proxy, "/v1/chat/completions", body)[0] == 200
            assert len(first.generation_requests()) == len(second.generation_requests()) == 2
            second.stop()
            for _ in range(3):
                status, data = _post(proxy, "/v1/chat/completions", body)
                assert status == 200 and json.loads(data)["choices"][0]["message"]["content"] == "one"
            assert not proxy.traffic.upstream_failures()
        down = {r["url"]: r["down"] for r in replicas.summary()}
    assert down[urls[0]] is None and "refused" in down[urls[1]]


def test_closing_the_proxy_cuts_a_request_still_open_upstream(tmp_path: Path):
    """A stopped attempt must not keep the server busy: its open request is cut when its proxy closes."""
    stalled = Reply(content="thinking", stall_s=120)
    with MockOpenAI(replies=[stalled]) as mock:
        proxy = ModelProxy(tmp_path / "s", mock.base_url, "mock-model").start()
        sock = _raw(proxy)
        body = json.dumps({"stream": True, "messages": [{"role": "user", "content": "go"}]}).encode()
        sock.sendall(_head(str(len(body))) + body)
        deadline = time.monotonic() + 30
        while mock.in_flight == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert mock.in_flight == 1
        proxy.close()
        deadline = time.monotonic() + 30
        while mock.in_flight and time.monotonic() < deadline:
            time.sleep(0.02)
        assert mock.in_flight == 0       # long before the 120 s stall would have ended
        sock.close()


@pytest.mark.parametrize("extra, why", [
    ("".join(f"X-Pad-{i}: {'y' * 60}\r\n" for i in range(80)), "header lines"),      # many small headers
    (f"X-Big: {'y' * (40 << 10)}\r\n", "bytes"),                                     # one huge header
    ("X-Endless: " + "y" * (200 << 10), "bytes"),                                    # a line that never ends
])
def test_request_heads_are_bounded_before_they_are_parsed(tmp_path: Path, extra: str, why: str):
    with MockOpenAI(models=[ModelSpec(id="m")]) as mock, ModelProxy(tmp_path / "s", mock.base_url, "m") as proxy:
        sock = _raw(proxy)
        try:
            sock.sendall(_head("0", "/v1/models", extra).replace(b"POST", b"GET"))
        except OSError:
            pass                                   # closed after the 431: the rest was never read
        data = b""
        try:
            while chunk := sock.recv(4096):
                data += chunk
        except OSError:
            pass
        sock.close()
        assert data.startswith(b"HTTP/1.1 431 ") and why.encode() in data, data[:200]
        assert proxy.traffic.n_requests == 0 and mock.requests == []
        assert len(proxy.traffic.denied) == 1 and proxy.traffic.denied[0].startswith("request head refused (431): ")
        assert why in proxy.traffic.denied[0]                    # named in the attempt's record, within its bound
        conn = UnixHTTPConnection(proxy.socket_path)             # an ordinary request still goes through
        conn.request("GET", "/v1/models", headers={f"X-Ok-{i}": "1" for i in range(20)})
        assert conn.getresponse().status == 200
        conn.close()


def test_refused_and_forwarded_requests_are_kept_up_to_a_bound_and_counted(tmp_path: Path, monkeypatch):
    from evaluators.agent.sandbox import proxy as proxy_mod
    monkeypatch.setattr(proxy_mod, "MAX_RECORDS", 3)
    with MockOpenAI(models=[ModelSpec(id="m")]) as mock, ModelProxy(tmp_path / "s", mock.base_url, "m") as proxy:
        for i in range(proxy_mod.MAX_LOGGED + 50):
            conn = UnixHTTPConnection(proxy.socket_path)
            conn.request("GET", f"/refused/{i}")
            assert conn.getresponse().status == 403
            conn.close()
        for _ in range(5):
            conn = UnixHTTPConnection(proxy.socket_path)
            conn.request("GET", "/v1/models")
            assert conn.getresponse().status == 200
            conn.close()
        summary = proxy.traffic.summary()
    assert len(summary["denied"]) == proxy_mod.MAX_LOGGED and summary["denied_not_listed"] == 50
    assert summary["llm_requests"] == 5 and summary["llm_requests_unmeasured"] == 2
    assert len(proxy.traffic.requests) == 3
