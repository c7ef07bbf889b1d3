"""Flags that mean the same in every command (`--name`, `--results`, `--data`, `--resume`, `--limit`)."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value < 0 or value != value:
        raise argparse.ArgumentTypeError(f"expected a non-negative number, got {text!r}")
    return value


def add_results(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--results", metavar="DIR", default=None,
        help="results directory holding bananabench.duckdb and runs/ (default: $BANANABENCH_RESULTS or ./results)",
    )


def add_name(parser: argparse.ArgumentParser, required: bool = False) -> None:
    parser.add_argument(
        "--name", required=required, default=None,
        help="model name: the leaderboard row (default: derived from the model file or hub id)",
    )


def add_data(parser: argparse.ArgumentParser, help: str = "dataset location: a local folder/file or a hub repo id") -> None:
    parser.add_argument("--data", metavar="PATH_OR_REPO", default=None, help=help)


def add_resume(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--resume", action="store_true",
        help="continue the latest unfinished run of this model and benchmark (refused if its configuration differs)",
    )


def add_api_key_env(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--api-key-env", metavar="VAR", default=None,
        help="environment variable holding the server's API key (default: $BANANABENCH_API_KEY, then "
             "$OPENAI_API_KEY; the key is never stored)",
    )


def add_limit(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--limit", type=positive_int, metavar="N", default=None,
        help="evaluate only the first N items (the run is marked non-official)",
    )


def add_run_common(parser: argparse.ArgumentParser) -> None:
    """The common flags of an evaluator's `run` command."""
    add_name(parser)
    add_results(parser)
    add_data(parser)
    add_resume(parser)
    add_limit(parser)
