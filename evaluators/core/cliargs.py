"""Flags that mean the same in every command, declared once, and the options dataclasses built from them.

Common flags: `--name`, `--results`, `--data`, `--resume`, `--limit`; the server group (`--base-url
--model-id --ctx --concurrency --api-key-env`) of every command that talks to a served model. Each
evaluator has one options dataclass that its CLI builds with `options(...)` and that `evaluators.api`
takes as it is, so a flag is plumbed through once.
"""

from __future__ import annotations

import argparse
import dataclasses
import typing
from typing import Any, TypeVar

T = TypeVar("T")


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


def add_api_key_env(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
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


def add_server(parser: argparse.ArgumentParser, *, required: bool = True, concurrency: bool = True,
               base_url_in: argparse._ActionsContainer | None = None, note: str = "") -> None:
    """The server flags, as one group; `base_url_in` puts --base-url into another (e.g. exclusive) group."""
    group = parser.add_argument_group(
        "server", "an OpenAI-compatible server such as llama-server (single model or router)" + note)
    (base_url_in or group).add_argument(
        "--base-url", metavar="URL", action="append", required=required and base_url_in is None, default=None,
        help="the server, e.g. http://127.0.0.1:8081 (a /v1 suffix is fine); give it again for each replica of "
             "the same model: they share the requests by free slots and take over from one that fails")
    group.add_argument("--model-id", metavar="ID", default=None,
                       help="the server's model id (default: the only model, the loaded one, or the one "
                            "matching --name)")
    group.add_argument("--ctx", type=positive_int, metavar="N", default=None,
                       help="the context window per slot (default: from /props, the model list, the router's "
                            "launch args or /slots)")
    if concurrency:
        group.add_argument("--concurrency", type=positive_int, metavar="N", default=None,
                           help="requests in flight (default: the server's slots)")
    add_api_key_env(group)


def options(cls: type[T], args: argparse.Namespace, **values: Any) -> T:
    """An options dataclass from parsed flags: each field from the flag with its name (its dest), nested
    options dataclasses (such as `server`) built the same way. A flag left at None keeps the field's
    default; `values` override."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name in values:
            continue
        kind = hints[f.name]
        if dataclasses.is_dataclass(kind):
            values[f.name] = options(kind, args)
            continue
        value = getattr(args, f.name, None)
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if value is not None or not has_default:
            values[f.name] = value
    return cls(**values)
