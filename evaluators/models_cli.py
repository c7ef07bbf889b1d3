"""`bananabench models ...`: list model names in the store; build tiny offline models."""

from __future__ import annotations

import argparse
import json

from evaluators.core import cliargs
from evaluators.core.store import Store


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("models", help="list models in the store; build tiny offline test models",
                            description="List models in the store; build tiny offline test models.")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    p = verbs.add_parser("list", help="model names with their runs")
    cliargs.add_results(p)
    p.add_argument("--json", action="store_true", help="print JSON lines")
    p.set_defaults(func=cmd_list)

    p = verbs.add_parser(
        "make-tiny", help="build a tiny random Llama model + BPE tokenizer (and optionally its GGUF) offline",
        description="Build a deterministic tiny Llama-architecture model with a byte-level BPE tokenizer "
                    "trained on a bundled corpus, saved with save_pretrained; --gguf also writes the same "
                    "weights as a GGUF file that llama.cpp loads. Needs the [hf] extra (and [gguf] for --gguf).",
    )
    p.add_argument("dir", help="output folder (must be empty or absent)")
    p.add_argument("--seed", type=int, default=0, help="random seed for weights (default 0)")
    p.add_argument("--gguf", action="store_true", help="also write DIR/model.gguf (float32)")
    p.set_defaults(func=cmd_make_tiny)


def cmd_list(args) -> int:
    rows = Store(args.results).query(
        "SELECT m.name, count(r.run_id) AS runs, count(r.run_id) FILTER (WHERE r.status = 'finished') AS finished, "
        "string_agg(DISTINCT r.benchmark, ',' ORDER BY r.benchmark) AS benchmarks "
        "FROM models m LEFT JOIN runs r ON r.model_name = m.name GROUP BY m.name ORDER BY m.name"
    ).dicts()
    for row in rows:
        if args.json:
            print(json.dumps(row))
        else:
            print(f"{row['name']}  runs {row['runs']} (finished {row['finished']})  {row['benchmarks'] or ''}")
    return 0


def cmd_make_tiny(args) -> int:
    from evaluators.core.tinymodel import make_tiny

    info = make_tiny(args.dir, seed=args.seed, gguf=args.gguf)
    print(json.dumps(info, indent=2))
    return 0
