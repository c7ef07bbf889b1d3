"""`python -m ledgerly COMMAND [options] [QUERY...]`

Commands: balance (bal), register (reg), activity (act), accounts, prices, check, import.
Journal files come from -f FILE (repeatable) or $LEDGERLY_FILE.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import date

from ledgerly import csvimport
from ledgerly.errors import LedgerError
from ledgerly.parser import parse_files
from ledgerly.periods import INTERVALS, parse_period
from ledgerly.prices import PriceDB
from ledgerly.query import parse_terms
from ledgerly.reports.activity import activity_report, render_activity
from ledgerly.reports.balance import balance_report, render_balance
from ledgerly.reports.register import register_report, render_register


def today() -> date:
    override = os.environ.get("LEDGERLY_TODAY")
    return date.fromisoformat(override) if override else date.today()


def _date_arg(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date: {text!r} (want YYYY-MM-DD)") from None


def add_common(p: argparse.ArgumentParser, query: bool = True) -> None:
    p.add_argument("-f", "--file", action="append", help="journal file (repeatable; default $LEDGERLY_FILE)")
    if query:
        p.add_argument("-b", "--begin", type=_date_arg, help="first date included")
        p.add_argument("-e", "--end", type=_date_arg, help="first date excluded")
        p.add_argument("-p", "--period", help="2024, 2024-03, 2024-Q2, 2024-W05, last month, ...")
        p.add_argument("-X", "--exchange", metavar="COMMODITY", help="convert amounts to this commodity")
        p.add_argument("query", nargs="*", help="account patterns, not:, payee:, tag:, status:, amt:")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ledgerly", description="Plain-text double-entry bookkeeping.")
    sub = parser.add_subparsers(dest="command", required=True)
    bal = sub.add_parser("balance", aliases=["bal"], help="account balances")
    add_common(bal)
    bal.add_argument("--depth", type=int)
    bal.add_argument("--flat", action="store_true", help="full account names, no tree")
    bal.add_argument("--empty", action="store_true", help="show zero balances too")
    bal.add_argument("--no-total", action="store_true")
    bal.set_defaults(func=cmd_balance)
    reg = sub.add_parser("register", aliases=["reg"], help="postings with a running total")
    add_common(reg)
    reg.set_defaults(func=cmd_register)
    act = sub.add_parser("activity", aliases=["act"], help="changes per period")
    add_common(act)
    act.add_argument("--interval", "-i", choices=INTERVALS, default="monthly")
    act.add_argument("--depth", type=int)
    act.set_defaults(func=cmd_activity)
    acc = sub.add_parser("accounts", help="list account names")
    add_common(acc, query=False)
    acc.set_defaults(func=cmd_accounts)
    pr = sub.add_parser("prices", help="list known prices")
    add_common(pr, query=False)
    pr.set_defaults(func=cmd_prices)
    chk = sub.add_parser("check", help="parse the journal and report problems")
    add_common(chk, query=False)
    chk.set_defaults(func=cmd_check)
    imp = sub.add_parser("import", help="convert a bank CSV into journal entries")
    imp.add_argument("csv")
    imp.add_argument("--account", required=True, help="the bank account, e.g. assets:checking")
    imp.add_argument("--default-account", default="expenses:unknown")
    imp.add_argument("--commodity", default="$")
    imp.add_argument("--date-column", default="date")
    imp.add_argument("--description-column", default="description")
    imp.add_argument("--amount-column", default="amount")
    imp.add_argument("--date-format", default="%Y-%m-%d")
    imp.add_argument("--decimal-comma", action="store_true")
    imp.set_defaults(func=cmd_import)
    return parser


def load(args):
    files = args.file or ([os.environ["LEDGERLY_FILE"]] if os.environ.get("LEDGERLY_FILE") else [])
    if not files:
        raise LedgerError("no journal file: use -f FILE or set LEDGERLY_FILE")
    return parse_files(files)


def query_of(args):
    query = parse_terms(args.query)
    if args.period:
        period = parse_period(args.period, today())
        query.begin, query.end = period.start, period.end
    if args.begin:
        query.begin = args.begin
    if args.end:
        query.end = args.end
    return query


def cmd_balance(args) -> int:
    journal = load(args)
    query = query_of(args)
    rows, total = balance_report(journal, query, depth=args.depth, flat=args.flat, convert_to=args.exchange,
                                 at=(query.end and query.end.fromordinal(query.end.toordinal() - 1)) if args.exchange else None,
                                 empty=args.empty)
    sys.stdout.write(render_balance(rows, total, journal.commodities, show_total=not args.no_total))
    return 0


def cmd_register(args) -> int:
    journal = load(args)
    lines = register_report(journal, query_of(args), convert_to=args.exchange)
    sys.stdout.write(render_register(lines, journal.commodities))
    return 0


def cmd_activity(args) -> int:
    journal = load(args)
    query = query_of(args)
    report = activity_report(journal, query, args.interval, depth=args.depth, convert_to=args.exchange,
                             begin=query.begin, end=query.end)
    sys.stdout.write(render_activity(report, journal.commodities))
    return 0


def cmd_accounts(args) -> int:
    for name in load(args).accounts():
        print(name)
    return 0


def cmd_prices(args) -> int:
    journal = load(args)
    db = PriceDB.from_journal(journal)
    for source, target in db.pairs():
        for day, rate in db.history(source, target):
            print(f"P {day.isoformat()} {source} {rate} {target}")
    return 0


def cmd_check(args) -> int:
    journal = load(args)
    span = journal.date_span()
    print(f"{len(journal.transactions)} transactions, {len(journal.accounts())} accounts"
          + (f", {span[0].isoformat()} to {span[1].isoformat()}" if span else ""))
    return 0


def cmd_import(args) -> int:
    settings = csvimport.ImportSettings(
        account=args.account, default_account=args.default_account, commodity=args.commodity,
        date_column=args.date_column, description_column=args.description_column,
        amount_column=args.amount_column, date_format=args.date_format, decimal_comma=args.decimal_comma,
    )
    with open(args.csv, encoding="utf-8-sig") as fh:
        text = fh.read()
    sys.stdout.write(csvimport.to_journal(csvimport.read_rows(text, settings), settings))
    return 0


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (LedgerError, ValueError, OSError) as exc:
        print(f"ledgerly: {exc}", file=sys.stderr)
        return 2
