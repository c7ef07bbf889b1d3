"""A published app cannot reach out: no WebRTC (STUN over UDP, which CSP cannot stop), no frames that bring the
constructors back, no request of any kind; and no file of the publisher's machine is inlined through a link.

The app below tries all of it. Opened as the model wrote it, its STUN packets reach a UDP socket of this test
(so the test can fail); published, nothing reaches that socket or the HTTP listener, and the constructors are gone.
"""

from __future__ import annotations

import http.server
import socket
import threading
import time
from functools import partial
from pathlib import Path

import pytest

from evaluators.agent.attempts.attempt import _drop_links
from evaluators.store.store import Store
from tests.conftest import run_cli
from tests.helpers.publish_fixture import agent

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = next((p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium") if Path(p).exists()), None)
SECRET = "PUBLISHER-SECRET-7c1e"

APP = """<!doctype html><title>rtc</title><link rel=stylesheet href="h{secret}">
<h1>app</h1>
<script>
var out = [];
function note(s) {{ out.push(s); document.body.setAttribute("data-out", out.join(" ")); }}
function stun(C, tag) {{
  try {{
    var pc = new C({{iceServers: [{{urls: "stun:127.0.0.1:{udp}"}}]}});
    pc.createDataChannel("x");
    pc.createOffer().then(function (o) {{ return pc.setLocalDescription(o); }});
    note(tag + ":made");
  }} catch (e) {{ note(tag + ":" + e.name); }}
}}
note("rtc:" + typeof RTCPeerConnection + ":" + typeof webkitRTCPeerConnection + ":" + typeof RTCDataChannel);
if (typeof RTCPeerConnection === "function") stun(RTCPeerConnection, "direct");
try {{ delete window.RTCPeerConnection; }} catch (e) {{}}
note("after-delete:" + typeof RTCPeerConnection);
var f = document.createElement("iframe");
document.body.appendChild(f);
var w = f.contentWindow || window[0];
note("frame:" + (w ? typeof w.RTCPeerConnection : "gone"));
if (w && w.RTCPeerConnection) stun(w.RTCPeerConnection, "frame");
document.body.insertAdjacentHTML("beforeend", '<iframe srcdoc="<script>new RTCPeerConnection({{iceServers: [{{urls: &quot;stun:127.0.0.1:{udp}&quot;}}]}}).createOffer().then(function(){{}})<\\/script>"></iframe>');
fetch("http://127.0.0.1:{http}/fetch").catch(function () {{}});
new Image().src = "http://127.0.0.1:{http}/img";
try {{ navigator.sendBeacon("http://127.0.0.1:{http}/beacon", "x"); }} catch (e) {{}}
try {{ new WebSocket("ws://127.0.0.1:{http}/ws"); }} catch (e) {{}}
try {{ new EventSource("http://127.0.0.1:{http}/es"); }} catch (e) {{}}
</script>
<iframe srcdoc="<script>new RTCPeerConnection({{iceServers: [{{urls: &quot;stun:127.0.0.1:{udp}&quot;}}]}}).createDataChannel(&quot;y&quot;)</script>"></iframe>
<script>note("frames:" + document.querySelectorAll("iframe").length);</script>
"""


class Listeners:
    """A UDP socket (STUN's target) and an HTTP server that count whatever reaches them."""

    def __init__(self):
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp.settimeout(0.2)
        self.packets = 0
        self.hits: list[str] = []
        hits = self.hits

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                hits.append(self.path)
                self.send_response(204)
                self.end_headers()

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def ports(self) -> dict[str, int]:
        return {"udp": self.udp.getsockname()[1], "http": self.http.server_address[1]}

    def drain(self, seconds: float) -> int:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                self.udp.recvfrom(4096)
                self.packets += 1
            except TimeoutError:
                pass
        return self.packets

    def close(self):
        self.http.shutdown()
        self.udp.close()


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.fail("Chromium is missing: run `make system-deps` (Debian package `chromium`)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu",
                                                               "--disable-background-networking"])
        yield b
        b.close()


def _open(browser, url: str, frame: bool) -> tuple[str, list[str]]:
    """The app's own report (its data-out) and every request that left the page (not blocked inside it)."""
    context = browser.new_context()
    page = context.new_page()
    requests: list[str] = []
    page.on("requestfinished", lambda r: requests.append(r.url))
    page.on("requestfailed", lambda r: r.failure not in ("csp", "net::ERR_BLOCKED_BY_CSP") and requests.append(
        f"{r.url} ({r.failure})"))
    page.goto(url, wait_until="load")
    body = page.frame_locator("iframe.app-frame").locator("body") if frame else page.locator("body")
    body.wait_for(state="attached")
    page.wait_for_timeout(1500)
    out = body.get_attribute("data-out") or ""
    context.close()
    return out, requests


def test_a_published_app_has_no_webrtc_no_frames_and_sends_nothing(browser, tmp_path: Path):
    listeners = Listeners()
    secret = tmp_path / "outside" / "secret.css"
    secret.parent.mkdir()
    secret.write_text(f"/* {SECRET} */ body {{ color: red }}")
    results = tmp_path / "results"
    agent(Store(results), "rtc-model", seed=3)
    workspaces = sorted(results.rglob("frontend/kanban-board/attempt-*/workspace"))
    assert workspaces
    for ws in workspaces:
        (ws / "index.html").write_text(APP.format(secret=secret, **listeners.ports()))
        (ws / "h").symlink_to("/")
    try:
        # Control: the app as written does send STUN (and requests) from this browser.
        out, _ = _open(browser, (workspaces[0] / "index.html").as_uri(), frame=False)
        assert "direct:made" in out and listeners.drain(3) > 0, out
        assert listeners.hits
        listeners.packets, listeners.hits[:] = 0, []

        site = tmp_path / "site"
        done = run_cli("publish", "--results", str(results), "--out", str(site), "--include-apps")
        assert done.returncode == 0, done.stderr
        assert not [p for p in site.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
        apps = sorted((site / "apps").rglob("*.html"))
        assert apps
        handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
        handler.log_message = lambda *a: None
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        origin = f"http://127.0.0.1:{server.server_address[1]}/"
        try:
            for app in apps:
                out, requests = _open(browser, origin + app.relative_to(site).as_posix(), frame=True)
                assert "rtc:undefined:undefined:undefined" in out and "after-delete:undefined" in out, out
                assert "frame:gone" in out and "frames:0" in out and "made" not in out, out
                assert [u for u in requests if not u.startswith((origin, "data:", "about:"))] == []
        finally:
            server.shutdown()
        assert listeners.drain(3) == 0 and listeners.hits == []
    finally:
        listeners.close()


def test_kept_workspaces_lose_their_links(tmp_path: Path):
    ws = tmp_path / "workspace"
    (ws / "sub").mkdir(parents=True)
    (ws / "index.html").write_text("<h1>app</h1>")
    (ws / "h").symlink_to("/")
    (ws / "sub" / "passwd").symlink_to("/etc/passwd")
    (ws / "dangling").symlink_to(tmp_path / "nowhere")
    extra: dict = {}
    _drop_links(ws, extra)
    assert sorted(p.relative_to(ws).as_posix() for p in ws.rglob("*")) == ["index.html", "sub"]
    assert sorted(extra["workspace_links_dropped"]) == ["dangling", "h", "sub/passwd"]
