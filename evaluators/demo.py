"""`bananabench demo`: the whole pipeline on embedded defaults, offline, in minutes.

Builds the tiny model (and its GGUF), runs each evaluator's demo step on bundled sample
data into the results store, then publishes the site. Each evaluator contributes one
step module with `run(ctx: DemoContext) -> None`; a step that fails stops the demo.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from evaluators.core import cliargs
from evaluators.core.store import Store

log = logging.getLogger("bananabench")

# Step modules in the order they run; each has `TITLE` and `run(ctx)`.
STEP_MODULES: tuple[str, ...] = (
    "evaluators.loglik.demo",
    "evaluators.agent.demo",
    "evaluators.chat.demo",
    "evaluators.modes.demo",
    "evaluators.publish.demo",  # last: the site from every run above
)


@dataclass
class DemoContext:
    """What the steps share: where results go, the tiny model, scratch space."""

    store: Store
    work: Path
    site: Path
    model_name: str = "tiny-llama"  # one leaderboard row for the tiny model, whatever serves it
    tiny_model: Path | None = None
    tiny_gguf: Path | None = None
    notes: list[str] = field(default_factory=list)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="run every evaluator on the tiny model and sample data, then publish",
                       description="Run the whole pipeline offline on embedded defaults: a tiny locally built "
                                   "model and bundled sample data, through every evaluator into the store, "
                                   "then publish the site.")
    cliargs.add_results(p)
    p.add_argument("--work", metavar="DIR", default=".cache/demo",
                   help="scratch folder for the tiny model and servers (default .cache/demo)")
    p.add_argument("--out", metavar="DIR", default="site", help="where to write the site (default site/)")
    p.set_defaults(func=cmd_demo)


def cmd_demo(args) -> int:
    from evaluators.core.tinymodel import cached_tiny

    ctx = DemoContext(store=Store(args.results), work=Path(args.work), site=Path(args.out))
    ctx.work.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    tiny = cached_tiny(ctx.work / "models", gguf=True)
    ctx.tiny_model, ctx.tiny_gguf = Path(tiny["path"]), Path(tiny["gguf"])
    log.info("tiny model: %s", ctx.tiny_model)
    for name in STEP_MODULES:
        step = importlib.import_module(name)
        t0 = time.monotonic()
        log.info("demo step: %s", step.TITLE)
        step.run(ctx)
        log.info("demo step done: %s (%.1f s)", step.TITLE, time.monotonic() - t0)
    for note in ctx.notes:
        print(note)
    print(f"demo finished in {time.monotonic() - start:.0f} s; results in {ctx.store.root}")
    return 0
