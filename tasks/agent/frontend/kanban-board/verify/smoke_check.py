"""Automated smoke check for a hand-graded frontend task (the grade itself is given by a person).

Checks, with the settings in smoke.json next to this file:
  1. the page exists and every local script / stylesheet / image it references exists; nothing is loaded
     from the network and no ES modules are used (they do not load from file://);
  2. every script (files and inline) is valid JavaScript (`node --check`);
  3. in headless Chromium the page loads over file:// without uncaught errors, console errors or failed
     resource loads, and the rendered page contains the expected texts and elements.
Runs from the staged workspace (the current folder) and records three tests, `files`, `syntax` and
`browser`, in $BANANABENCH_REPORT; the reasons for a failure are printed one per line.
"""

import html as htmllib
import json
import os
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG = json.loads((HERE / "smoke.json").read_text())
PAGE = Path.cwd() / CONFIG.get("page", "index.html")
problems = {"files": [], "syntax": [], "browser": []}

HARNESS = """<script>(function(){
function note(m){try{console.log('SMOKE-ERROR '+m);}catch(e){}}
var orig=console.error;console.error=function(){note(Array.prototype.map.call(arguments,String).join(' '));return orig.apply(console,arguments);};
window.addEventListener('error',function(e){var t=e.target;if(t&&t!==window&&(t.src||t.href)){note('failed to load '+(t.src||t.href));}else{note('uncaught '+(e.message||e));}},true);
window.addEventListener('unhandledrejection',function(e){note('unhandled rejection '+(e.reason&&e.reason.message||e.reason));});
})();</script>"""


class Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs, self.inline, self.modules, self.tags = [], [], [], []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "script":
            if (a.get("type") or "").lower() == "module":
                self.modules.append(a.get("src") or "(inline)")
            if a.get("src"):
                self.refs.append(a["src"])
            else:
                self._in_script = (a.get("type") or "text/javascript").lower() in ("text/javascript", "application/javascript", "")
                self.inline.append("")
        elif tag == "link" and a.get("href") and "stylesheet" in (a.get("rel") or ""):
            self.refs.append(a["href"])
        elif tag in ("img", "source", "audio", "video") and a.get("src"):
            self.refs.append(a["src"])

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.inline[-1] += data


def static_checks(html: str) -> list[Path]:
    refs = Refs()
    refs.feed(html)
    scripts = []
    for ref in refs.refs:
        if re.match(r"^(https?:)?//", ref):
            problems["files"].append(f"loads {ref} from the network (the app must work offline)")
            continue
        if ref.startswith("data:"):
            continue
        path = (PAGE.parent / ref.split("?")[0].split("#")[0]).resolve()
        if not path.is_file():
            problems["files"].append(f"references {ref}, which does not exist")
        elif path.suffix == ".js":
            scripts.append(path)
    for m in refs.modules:
        problems["files"].append(f"uses an ES module ({m}); modules do not load from file://, use classic scripts")
    with tempfile.TemporaryDirectory() as tmp:
        for i, code in enumerate(refs.inline):
            if code.strip():
                path = Path(tmp) / f"inline-{i}.js"
                path.write_text(code)
                scripts.append(path)
        for script in scripts:
            if not shutil.which("node"):
                break
            out = subprocess.run(["node", "--check", str(script)], capture_output=True, text=True, timeout=60)
            if out.returncode != 0:
                detail = (out.stderr.strip().splitlines() or ["?"])
                problems["syntax"].append(f"JavaScript syntax error in {script.name}: {' '.join(detail[:4])[:300]}")
    return scripts


def chromium() -> str | None:
    for candidate in ("/usr/lib/chromium/chromium", shutil.which("chromium"), shutil.which("chromium-browser"),
                      shutil.which("google-chrome")):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def browser_checks(html: str) -> None:
    binary = chromium()
    if binary is None:
        problems["browser"].append("no Chromium found: the in-browser checks could not run")
        return
    injected = re.sub(r"(<head[^>]*>)", r"\1" + HARNESS.replace("\\", "\\\\"), html, count=1, flags=re.I)
    if injected == html:
        injected = HARNESS + html
    probe = PAGE.parent / ".smoke-probe.html"
    probe.write_text(injected)
    try:
        with tempfile.TemporaryDirectory() as profile:
            cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                   "--no-first-run", "--disable-background-networking", "--disable-component-update",
                   "--disable-sync", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                   f"--window-size={CONFIG.get('width', 1280)},{CONFIG.get('height', 800)}",
                   "--virtual-time-budget=3000", "--dump-dom", probe.resolve().as_uri()]
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": profile})
    finally:
        probe.unlink(missing_ok=True)
    for line in out.stderr.splitlines():
        if "SMOKE-ERROR" in line or ("CONSOLE" in line and "Uncaught" in line):
            problems["browser"].append("in the browser: " + line.split("] ", 1)[-1][:300])
    dom = out.stdout
    if "<body" not in dom:
        problems["browser"].append(f"the page did not render (chromium exit {out.returncode}): {out.stderr.strip()[-300:]}")
        return
    text = re.sub(r"<script.*?</script>|<style.*?</style>", " ", dom, flags=re.S | re.I)
    visible = htmllib.unescape(re.sub(r"<[^>]+>", " ", text))
    for needle in CONFIG.get("texts", []):
        if needle.lower() not in visible.lower():
            problems["browser"].append(f"the rendered page does not show {needle!r}")
    for selector, minimum in CONFIG.get("min_tags", {}).items():
        count = len(re.findall(rf"<{selector}[\s>]", dom, flags=re.I))
        if count < minimum:
            problems["browser"].append(f"the rendered page has {count} <{selector}> element(s), expected at least {minimum}")


def record(test_id, outcome, message=""):
    line = {"id": test_id, "outcome": outcome, "message": message[-2000:]}
    with open(os.environ["BANANABENCH_REPORT"], "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")


def main() -> None:
    if not PAGE.is_file():
        print(f"FAIL {PAGE.name} does not exist")
        record("files", "failed", f"{PAGE.name} does not exist")
        return
    html = PAGE.read_text(encoding="utf-8", errors="replace")
    static_checks(html)
    if not problems["files"] and not problems["syntax"]:
        browser_checks(html)
        ran_browser = True
    else:
        ran_browser = False
    for test_id, found in problems.items():
        for p in found:
            print("FAIL", p)
        if test_id == "browser" and not ran_browser:
            record(test_id, "skipped", "not run: the static checks failed")
        else:
            record(test_id, "failed" if found else "passed", "\n".join(found))
    if not any(problems.values()):
        print("smoke check passed")


if __name__ == "__main__":
    main()
