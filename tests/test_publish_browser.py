"""The published site in a real browser: Playwright driving Debian's Chromium, opened from disk.

Sorts and filters the leaderboard (mouse and keyboard), follows every internal link, opens a model
page, the gallery, a diff view, the compare picker and an item permalink, and proves that nothing
leaves the site (every request is routed and checked) and that HTML/JS in model names and outputs
stays text (no dialog, no inline script, no injected element). Screenshots go to
$BANANABENCH_SCREENSHOTS when set (else a temporary folder).
"""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urlparse

import pytest
from playwright.sync_api import expect

from evaluators.publish.diff import diff_models
from evaluators.publish.queries import Queries
from evaluators.store.store import Store
from tests.helpers.publish_fixture import XSS_NAME

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = next((p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium") if Path(p).exists()), None)
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]


class Watch:
    """Everything a page does that a static site must not: outside requests, dialogs, errors."""

    def __init__(self, site: Path, origin: str | None = None):
        self.site = site.resolve()
        self.origin = origin  # where the site is also served over HTTP, if it is
        self.outside: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.logged: list[str] = []  # every console message

    def route(self, route):
        url = route.request.url
        parsed = urlparse(url)
        inside = (parsed.scheme == "file" and Path(unquote(parsed.path)).resolve().is_relative_to(self.site)) or \
            (self.origin is not None and url.startswith(self.origin))
        if inside or parsed.scheme in ("data", "blob", "about"):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def site_errors(self) -> list[str]:
        """Errors outside app pages (an app's own blocked requests are expected and harmless)."""
        return [e for e in self.errors if "/apps/" not in e.split(": ", 1)[0]]

    def attach(self, page):
        def console(message):
            self.logged.append(message.text)
            if message.type == "error":
                self.errors.append(f"{page.url}: {message.text}")

        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: self.errors.append(f"{page.url}: {e}"))
        page.on("console", console)


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.fail("Chromium is missing: run `make system-deps` (Debian package `chromium`)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def session(browser, published_site):
    watch = Watch(published_site)
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.route("**/*", watch.route)
    page = context.new_page()
    watch.attach(page)
    yield page, watch
    context.close()
    assert watch.outside == [], f"requests left the site: {watch.outside}"
    assert watch.dialogs == [], f"a dialog opened (script ran): {watch.dialogs}"


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = Path(os.environ.get("BANANABENCH_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def url(site: Path, path: str) -> str:
    return (site / path).resolve().as_uri() if "#" not in path else \
        (site / path.split("#")[0]).resolve().as_uri() + "#" + path.split("#", 1)[1]


def no_injection(page) -> None:
    """No inline script, event-handler attribute or payload element made it into the DOM."""
    found = page.evaluate("""() => {
        const bad = [];
        for (const frame of [document]) {
            frame.querySelectorAll('script:not([src])').forEach(s => bad.push('inline script'));
            frame.querySelectorAll('*').forEach(el => {
                for (const a of el.attributes) { if (a.name.startsWith('on')) bad.push(el.tagName + ' ' + a.name); }
            });
            frame.querySelectorAll('img[src="x"], svg[onload], a[href^="javascript:" i]').forEach(
                el => bad.push('payload ' + el.outerHTML.slice(0, 60)));
        }
        return bad;
    }""")
    assert found == [], f"{page.url}: {found}"


def body_values(page, col: int) -> list[float | None]:
    return page.evaluate(f"""() => Array.from(document.querySelectorAll('#leaderboard tbody tr'))
        .filter(r => !r.hidden).map(r => {{ const v = r.cells[{col}].getAttribute('data-v');
        return v === '' || v === null ? null : parseFloat(v); }})""")


def test_leaderboard_sort_filter_and_permalinks(session, published_site, shots):
    page, watch = session
    page.goto(url(published_site, "index.html"))
    no_injection(page)
    page.screenshot(path=str(shots / "leaderboard.png"))
    elo = page.locator('#leaderboard thead button[data-col="1"]')
    elo_th = page.locator('#leaderboard thead th:has(button[data-col="1"])')
    assert elo_th.get_attribute("aria-sort") == "descending"
    elo.click()
    values = [v for v in body_values(page, 1) if v is not None]
    assert values == sorted(values) and len(values) == 3
    assert "sort.leaderboard=1.asc" in page.url
    elo.click()
    values = [v for v in body_values(page, 1) if v is not None]
    assert values == sorted(values, reverse=True)
    # Keyboard: focus the Model header button, press Enter → sorted by name.
    page.locator('#leaderboard thead button[data-col="0"]').focus()
    page.keyboard.press("Enter")
    names = page.eval_on_selector_all("#leaderboard tbody th", "ths => ths.map(t => t.textContent.trim())")
    assert names == sorted(names, key=str.lower)
    # Filter, and the permalink restores it.
    page.fill("#lb-filter", "beta")
    assert page.locator("#leaderboard tbody tr:visible").count() == 1
    assert page.text_content("#lb-count") == "1 of 3 models"
    permalink = page.url
    assert "q=beta" in permalink
    page.goto("about:blank")
    page.goto(permalink)
    assert page.input_value("#lb-filter") == "beta"
    assert page.locator("#leaderboard tbody tr:visible").count() == 1
    page.fill("#lb-filter", "")
    # Official runs only: beta's non-official Base Bench cell is hidden, sorting treats it as empty.
    page.check("#lb-official")
    beta_cell = page.locator("#leaderboard tbody tr", has_text="beta-3b").locator("td").first
    assert beta_cell.get_attribute("data-official") == "0"
    assert beta_cell.locator("a").evaluate("a => getComputedStyle(a).visibility") == "hidden"
    assert "official=1" in page.url
    # The XSS model name is plain text.
    assert XSS_NAME in page.eval_on_selector_all("#leaderboard tbody th a", "as => as.map(a => a.textContent)")
    assert watch.errors == []


def test_every_internal_link_resolves_and_no_page_misbehaves(session, published_site):
    page, watch = session
    site = published_site.resolve()
    queue, seen, files = deque([site / "index.html"]), set(), set()
    while queue:
        path = queue.popleft()
        if path in seen:
            continue
        seen.add(path)
        page.goto(path.as_uri(), wait_until="domcontentloaded")
        if path.parent.parent.name != "apps":  # an app page: model code runs in its sandboxed frame
            no_injection(page)
        for href in page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)"):
            target, _ = urldefrag(href)
            parsed = urlparse(target)
            assert parsed.scheme == "file", f"{path}: external link {href}"
            file = Path(unquote(parsed.path)).resolve()
            assert file.is_relative_to(site), f"{path}: link outside the site {href}"
            assert file.exists(), f"{path}: broken link {href}"
            if file.suffix == ".html" and file not in seen:
                queue.append(file)
            files.add(file)
    pages = set(site.rglob("*.html")) - set(site.glob("apps/*/*/**/*.html"))
    assert pages <= seen, f"pages no link reaches: {sorted(str(p) for p in pages - seen)[:5]}"
    assert any(f.name.endswith(".csv.gz") for f in files) and any(f.suffix == ".parquet" for f in files)
    assert watch.site_errors() == []


def test_model_page_and_item_permalink(session, published_site, shots):
    page, watch = session
    page.goto(url(published_site, "index.html"))
    with page.expect_navigation():
        page.get_by_role("link", name=XSS_NAME).click()
    assert page.text_content("h1") == XSS_NAME
    no_injection(page)
    page.goto(url(published_site, "models/alpha-7b.html"))
    page.screenshot(path=str(shots / "model.png"))
    assert page.locator(".run-card").count() >= 9
    with page.expect_navigation():
        page.locator("#summary-table tbody tr", has_text="ARC-Challenge").locator("a", has_text="official").click()
    assert "/runs/" in page.url
    page.goto(page.url.split("#")[0] + "#item=arc-003")
    page.wait_for_selector("#items-table tr.detail")
    detail = page.locator("#items-table tr.detail pre").first.text_content()
    assert '<script>alert("raw")</script>' in detail and "javascript:alert(3)" in detail
    # The model's output under its own heading (the keys and headings come from the page's metadata).
    assert page.locator("#items-table tr.detail h4").first.text_content() == "Raw output"
    assert page.locator("#items-table tr.target").count() == 1
    page.screenshot(path=str(shots / "run-items.png"))
    no_injection(page)
    # Filtering by status is a permalink too.
    page.select_option("#items-status", "unanswered")
    assert "status=unanswered" in page.url
    assert all(s == "unanswered" for s in page.eval_on_selector_all(
        "#items-table tbody tr:not(.detail) .badge", "bs => bs.map(b => b.textContent)"))
    assert watch.errors == []


def test_task_page_inflates_artifacts_as_text(session, published_site):
    """A task page's artifacts are shipped deflated; the page shows them as text, model markup inert."""
    page, watch = session
    task = next(p for p in sorted((published_site / "attempts").rglob("*.html")) if "changes.diff" in p.read_text())
    page.goto(url(published_site, task.relative_to(published_site).as_posix() + "#attempt-2"))
    page.wait_for_function("() => !document.querySelector('pre[data-deflated]')")
    texts = page.eval_on_selector_all("details.artifact pre", "ps => ps.map(p => p.textContent)")
    assert any("print('<script>x</script>')" in t for t in texts), texts
    assert page.locator("#attempt-1").count() == 1 and page.locator("#attempt-2").count() == 1
    no_injection(page)
    assert watch.errors == []


def test_gallery_diff_and_compare(session, published_site, publish_store, shots):
    page, watch = session
    page.goto(url(published_site, "gallery.html"))
    cards = page.locator(".shot-card")
    assert cards.count() == 6
    # Every screenshot loads (lazy images are switched to eager so off-screen ones load too).
    page.wait_for_function("""() => { const imgs = Array.from(document.querySelectorAll('.shot img'));
        imgs.forEach(i => { i.loading = 'eager'; });
        return imgs.length > 0 && imgs.every(i => i.complete && i.naturalWidth > 0); }""")
    page.screenshot(path=str(shots / "gallery.png"))
    page.fill("#gallery-filter", "beta")
    assert page.locator(".shot-card:visible").count() == 2
    with page.expect_navigation():
        page.locator(".shot-card:visible").first.get_by_role("link", name="Open the app (sandboxed)").click()
    frame = page.locator("iframe.app-frame")
    assert frame.get_attribute("sandbox") == "allow-scripts"
    page.goto(url(published_site, "diffs/index.html"))
    with page.expect_navigation():
        page.get_by_role("link", name="alpha-7b vs beta-3b").click()
    assert page.locator("#diff-summary tbody tr").count() == 8
    assert page.locator(".verdict").count() > 8
    page.screenshot(path=str(shots / "diff.png"))
    page.goto(url(published_site, "compare.html#a=beta-3b&b=alpha-7b"))
    assert page.input_value("#cmp-a") == "beta-3b" and page.input_value("#cmp-b") == "alpha-7b"
    assert page.locator("#compare-table tbody tr").count() >= 8
    # The picker's in-browser McNemar (item files loaded as scripts) equals the diff page's.
    with Queries.open(Store(publish_store[0])) as q:
        test = next(b for b in diff_models(q, "alpha-7b", "beta-3b").benches if b.benchmark.name == "arc").headline.test
    expected = "p = " + ("<0.001" if test.p_value < 0.001 else f"{test.p_value:.3f}")
    paired = page.locator("#compare-table tbody tr", has_text="ARC-Challenge").locator("td").last
    expect(paired).to_have_text(expected)
    assert f"{test.n} paired items" in paired.get_attribute("title")
    page.select_option("#cmp-a", XSS_NAME)
    assert "a=" in page.url and page.locator("#compare-table thead th").nth(2).text_content() == f"A: {XSS_NAME}"
    page.click("#cmp-swap")
    assert page.input_value("#cmp-b") == XSS_NAME
    no_injection(page)
    page.screenshot(path=str(shots / "compare.png"))
    page.goto(url(published_site, "compare.html#a=beta-3b&b=alpha-7b"))
    with page.expect_navigation():
        page.locator("#compare").get_by_role("link", name="alpha-7b vs beta-3b").click()
    assert "/diffs/" in page.url
    assert watch.site_errors() == []


def test_theme_toggle_persists_and_dark_mode_renders(session, published_site, shots):
    page, _ = session
    page.emulate_media(color_scheme="dark")
    page.goto(url(published_site, "index.html"))
    assert page.get_attribute("html", "data-theme") == "auto"
    dark_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.screenshot(path=str(shots / "leaderboard-dark.png"))
    page.click("#theme-toggle")
    assert page.get_attribute("html", "data-theme") == "light"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != dark_bg
    page.goto(url(published_site, "gallery.html"))
    assert page.get_attribute("html", "data-theme") == "light"
    page.click("#theme-toggle")
    assert page.get_attribute("html", "data-theme") == "dark"


def _below_header(page, selector: str) -> float:
    """How far below the sticky page header the element's top is (negative: hidden under it)."""
    return page.evaluate("""(sel) => document.querySelector(sel).getBoundingClientRect().top
        - document.querySelector('header.top').getBoundingClientRect().bottom""", selector)


def test_no_empty_bands_and_anchors_land_below_the_header(session, published_site):
    """A card's first heading sits at its padding, and whatever an anchor opens (a diff section, a run
    page heading, an item) lands just below the sticky header: neither hidden under it nor far below."""
    page, _ = session
    diff = next(p for p in sorted((published_site / "diffs").glob("*--vs--*.html")))
    page.goto(url(published_site, f"diffs/{diff.name}"))
    gaps = page.evaluate("""() => Array.from(document.querySelectorAll('.card > h2:first-child, .card > h3:first-child'))
        .map(h => h.getBoundingClientRect().top - h.parentElement.getBoundingClientRect().top)""")
    assert gaps and max(gaps) <= 24, gaps
    page.goto(url(published_site, f"diffs/{diff.name}#b-3"))
    assert 0 <= _below_header(page, "#b-3") <= 24
    run = next(p for p in sorted((published_site / "runs").glob("alpha-7b_arc_*.html")))
    page.goto(url(published_site, f"runs/{run.name}#outcomes"))
    assert 0 <= _below_header(page, "#outcomes") <= 24
    page.goto(url(published_site, f"runs/{run.name}#item=arc-002"))
    page.wait_for_selector("#item-target")
    page.wait_for_function("""() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))""")
    assert 0 <= _below_header(page, "#item-target") <= 80  # the table's column headings fit above it


def test_wide_windows_show_every_leaderboard_column(browser, tmp_path):
    """The leaderboard uses the window's width: in a wide window no column hides behind a scroll bar."""
    from tests.conftest import run_cli
    from tests.helpers.publish_fixture import base_evals

    store = Store(tmp_path / "results")
    for i in range(15):
        for seed, model in enumerate(("model-a", "model-b")):
            base_evals(store, model, f"tiny_split_{i:02d}", seed=seed)
    site = tmp_path / "site"
    assert run_cli("publish", "--results", str(store.root), "--out", str(site)).returncode == 0
    page = browser.new_page(viewport={"width": 2560, "height": 1000})
    try:
        page.goto(url(site, "index.html"))
        sizes = page.evaluate("""() => { const wrap = document.querySelector('.board-wrap');
            const table = document.querySelector('#leaderboard'); const r = {client: wrap.clientWidth,
            scroll: wrap.scrollWidth, page: document.documentElement.scrollWidth};
            table.style.width = 'max-content'; r.natural = table.getBoundingClientRect().width; return r; }""")
        assert 1900 < sizes["natural"] < 2400, sizes  # wider than a fixed-width column of text, narrower than the window
        assert sizes["scroll"] <= sizes["client"] + 1 and sizes["page"] <= 2560, sizes
        page.set_viewport_size({"width": 1200, "height": 900})  # a narrow window scrolls the table, not the page
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 1200
    finally:
        page.close()


def test_published_app_files_run_no_script_and_send_nothing(browser, published_site):
    """Every file published from an agent's workspace, opened directly over HTTP and file://: no model script
    runs outside the app's sandboxed frame (no dialog, the page title stays), and no request leaves the site."""
    import http.server
    import threading
    from functools import partial

    site = published_site.resolve()
    published = sorted(p for folder in ("apps", "media") for p in (site / folder).rglob("*") if p.is_file())
    apps = [p for p in published if p.parent.parent.name == "apps"]
    assert apps, "no app was published"
    # No model-written file is a file of the site: app pages are ours, media are checked images.
    assert all(p.suffix == ".html" and b'name="generator" content="bananabench' in p.read_bytes()[:2000]
               for p in apps)
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in published if p.parent.parent.name == "media")
    assert not [p for p in site.rglob("*") if p.suffix in (".svg", ".xhtml", ".xml", ".htm", ".shtml", ".mhtml")]
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}/"
    # Every app address in its own context, all loaded before one wait past the apps' meta refresh (1 s): the
    # app says it ran on the console, as its text in the frame is gone once the refresh navigates the frame to
    # a blocked page (on a loaded machine that can come before a look at it). The media (checked PNGs, no
    # script) share one context, opened one after another.
    opened = []

    def watched(context) -> tuple[Any, Watch]:
        watch = Watch(site, origin)
        context.route("**/*", watch.route)
        page = context.new_page()
        watch.attach(page)
        return page, watch

    def addresses(path):
        return (path.as_uri(), origin + path.relative_to(site).as_posix())

    contexts = []
    try:
        for path in apps:
            for address in addresses(path):
                contexts.append(browser.new_context())
                page, watch = watched(contexts[-1])
                page.goto(address, wait_until="load")
                opened.append((address, page, watch))
        page.wait_for_timeout(1500)                    # past the apps' meta refresh
        for address, page, watch in opened:
            for _ in range(100):
                if "app ran" in watch.logged:
                    break
                page.wait_for_timeout(100)
            assert "app ran" in watch.logged, address   # the app itself does run, sandboxed
            assert watch.outside == [] and watch.dialogs == [], (address, watch.outside, watch.dialogs)
            assert "PWNED" not in page.title(), address
        contexts.append(browser.new_context())
        page, watch = watched(contexts[-1])
        for path in published:
            if path not in apps:
                for address in addresses(path):
                    page.goto(address, wait_until="load")
                    assert watch.outside == [] and watch.dialogs == [] and "PWNED" not in page.title(), \
                        (address, watch.outside, watch.dialogs)
    finally:
        for context in contexts:
            context.close()
        server.shutdown()
