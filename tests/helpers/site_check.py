"""Static checks of a published site: what every page must (not) contain, as a list of problems."""

from __future__ import annotations

import html.parser
import re
from pathlib import Path


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts: list[str | None] = []
        self.urls: list[tuple[str, str, str]] = []
        self.handlers: list[str] = []
        self.iframes: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.handlers += [k for k in attrs if k.startswith("on")]
        if tag == "script":
            self.scripts.append(attrs.get("src"))
        if tag == "iframe":
            self.iframes.append(attrs)
        for key in ("href", "src", "action", "formaction"):
            if key in attrs:
                self.urls.append((tag, key, attrs[key] or ""))


def site_pages(site: Path) -> list[Path]:
    """The site's own pages: not the model-written apps under apps/<run>/<attempt>/ (their wrapper
    pages apps/<run>/<attempt>.html are ours)."""
    return sorted(p for p in site.rglob("*.html")
                  if p.relative_to(site).parts[0] != "apps" or len(p.relative_to(site).parts) == 3)


def page_problems(site: Path) -> list[str]:
    """Inline script or handlers, non-relative or broken links, unsandboxed frames, a missing CSP."""
    problems = []
    for page in site_pages(site):
        text = page.read_text(encoding="utf-8")
        parsed = _Page()
        parsed.feed(text)
        if parsed.handlers:
            problems.append(f"{page}: inline event handlers {parsed.handlers}")
        if None in parsed.scripts:
            problems.append(f"{page}: inline <script>")
        for tag, key, url in parsed.urls:
            if re.match(r"^[a-z][a-z0-9+.-]*:", url, re.I) or url.startswith(("/", "\\")):
                problems.append(f"{page}: {tag} {key}={url!r} is not a relative link")
                continue
            target = url.split("#")[0].split("?")[0]
            if target and not (page.parent / target).resolve().exists():
                problems.append(f"{page}: broken link {url!r}")
        problems += [f"{page}: iframe sandbox {f.get('sandbox')!r}" for f in parsed.iframes
                     if f.get("sandbox") != "allow-scripts"]
        if "Content-Security-Policy" not in text or "connect-src 'none'" not in text:
            problems.append(f"{page}: no Content-Security-Policy")
    return problems
