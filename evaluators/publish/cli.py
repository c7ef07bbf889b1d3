"""`bananabench publish` and `bananabench report`: the site and the terminal/markdown reports."""

from __future__ import annotations

import argparse
import sys

from evaluators.core import atomic, cliargs
from evaluators.store.store import Store


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "publish", help="render the results store into a static leaderboard site",
        description="Render the store into a static site (leaderboard, per-benchmark pages, model and run reports, "
                    "gallery, diffs, compare picker, CSV/Parquet downloads). The site uses relative links only and "
                    "loads nothing from outside itself: open index.html from disk or serve it from any sub-path.")
    cliargs.add_results(p)
    p.add_argument("--out", metavar="DIR", default="site", help="site folder to (re)create (default: site/)")
    p.add_argument("--baseline", metavar="MODEL_OR_RUN", action="append", default=[],
                   help="build diff pages against this model (every other model is compared with it) or run "
                        "(its model's current run is compared with it); repeatable")
    p.add_argument("--include-apps", action="store_true",
                   help="also publish the frontend apps agents wrote, each shown only in a sandboxed iframe")
    p.add_argument("--private", action="store_true",
                   help="include item text of ids-only (gated/licensed) benchmarks; never publish such a site")
    p.add_argument("--templates", metavar="DIR", default=None,
                   help="Jinja templates and static/ assets to use instead of the bundled templates/")
    p.add_argument("--full", action="store_true",
                   help="rebuild every page (by default a publish over an earlier site rewrites only the pages, "
                        "item data and downloads whose inputs changed, and removes what nothing produces any more)")
    p.set_defaults(func=cmd_publish)

    p = sub.add_parser(
        "report", help="print the leaderboard, a model report, baseline diffs or an all-model comparison",
        description="Text or markdown reports from the same queries as the site. Without options: the leaderboard. "
                    "--model NAME: that model's runs, categories, agent tasks and infrastructure errors. "
                    "--baseline MODEL_OR_RUN (repeatable): paired diffs (McNemar / paired bootstrap) against it. "
                    "--compare: every benchmark and category for all models in one table.")
    cliargs.add_results(p)
    p.add_argument("--model", metavar="NAME", help="report on this model")
    p.add_argument("--baseline", metavar="MODEL_OR_RUN", action="append", default=[],
                   help="compare with this model or run (with --model: that model only; else every other model)")
    p.add_argument("--compare", action="store_true", help="one table comparing all models")
    p.add_argument("--md", action="store_true", help="markdown instead of plain text")
    p.add_argument("--out", metavar="FILE", help="write the report to FILE (atomically) instead of stdout")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    p.add_argument("--private", action="store_true", help="include item text of ids-only benchmarks")
    p.set_defaults(func=cmd_report)


def cmd_publish(args) -> int:
    from evaluators.publish.builder import publish

    result = publish(Store(args.results), args.out, private=args.private, include_apps=args.include_apps,
                     baselines=args.baseline, templates=args.templates, full=args.full)
    unchanged = f"; {result.kept} unchanged, {result.removed} removed" if result.kept or result.removed else ""
    print(f"published {result.pages} pages ({result.files} files, {result.bytes / 1e6:.1f} MB{unchanged}) in "
          f"{result.seconds:.1f} s: {(result.path / 'index.html').resolve()}")
    return 0


def cmd_report(args) -> int:
    from evaluators.core.errors import BadInput
    from evaluators.publish.queries import Queries
    from evaluators.publish.report import build_report

    if args.compare and args.model:
        raise BadInput("--compare reports on all models; drop --model (or drop --compare)")
    with Queries.open(Store(args.results), private=args.private) as q:
        text = build_report(q, model=args.model, baselines=args.baseline, compare_all=args.compare,
                            markdown=args.md)
    if args.out:
        atomic.write_text(args.out, text, overwrite=args.overwrite)
        print(f"wrote {args.out}")
    else:
        sys.stdout.write(text)
    return 0
