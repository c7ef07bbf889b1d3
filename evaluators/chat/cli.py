"""`bananabench chat ...`: run, rescore, extract, import-lm-eval, compare, shim."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from evaluators.chat.extract import KINDS
from evaluators.chat.options import ChatOptions
from evaluators.core import cliargs
from evaluators.core.errors import EXIT_FAILURE, BadInput


def _max_tokens(text: str) -> dict[str, int]:
    """`512` (every task) or `arc=1024,mmlu=2048` (by task id or short name; checked when the run starts)."""
    from evaluators.chat.run import EVERY_TASK

    if "=" not in text:
        return {EVERY_TASK: cliargs.positive_int(text.strip())}
    budgets = {}
    for part in text.split(","):
        task, _, value = part.partition("=")
        budgets[task.strip()] = cliargs.positive_int(value.strip())
    return budgets


def _tasks(text: str) -> list[str]:
    """`arc,./mine.toml` -> ["arc", "./mine.toml"] (checked, and `all` expanded, when the run starts)."""
    return [t.strip() for t in text.split(",") if t.strip()]


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON: {exc.msg}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("expected a JSON object")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("chat", help="generative benchmarks against a chat server; A/B compare; lm-eval shim",
                       description="Generative benchmarks (letter, number, exact or regex answers) against an "
                                   "OpenAI-compatible server such as llama-server: the built-in ones "
                                   "(`bananabench benchmarks list`) or your own spec files.")
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)

    r = verbs.add_parser("run", help="evaluate a served model on one or more chat tasks",
                         description="Ask every item of each task, extract the answer, store one row per item. "
                                     "Infrastructure errors are kept apart and retried by --resume.")
    r.add_argument("--task", dest="tasks", type=_tasks, required=True, metavar="TASK[,TASK...]",
                   help="built-in chat benchmarks by id or short name (`bananabench benchmarks list`), spec files "
                        "(.toml), a comma-separated list of them, or all (every built-in chat benchmark)")
    cliargs.add_run_common(r)
    cliargs.add_server(r)
    r.add_argument("--fold-system", action="store_true", default=None,
                   help="fold the system text into the user turn (automatic when the template has no system role)")
    r.add_argument("--max-tokens", type=_max_tokens, default=None, metavar="N|TASK=N,...",
                   help="token budget per answer, for every task or per task (default: each spec's; "
                        "`bananabench benchmarks show TASK`)")
    r.add_argument("--extra-body", type=_json_object, default=None, metavar="JSON",
                   help='extra request fields, e.g. \'{"chat_template_kwargs": {"enable_thinking": false}}\'')
    r.add_argument("--no-stream", dest="stream", action="store_false",
                   help="ask for whole responses instead of SSE streams")
    r.add_argument("--retries", type=cliargs.positive_int, default=5,
                   help="attempts per request on transient failures (default 5)")
    r.add_argument("--retry-wait", type=cliargs.non_negative_float, default=1.0, metavar="S",
                   help="first backoff between attempts, doubling each time (default 1 s)")
    r.add_argument("--timeout", type=cliargs.non_negative_float, default=600.0, metavar="S",
                   help="give up on a request after S seconds without data (default 600)")
    r.set_defaults(func=cmd_run)

    s = verbs.add_parser("rescore", help="re-extract answers of a stored run without calling the model",
                         description="Apply the current extraction rules to the raw responses stored for RUN and "
                                     "update its verdicts and scores.")
    s.add_argument("run_id", metavar="RUN")
    cliargs.add_results(s)
    s.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")
    s.set_defaults(func=cmd_rescore)

    e = verbs.add_parser("extract", help="extract answers from JSON lines on stdin (for scripts)",
                         description='Read JSON lines {"text": ...} (optionally "letters": "ABCDE") on stdin; write '
                                     'one JSON line {"answer": ...} per input, null when unanswered.')
    e.add_argument("--kind", choices=KINDS, required=True)
    e.add_argument("--letters", default="ABCD", help="the option letters offered (default ABCD)")
    e.add_argument("--pattern", default=None, metavar="REGEX",
                   help="regex answers: the answer is the pattern's last match (its first group, if it has one)")
    e.set_defaults(func=cmd_extract)

    i = verbs.add_parser("import-lm-eval", help="bring an lm-eval run (results_*.json, samples_*.jsonl) into the store",
                         description="Import an lm-eval output folder, re-extracting every response with our rules. "
                                     "A doc sampled twice is scored once; a doc answered both ways keeps the decided verdict.")
    i.add_argument("directory", metavar="DIR")
    cliargs.add_name(i, required=True)
    cliargs.add_results(i)
    i.add_argument("--task", dest="tasks", type=_tasks, default=None, metavar="TASK[,TASK...]",
                   help="the benchmarks (built-in ids or spec files) whose lm_eval names the folder's tasks are "
                        "matched against (default: every built-in chat benchmark)")
    i.set_defaults(func=cmd_import)

    c = verbs.add_parser("compare", help="paired A/B comparison of two runs or two models (exact McNemar)",
                         description="Compare RUN_A and RUN_B (run ids, or model names: their current chat runs per "
                                     "task): accuracy, wrong/unanswered split, exact McNemar p-value, flipped items.")
    c.add_argument("run_a", metavar="RUN_A")
    c.add_argument("run_b", metavar="RUN_B")
    cliargs.add_results(c)
    c.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    c.add_argument("--out", metavar="FILE", default=None, help="write the report there instead of stdout")
    c.add_argument("--max-flips", type=int, default=20, help="flipped items listed per task in the table (default 20)")
    c.set_defaults(func=cmd_compare)

    h = verbs.add_parser("shim", help="serve llama-server to lm-eval: the three translations, a reverse proxy otherwise",
                         description="Adapter between lm-eval and llama-server: /tokenizer_info from /props, /tokenize "
                                     "and /detokenize field names, legacy /v1/completions log-probs; everything else "
                                     "is proxied unchanged (streaming included).")
    h.add_argument("--upstream", required=True, help="the llama-server, e.g. http://127.0.0.1:8080")
    h.add_argument("--port", type=int, required=True, help="port to listen on (0 picks a free one)")
    h.add_argument("--host", default="127.0.0.1")
    h.set_defaults(func=cmd_shim)


def cmd_run(args: argparse.Namespace) -> int:
    from evaluators.chat.run import run_chat

    results = run_chat(cliargs.options(ChatOptions, args))
    failed = False
    for res in results:
        s = res.summary
        acc = "n/a" if s["accuracy"] is None else f"{s['accuracy']:.3f}"
        print(f"{res.task}: {res.run_id} {res.status} accuracy {acc} ({s['n_correct']} correct, {s['n_wrong']} wrong, "
              f"{s['n_unanswered']} unanswered, {s['n_truncated']} truncated, {s['n_error']} errors)")
        failed |= res.status != "finished"
    if failed:
        print("bananabench: some items ended in infrastructure errors; run again with --resume to retry them",
              file=sys.stderr)
        return EXIT_FAILURE
    return 0


def cmd_rescore(args: argparse.Namespace) -> int:
    from evaluators.chat.run import rescore_run
    from evaluators.store.store import Store

    result = rescore_run(Store(args.results), args.run_id, dry_run=args.dry_run)
    s = result["summary"]
    verb = "would change" if args.dry_run else "changed"
    print(f"{result['run_id']}: {len(result['changed'])} of {result['n']} verdicts {verb} "
          f"(extraction {result['extraction']}); accuracy "
          f"{'n/a' if s['accuracy'] is None else format(s['accuracy'], '.3f')}")
    for change in result["changed"]:
        print(f"  {change['item_id']}: {change['before'][0]} {change['before'][1]!r} -> "
              f"{change['after'][0]} {change['after'][1]!r}")
    return 0


def cmd_extract(args: argparse.Namespace) -> int:
    import re

    from evaluators.chat.extract import LETTERS, extract

    if not args.letters or any(ch not in LETTERS for ch in args.letters):
        raise BadInput(f"--letters: expected letters from {LETTERS}, got {args.letters!r}")
    if (args.kind == "regex") != bool(args.pattern):
        raise BadInput("--pattern goes with --kind regex, and --kind regex needs --pattern")
    if args.pattern:
        try:
            re.compile(args.pattern)
        except re.error as exc:
            raise BadInput(f"--pattern: not a valid regular expression: {exc}") from None
    inputs = []
    for n, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInput(f"stdin:{n}: invalid JSON: {exc.msg}") from None
        if not isinstance(obj, dict) or "text" not in obj or not isinstance(obj["text"], (str, type(None))):
            raise BadInput(f'stdin:{n}: text: expected {{"text": "..."}}')
        letters = obj.get("letters", args.letters)
        if not isinstance(letters, str) or not letters or any(ch not in LETTERS for ch in letters):
            raise BadInput(f"stdin:{n}: letters: expected letters from {LETTERS}")
        inputs.append((obj.get("text"), letters))
    out = [json.dumps({"answer": extract(args.kind, text, letters, args.pattern)}) for text, letters in inputs]
    sys.stdout.write("".join(line + "\n" for line in out))
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from evaluators.chat.lmeval_import import import_lm_eval
    from evaluators.store.store import Store

    for res in import_lm_eval(Store(args.results), args.directory, name=args.name, tasks=args.tasks):
        s = res.summary
        acc = "n/a" if s["accuracy"] is None else f"{s['accuracy']:.3f}"
        note = " (already imported)" if res.status == "unchanged" else ""
        print(f"{res.task}: {res.run_id}{note} accuracy {acc} ({s['n_correct']} correct, {s['n_wrong']} wrong, "
              f"{s['n_unanswered']} unanswered; {res.duplicates} duplicate samples merged)")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from evaluators.chat.compare import compare, render
    from evaluators.core import atomic
    from evaluators.store.store import Store

    report = compare(Store(args.results), args.run_a, args.run_b)
    text = render(report, args.format, max_flips=args.max_flips)
    if args.out:
        atomic.write_text(args.out, text, overwrite=True)
        print(f"wrote {args.out}")
    else:
        sys.stdout.write(text)
    return 0


def cmd_shim(args: argparse.Namespace) -> int:
    from evaluators.chat.shim import Shim

    with Shim(args.upstream, host=args.host, port=args.port) as shim:
        shim.serve_until_signalled(
            lambda: print(f"shim listening on {shim.base_url}, forwarding to {shim.upstream}", flush=True))
    return 0
