"""Photograph a page with Playwright + Chromium inside a fresh sandbox container (no network).

Prints one line `SCREENSHOT {json}` with the files written and the page's console and page
errors, so the runner (and `agent validate` for manual tasks) can tell whether the app loads
without errors. Exit 0 when the page loaded, 1 otherwise.
"""

import argparse
import json
import os
import sys


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--page", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=800)
    p.add_argument("--mobile-width", type=int, default=None)
    p.add_argument("--chromium", default="/usr/lib/chromium/chromium")
    args = p.parse_args()
    report = {"files": {}, "console_errors": [], "page_errors": [], "failed_requests": [], "loaded": False}
    if not os.path.isfile(args.page):
        report["error"] = f"page not found: {args.page}"
        print("SCREENSHOT " + json.dumps(report), flush=True)
        return 1
    from playwright.sync_api import sync_playwright

    views = [("desktop", args.width, args.height)]
    if args.mobile_width:
        views.append(("mobile", args.mobile_width, int(args.mobile_width * 16 / 9)))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, args=[
            "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            for view, width, height in views:
                page = browser.new_page(viewport={"width": width, "height": height})
                if view == "desktop":
                    page.on("console", lambda m: m.type == "error" and report["console_errors"].append(m.text[:500]))
                    page.on("pageerror", lambda e: report["page_errors"].append(str(e)[:500]))
                    page.on("requestfailed", lambda r: report["failed_requests"].append(r.url[:300]))
                page.goto("file://" + os.path.abspath(args.page), wait_until="load", timeout=30000)
                page.wait_for_timeout(500)
                name = "screenshot.png" if view == "desktop" else "screenshot-mobile.png"
                page.screenshot(path=os.path.join(args.out, name), full_page=False)
                report["files"][view] = name
                page.close()
            report["loaded"] = True
        except Exception as exc:  # the page is the agent's work: report, don't crash
            report["error"] = f"{type(exc).__name__}: {exc}"[:1000]
        finally:
            browser.close()
    print("SCREENSHOT " + json.dumps(report), flush=True)
    return 0 if report["loaded"] else 1


if __name__ == "__main__":
    sys.exit(main())
