"""Model-written files that the site republishes: screenshots, and (opt-in) the frontend apps.

Apps are model-written code, so none of their files is published as a file of the site: a file a
browser can run script from (HTML and its variants, SVG, XHTML, XML, or anything sniffed as such)
would run with the site's origin when opened directly. Instead the app's entry page is rebuilt as
one self-contained document, with an allowlist of its local files inlined (classic scripts and
stylesheets as text; raster images, SVG images and fonts as `data:` URLs), and that document exists
only as the `srcdoc` of a sandboxed frame (scripts allowed, same origin, pop-ups, forms and top
navigation not). Its Content-Security-Policy allows nothing from outside the document, so viewing an
app never contacts a third party. CSP cannot stop WebRTC (STUN goes out over UDP), so the document's
first script (`NO_WEBRTC`), before any of the app's, removes RTCPeerConnection and its relatives for good
(locked, non-configurable properties) and removes every frame the app makes, whose window would bring
them back; the CSP forbids frames, workers and objects as well. Files outside the allowlist, links, and anything over the caps are
left out. Screenshots are published only when their magic bytes say PNG, JPEG or WebP.
"""

from __future__ import annotations

import base64
import logging
import os
import re
import stat
from pathlib import Path

from evaluators.core.contract import AttemptKey
from evaluators.publish.queries import Queries
from evaluators.publish.views import Attempt

log = logging.getLogger("bananabench")

APP_CAP_BYTES = 8_000_000        # the inlined document
FILE_CAP_BYTES = 4_000_000       # one inlined file
ENTRY_CANDIDATES = ("index.html", "dist/index.html", "build/index.html", "public/index.html")
APP_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
           "font-src data:; media-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'; frame-src 'none'; "
           "child-src 'none'; worker-src 'none'; object-src 'none'; manifest-src 'none'")
_CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{APP_CSP}">'
# No WebRTC constructor is left for app code, and no frame either (a frame's window would bring fresh ones):
# frames are removed synchronously after every DOM insertion an app script makes and, for the parser's own,
# by a mutation observer, which runs before the next script of the page.
NO_WEBRTC = """<script>(function () {
  var names = ["RTCPeerConnection", "webkitRTCPeerConnection", "mozRTCPeerConnection", "RTCDataChannel",
    "RTCIceCandidate", "RTCSessionDescription", "RTCRtpSender", "RTCRtpReceiver", "RTCRtpTransceiver",
    "RTCDtlsTransport", "RTCIceTransport", "RTCSctpTransport", "RTCCertificate", "RTCDTMFSender",
    "RTCPeerConnectionIceEvent", "RTCDataChannelEvent", "RTCTrackEvent", "RTCStatsReport", "RTCError",
    "RTCErrorEvent", "RTCEncodedAudioFrame", "RTCEncodedVideoFrame", "RTCRtpScriptTransform",
    "RTCIceCandidatePair", "RTCPeerConnectionIceErrorEvent", "RTCDTMFToneChangeEvent"];
  // Everything used later is taken now: app code may replace any prototype method afterwards.
  var define = Object.defineProperty, getDesc = Object.getOwnPropertyDescriptor, apply = Reflect.apply;
  var docFind = Document.prototype.querySelectorAll, fragFind = DocumentFragment.prototype.querySelectorAll;
  var remove = Element.prototype.remove, observe = MutationObserver.prototype.observe, roots = [document];
  var FRAMES = "iframe,frame,object,embed,portal,fencedframe";
  function lock(obj, name, value) {
    try { define(obj, name, {value: value, writable: false, configurable: false, enumerable: false}); } catch (e) {}
  }
  names.forEach(function (n) { lock(window, n, undefined); });
  lock(navigator, "mediaDevices", undefined);
  function sweep() {
    for (var r = 0; r < roots.length; r++) {
      var found = apply(roots[r] === document ? docFind : fragFind, roots[r], [FRAMES]);
      for (var i = 0; i < found.length; i++) apply(remove, found[i], []);
    }
  }
  var observer = new MutationObserver(sweep);
  function watch(root) { roots[roots.length] = root; apply(observe, observer, [root, {childList: true, subtree: true}]); }
  apply(observe, observer, [document, {childList: true, subtree: true}]);
  function wrap(proto, name) {
    var d = proto && getDesc(proto, name);
    if (!d) return;
    if (typeof d.value === "function") {
      var f = d.value;
      define(proto, name, {configurable: false, writable: false, enumerable: d.enumerable, value: function () {
        try { return apply(f, this, arguments); } finally { sweep(); } }});
    } else if (d.set) {
      var set = d.set;
      define(proto, name, {configurable: false, enumerable: d.enumerable, get: d.get, set: function (v) {
        try { apply(set, this, [v]); } finally { sweep(); } }});
    }
  }
  var attach = Element.prototype.attachShadow;
  lock(Element.prototype, "attachShadow", function () { var r = apply(attach, this, arguments); watch(r); return r; });
  [[Node, ["appendChild", "insertBefore", "replaceChild", "moveBefore"]],
   [Element, ["append", "prepend", "after", "before", "replaceWith", "replaceChildren", "insertAdjacentElement",
              "insertAdjacentHTML", "innerHTML", "outerHTML", "setHTMLUnsafe"]],
   [Document, ["write", "writeln", "append", "prepend", "replaceChildren", "body", "execCommand"]],
   [DocumentFragment, ["append", "prepend", "replaceChildren"]],
   [CharacterData, ["after", "before", "replaceWith"]],
   [Range, ["insertNode", "surroundContents"]],
   [ShadowRoot, ["innerHTML", "setHTMLUnsafe", "append", "prepend", "replaceChildren"]]].forEach(function (pair) {
    pair[1].forEach(function (n) { wrap(pair[0].prototype, n); });
  });
})();</script>"""
_DOCTYPE = re.compile(r"^\s*(?:\ufeff)?\s*<!doctype[^>]*>", re.I)
_SCRIPT = re.compile(r"<script\b([^>]*)\bsrc\s*=\s*([\"']?)([^\"'\s>]+)\2([^>]*)>\s*</script\s*>", re.I)
_STYLESHEET = re.compile(r"<link\b[^>]*>", re.I)
_HREF = re.compile(r"\bhref\s*=\s*([\"']?)([^\"'\s>]+)\1", re.I)
_SRC = re.compile(r"(<(?:img|source|audio|video)\b[^>]*\bsrc\s*=\s*)([\"']?)([^\"'\s>]+)\2", re.I)
_REFRESH = re.compile(r"<meta\b[^>]*\bhttp-equiv\s*=\s*[\"']?refresh\b[^>]*>", re.I)
_CSS_URL = re.compile(r"url\(\s*([\"']?)([^\"')\s]+)\1\s*\)", re.I)

_MAGIC = ((b"\x89PNG\r\n\x1a\n", ".png"), (b"\xff\xd8\xff", ".jpg"))
_MEDIA = {".png": "image/png", ".jpg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
          ".svg": "image/svg+xml", ".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf",
          ".otf": "font/otf"}
_MEDIA_MAGIC = {".gif": (b"GIF87a", b"GIF89a"), ".woff": (b"wOFF",), ".woff2": (b"wOF2",),
                ".ttf": (b"\x00\x01\x00\x00", b"true"), ".otf": (b"OTTO",)}


def image_suffix(path: Path) -> str | None:
    """`.png`/`.jpg`/`.webp` when the file really is such an image (never SVG or HTML)."""
    with open(path, "rb") as fh:
        head = fh.read(12)
    for magic, suffix in _MAGIC:
        if head.startswith(magic):
            return suffix
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return ".webp"
    return None


def find_entry(q: Queries, att: Attempt) -> tuple[Path, str] | None:
    """(app folder, entry page relative to it) for an attempt's app, if it has one."""
    explicit = q.resolve(att.extra.get(AttemptKey.APP))
    if explicit is not None and explicit.is_file() and explicit.suffix == ".html":
        return explicit.parent, explicit.name
    workspace = q.resolve(att.extra.get(AttemptKey.WORKSPACE))  # the agent runner keeps manual tasks' workspaces
    if workspace is None:
        artifacts = q.resolve(att.extra.get(AttemptKey.ARTIFACTS))
        if artifacts is None:
            return None
        workspace = artifacts / "workspace"
    for candidate in ENTRY_CANDIDATES:
        if (workspace / candidate).is_file():
            return workspace, candidate
    return None


def _read_local(folder: Path, base: Path, ref: str) -> tuple[Path, bytes] | None:
    """A file the app references, if it is a regular file whose resolved real path lies inside the app folder
    (no links anywhere on its path, under the cap)."""
    if re.match(r"^[a-z][a-z0-9+.-]*:|^//", ref, re.I):
        return None
    rel = ref.split("#", 1)[0].split("?", 1)[0]
    if not rel:
        return None
    path = Path(os.path.normpath(base / rel))
    if not path.is_relative_to(folder) or not Path(os.path.realpath(path)).is_relative_to(folder):
        return None     # outside the app folder, lexically or through a link on the way (`ln -s / h`)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > FILE_CAP_BYTES:
            return None
        return path, fh.read(FILE_CAP_BYTES)


def _data_url(path: Path, data: bytes) -> str | None:
    suffix = path.suffix.lower().replace(".jpeg", ".jpg")
    if suffix not in _MEDIA:
        return None
    if suffix in (".png", ".jpg", ".webp") and image_suffix(path) != suffix:
        return None
    if suffix in _MEDIA_MAGIC and not data.startswith(_MEDIA_MAGIC[suffix]):
        return None
    return f"data:{_MEDIA[suffix]};base64,{base64.b64encode(data).decode()}"


def _inline_css(css: str, folder: Path, base: Path) -> str:
    def url(m: re.Match) -> str:
        found = _read_local(folder, base, m.group(2))
        data = found and _data_url(*found)
        return f"url({data})" if data else "url(about:invalid)"
    return _CSS_URL.sub(url, css).replace("</style", "<\\/style")


def inline_app(entry: tuple[Path, str]) -> str | None:
    """The app's entry page as one self-contained document (None when it is missing or too big)."""
    folder, index = entry
    folder = Path(os.path.normpath(folder.resolve()))
    found = _read_local(folder, folder, index)
    if found is None:
        return None
    page, raw = found
    base = page.parent
    html = raw.decode("utf-8", errors="replace")

    def script(m: re.Match) -> str:
        attrs = (m.group(1) + m.group(4)).lower()
        got = _read_local(folder, base, m.group(3))
        if got is None or got[0].suffix.lower() not in (".js", ".mjs") or "module" in attrs:
            return "<script>/* left out: not a local classic script */</script>"
        code = got[1].decode("utf-8", errors="replace").replace("</script", "<\\/script")
        return f"<script>{code}</script>"

    def link(m: re.Match) -> str:
        tag = m.group(0)
        if "stylesheet" not in tag.lower():
            return ""     # preloads, icons, manifests, prefetches: nothing is fetched from an app
        href = _HREF.search(tag)
        got = href and _read_local(folder, base, href.group(2))
        if not got or got[0].suffix.lower() != ".css":
            return ""
        return f"<style>{_inline_css(got[1].decode('utf-8', errors='replace'), folder, got[0].parent)}</style>"

    def media(m: re.Match) -> str:
        got = _read_local(folder, base, m.group(3))
        data = got and _data_url(*got)
        return f'{m.group(1)}"{data or "about:invalid"}"'

    html = re.sub(r"(<style\b[^>]*>)(.*?)(</style\s*>)",
                  lambda m: m.group(1) + _inline_css(m.group(2), folder, base) + m.group(3), html, flags=re.I | re.S)
    html = _SRC.sub(media, html)
    html = _SCRIPT.sub(script, html)
    html = _STYLESHEET.sub(link, html)
    html = _REFRESH.sub("", html)        # a refresh would navigate the frame out of the page
    match = _DOCTYPE.match(html)
    cut = match.end() if match else 0
    html = html[:cut] + _CSP_META + NO_WEBRTC + html[cut:]
    if len(html.encode()) > APP_CAP_BYTES:
        log.warning("%s: the inlined app is over %d bytes; not published", page, APP_CAP_BYTES)
        return None
    return html
