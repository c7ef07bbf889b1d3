"""Demo step (last): publish every run the demo made into the site and print where it is.

The gallery's apps are published too (`--include-apps`): each opens only in a sandboxed frame, and the
demo's frontend attempt is the task's reference solution, marked as such on every page.
"""

from __future__ import annotations

import logging
from typing import Any

TITLE = "publish the site"
log = logging.getLogger("bananabench")


def run(ctx: Any) -> None:
    """`ctx`: the demo's `evaluators.demo.DemoContext`."""
    from evaluators.publish.builder import publish

    with ctx.store.write():  # the store exists even if no step before this one recorded a run
        pass
    result = publish(ctx.store, ctx.site, baselines=ctx.baselines, include_apps=True)
    index = (result.path / "index.html").resolve()
    log.info("published %d pages in %.1f s", result.pages, result.seconds)
    ctx.notes.append(f"site: {index} (open it in a browser; it works from disk)")
