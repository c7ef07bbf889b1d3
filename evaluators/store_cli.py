"""`bananabench store ...`: inspect, query, export, merge and curate the results store."""

from __future__ import annotations

import argparse
import csv
import json
import sys

from evaluators.core import cliargs
from evaluators.store import lookups
from evaluators.store.export import FORMATS, export_store
from evaluators.store.merge import merge_store
from evaluators.store.store import Store

QUERY_FORMATS = ("csv", "json", "table")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("store", help="inspect, query, export, merge and curate the results store",
                            description="Inspect, query, export, merge and curate the results store.")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    p = verbs.add_parser("info", help="schema version, row counts and runs")
    cliargs.add_results(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_info)

    p = verbs.add_parser("query", help="run one read-only SQL statement and print its rows",
                         description="Run one read-only SQL statement and print its rows: CSV with LF line ends "
                                     "(default), JSON lines, or an aligned table for reading.")
    cliargs.add_results(p)
    p.add_argument("sql", help=f"SQL, e.g. \"{lookups.EXAMPLE_QUERY}\"")
    p.add_argument("--format", choices=QUERY_FORMATS, default="csv",
                   help="csv (header row, LF line ends), json (one object per line) or table (default: csv)")
    p.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")
    p.set_defaults(func=cmd_query)

    p = verbs.add_parser("export", help="write every table as Parquet or CSV files")
    cliargs.add_results(p)
    p.add_argument("dir", help="output directory (must be empty or absent)")
    p.add_argument("--format", choices=FORMATS, default="parquet")
    p.add_argument("--private", action="store_true",
                   help="include item text of ids-only benchmarks (never publish such an export)")
    p.add_argument("--include-hidden", action="store_true", help="include hidden runs (left out by default)")
    p.set_defaults(func=cmd_export)

    p = verbs.add_parser("merge", help="bring in runs from another results directory or .duckdb file")
    cliargs.add_results(p)
    p.add_argument("other", help="results directory or bananabench.duckdb made elsewhere (e.g. on a GPU box)")
    p.set_defaults(func=cmd_merge)

    for verb, hidden in (("hide", True), ("unhide", False)):
        p = verbs.add_parser(verb, help=f"{verb} a run on the leaderboard and site")
        cliargs.add_results(p)
        p.add_argument("run_id", metavar="RUN")
        p.set_defaults(func=cmd_hide, hidden=hidden)

    p = verbs.add_parser("rename-model", help="rename a model in every run and grade")
    cliargs.add_results(p)
    p.add_argument("old")
    p.add_argument("new")
    p.set_defaults(func=cmd_rename)


def cmd_info(args) -> int:
    store = Store(args.results)
    info = store.info()
    runs = lookups.run_overview(store)
    if args.json:
        print(json.dumps({**info, "runs": runs}, indent=2, default=str))
        return 0
    print(f"store: {info['path']}")
    print(f"schema version: {info['schema_version']}")
    print("rows: " + ", ".join(f"{k} {v}" for k, v in info["tables"].items()))
    print("runs: " + (", ".join(f"{k} {v}" for k, v in info["runs_by_status"].items()) or "none"))
    for r in runs:
        flags = [r["status"]] + (["official"] if r["official"] else []) + (["hidden"] if r["hidden"] else [])
        split = f" [{r['split']}]" if r["split"] else ""
        print(f"  {r['run_id']}  {r['model_name']}  {r['benchmark']}{split}  {' '.join(flags)}")
    return 0


def cmd_query(args) -> int:
    result = Store(args.results).query(args.sql)
    if args.format == "json":
        for row in result.dicts():
            print(json.dumps(row, default=str))
    elif args.format == "table":
        print(_table(result.columns, result.rows))
    else:
        # csv's default CRLF would leave a `\r` on every value a shell reads
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(result.columns)
        writer.writerows(result.rows)
    return 0


def _table(columns: list[str], rows: list[tuple]) -> str:
    """Columns padded to their widest cell, a rule under the header, NULL shown as empty; then the row count."""
    cells = [[("" if v is None else str(v)).replace("\n", " ") for v in row] for row in rows]
    widths = [max([len(name)] + [len(row[i]) for row in cells]) for i, name in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in [list(columns), ["-" * w for w in widths], *cells]]
    return "\n".join(lines + [f"({len(rows)} row{'s' if len(rows) != 1 else ''})"])


def cmd_export(args) -> int:
    files = export_store(Store(args.results), args.dir, args.format, private=args.private,
                         include_hidden=args.include_hidden)
    print(f"exported {len(files)} tables to {args.dir}")
    return 0


def cmd_merge(args) -> int:
    counts = merge_store(Store(args.results), args.other)
    print("merged: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


def cmd_hide(args) -> int:
    Store(args.results).set_hidden(args.run_id, args.hidden)
    print(f"{'hid' if args.hidden else 'unhid'} {args.run_id}")
    return 0


def cmd_rename(args) -> int:
    n = Store(args.results).rename_model(args.old, args.new)
    print(f"renamed {args.old} to {args.new} ({n} runs)")
    return 0
