"""`python -m logstat FILE... [--since T] [--until T] [--status 4xx,5xx] [--prefix /api] [--top N] [--json]
[--latency [--min-count N]]`"""

from __future__ import annotations

import argparse
import json
import sys

from logstat.filters import parse_when, select
from logstat.latency import latency_table, render_latency
from logstat.parser import parse_lines
from logstat.report import render_text, summarize


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="logstat", description="Summarize access logs.")
    p.add_argument("files", nargs="+", help="log files ('-' for stdin)")
    p.add_argument("--since", type=parse_when, help="ISO time, inclusive")
    p.add_argument("--until", type=parse_when, help="ISO time, exclusive")
    p.add_argument("--status", help="comma-separated classes such as 4xx,5xx")
    p.add_argument("--prefix", help="only paths starting with this")
    p.add_argument("--top", type=int, default=5)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--strict", action="store_true", help="fail on unparsable lines")
    p.add_argument("--latency", action="store_true", help="add p50/p90/p99/max request time per endpoint")
    p.add_argument("--min-count", type=int, default=1, help="with --latency: hide endpoints with fewer samples")
    return p


def read_lines(files):
    for name in files:
        if name == "-":
            yield from sys.stdin
        else:
            with open(name, encoding="utf-8", errors="replace") as fh:
                yield from fh


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    errors: list[str] = []
    statuses = set(args.status.split(",")) if args.status else None
    try:
        records = list(select(parse_lines(read_lines(args.files), errors), args.since, args.until, statuses,
                              args.prefix))
    except OSError as exc:
        print(f"logstat: {exc}", file=sys.stderr)
        return 2
    if errors and args.strict:
        print(f"logstat: {errors[0]}", file=sys.stderr)
        return 1
    summary = summarize(records)
    if args.json:
        data = summary.to_dict(args.top)
        data["skipped_lines"] = len(errors)
        if args.latency:
            data["latency"] = [row.to_dict() for row in latency_table(records, args.min_count)]
        print(json.dumps(data, indent=2))
    else:
        sys.stdout.write(render_text(summary, args.top))
        if errors:
            print(f"({len(errors)} unparsable line(s) skipped)")
        if args.latency:
            sys.stdout.write(render_latency(latency_table(records, args.min_count)))
    return 0
