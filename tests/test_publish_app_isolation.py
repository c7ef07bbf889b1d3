"""A published app cannot reach out: no WebRTC (STUN over UDP, which CSP cannot stop), no frames that bring the
constructors back, no request of any kind; and no file of the publisher's machine is inlined through a link.

The app below tries all of it. Opened as the model wrote it, its STUN packets reach a UDP socket of this test
(so the test can fail); published, nothing reaches that socket or the HTTP listener, and the constructors are gone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluators.agent.attempts.attempt import _drop_links
from evaluators.store.store import Store
from tests.conftest import run_cli
from tests.helpers.app_escape import (
    Listeners,
    assert_sealed,
    chromium,
    escape_app,
    left_the_page,
    open_page,
    served,
)
from tests.helpers.publish_fixture import agent

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SECRET = "PUBLISHER-SECRET-7c1e"


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


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
        (ws / "index.html").write_text(escape_app(stylesheet=f"h{secret}", **listeners.ports()))
        (ws / "h").symlink_to("/")
    try:
        # Control: the app as written does send STUN (and requests) from this browser.
        out, _ = open_page(browser, (workspaces[0] / "index.html").as_uri(), frame=False)
        assert "direct:made" in out and listeners.drain(3) > 0, out
        assert listeners.hits
        listeners.reset()

        site = tmp_path / "site"
        done = run_cli("publish", "--results", str(results), "--out", str(site), "--include-apps")
        assert done.returncode == 0, done.stderr
        assert not [p for p in site.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
        apps = sorted((site / "apps").rglob("*.html"))
        assert apps
        with served(site) as origin:
            for app in apps:
                out, requests = open_page(browser, origin + app.relative_to(site).as_posix(), frame=True)
                assert_sealed(out)
                assert left_the_page(requests, origin) == []
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
