"""The `bananabench` command: one entry point, sub-commands per evaluator plus store/models/report/publish/demo.

Every sub-command module registers its own parser and handler; handlers return an exit
code (0 ok, 2 bad input, 3 evaluation failure) or raise a `BananaError` that carries one.
Nothing imported here may import torch: heavy modules load inside the handlers.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from evaluators import __version__
from evaluators.core import logs
from evaluators.core.errors import EXIT_FAILURE, BananaError
from evaluators.runs import distributed

# Modules with a `register(subparsers)` function, in the order `--help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "evaluators.store_cli",
    "evaluators.models_cli",
    "evaluators.benchmarks_cli",
    "evaluators.loglik.cli",
    "evaluators.lmeval.cli",
    "evaluators.agent.cli",
    "evaluators.chat.cli",
    "evaluators.modes.cli",
    "evaluators.demo",
    "evaluators.doctor",
    "evaluators.publish.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bananabench",
        description="Evaluate language models in batch into one DuckDB store and publish a static leaderboard.",
    )
    parser.add_argument("--version", action="version", version=f"bananabench {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings and errors only")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logs.setup(verbose=args.verbose, quiet=args.quiet)
    return distributed.end_process(_run(args))


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args) or 0)
    except BananaError as exc:
        print(f"bananabench: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("bananabench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception:
        logging.getLogger("bananabench").exception("unexpected failure")
        return EXIT_FAILURE


if __name__ == "__main__":
    raise SystemExit(main())
