"""`bananabench benchmarks list|show|validate`: the built-in benchmark specs, and checking your own.

A benchmark is one spec file (docs/add-a-benchmark.md); `validate` checks every key of it, reads
its data (a local copy, `--data`, or the pinned hub file) and maps every record, so a run will not
stop on bad input halfway. Errors name the file, line and key (exit 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from evaluators.core.errors import BadInput
from evaluators.specs.spec import BenchmarkSpec, builtin_specs, resolve


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("benchmarks", help="list, show and validate benchmark specs (built-in or your own)",
                            description="Benchmarks are spec files: the built-in ones ship with bananabench, and "
                                        "any TOML file in the same format adds one (docs/add-a-benchmark.md).")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    p = verbs.add_parser("list", help="the built-in benchmarks", description="The built-in benchmarks: id, "
                         "evaluator, short names, policy, headline metric and title.")
    p.add_argument("--json", action="store_true", help="one JSON object per benchmark")
    p.set_defaults(func=cmd_list)

    p = verbs.add_parser("show", help="a benchmark's spec with every default filled in",
                         description="Print a benchmark's resolved spec: its data, record mapping, selection, "
                                     "scoring (defaults included), official rules and categories.")
    p.add_argument("benchmark", metavar="ID_OR_FILE", help="a built-in id or short name, or a spec file")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_show)

    p = verbs.add_parser("validate", help="check a spec and map every record of its data",
                         description="Check every key of a spec, read its data and map every record to an item. "
                                     "Prints what a run would evaluate and whether it would be official. Errors "
                                     "name the file, line and key; exit 2.")
    p.add_argument("benchmark", metavar="FILE", help="a spec file (or a built-in id)")
    p.add_argument("--data", metavar="PATH_OR_REPO", default=None,
                   help="data to validate instead of the spec's own location: a local file or folder, or a hub "
                        "dataset repo id")
    p.add_argument("--data-revision", metavar="REV", default=None, help="hub revision of --data")
    p.add_argument("--split", dest="splits", metavar="SPLIT,...", default=None,
                   type=lambda text: [s.strip() for s in text.split(",") if s.strip()],
                   help="only these splits (benchmarks whose data is a manifest of splits)")
    p.set_defaults(func=cmd_validate)


def _evaluator(spec: BenchmarkSpec) -> Any:
    """The evaluator's spec module: `parse`, `describe`, `validate`."""
    if spec.evaluator == "loglik":
        from evaluators.loglik import spec as module
    else:
        from evaluators.chat import spec as module
    return module


def cmd_list(args: argparse.Namespace) -> int:
    specs = builtin_specs()
    for s in specs:
        row = {"id": s.id, "evaluator": s.evaluator, "aliases": list(s.aliases), "policy": s.policy,
               "headline": s.headline, "title": s.title, "version": s.version}
        if args.json:
            print(json.dumps(row))
        else:
            names = f" ({', '.join(s.aliases)})" if s.aliases else ""
            print(f"{s.id + names:32s} {s.evaluator:7s} {s.policy:9s} {s.headline:10s} {s.title}")
    if not args.json:
        # a hint, so on stderr; the rows go out first, so `2>&1` shows it on its own line after them
        sys.stdout.flush()
        print(f"{len(specs)} built-in benchmark(s); pass a spec file path to use your own", file=sys.stderr)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    spec = resolve(args.benchmark)
    module = _evaluator(spec)
    shown = {**spec.summary(), **module.describe(module.parse(spec))}
    if args.json:
        print(json.dumps(shown, indent=2, ensure_ascii=False))
        return 0
    for key, value in shown.items():
        if value in (None, "", [], {}):
            continue
        if isinstance(value, dict):
            print(f"{key}:")
            for name, inner in value.items():
                print(f"  {name}: {json.dumps(inner, ensure_ascii=False)}")
        elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
            print(f"{key}:")
            for inner in value:
                print(f"  - {json.dumps(inner, ensure_ascii=False)}")
        else:
            print(f"{key}: {', '.join(map(str, value)) if isinstance(value, list) else value}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from evaluators.specs.spec_data import locate

    spec = resolve(args.benchmark)
    module = _evaluator(spec)
    bench = module.parse(spec)
    if args.data_revision and not args.data:
        raise BadInput("--data-revision goes with --data")
    files = locate(spec, args.data, args.data_revision, args.splits)
    print(f"{spec.file}: {spec.evaluator} benchmark {spec.id} ({spec.title}), version {spec.version}")
    for data in files:
        selected, reasons = module.validate(bench, data)
        label = f"split {data.split}: " if data.split else ""
        print(f"{label}{data.path}: every record mapped; {selected} item(s) selected; SHA-256 {data.sha256}")
        print("  official" if not reasons else "  non-official: " + "; ".join(reasons))
    return 0
