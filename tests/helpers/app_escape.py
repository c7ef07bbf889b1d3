"""A model-written app that tries every way out of a published page, and what sees it leave.

`escape_app` is the app: WebRTC (STUN over UDP, which CSP cannot stop) directly and through frames that
would bring the constructors back, fetch, an image, a beacon, a WebSocket, EventSource, and a stylesheet
through a link to `/` (`ln -s / h`) at a file of the publisher's machine. `Listeners` count what reaches a
UDP socket and an HTTP server of the test; `open_page` loads a page in Chromium (Debian's, through
Playwright) and returns the app's own report and every request that left the page.
"""

from __future__ import annotations

import contextlib
import http.server
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = next((p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium") if Path(p).exists()), None)

APP = """<!doctype html><title>rtc</title><link rel=stylesheet href="{stylesheet}">
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


def escape_app(udp: int | str, http: int | str, stylesheet: str) -> str:
    """The app's index.html: STUN to port `udp`, requests to port `http`, and a stylesheet at `stylesheet`."""
    return APP.format(udp=udp, http=http, stylesheet=stylesheet)


def assert_sealed(out: str) -> None:
    """The published app's report: no RTC constructor, no frame, no peer connection made."""
    assert "rtc:undefined:undefined:undefined" in out and "after-delete:undefined" in out, out
    assert "frame:gone" in out and "frames:0" in out and "made" not in out, out


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

    def reset(self) -> None:
        self.packets, self.hits[:] = 0, []

    def close(self):
        self.http.shutdown()
        self.udp.close()


@contextlib.contextmanager
def chromium() -> Iterator:
    """Debian's Chromium through Playwright (never `playwright install`)."""
    if CHROMIUM is None:
        pytest.fail("Chromium is missing: run `make system-deps` (Debian package `chromium`)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu",
                                                               "--disable-background-networking"])
        try:
            yield b
        finally:
            b.close()


@contextlib.contextmanager
def served(site: Path) -> Iterator[str]:
    """The published site over loopback HTTP (as GitHub Pages would serve it); yields its origin."""
    handler = type("Quiet", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             lambda *a: handler(*a, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()


def open_page(browser, url: str, frame: bool) -> tuple[str, list[str]]:
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


def left_the_page(requests: list[str], origin: str) -> list[str]:
    return [u for u in requests if not u.startswith((origin, "data:", "about:"))]
