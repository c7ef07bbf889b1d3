"""Regenerate the documentation that comes from the code: docs/cli.md from the argparse parsers and the
schema section of docs/store.md from the migrations.

`python -m evaluators.docs --write` rewrites them; `--check` exits 1 when one is stale (a test runs it),
so the reference never drifts from `--help` or the schema.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
WIDTH = "100"
CLI_HEADER = """# Command reference

Every command's `--help`, generated from the parsers by `make docs` (`python -m evaluators.docs --write`);
a test fails when this page is stale. Exit codes: 0 ok, 2 bad input or usage, 3 evaluation failure.

"""


def _command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                paths.extend(_command_paths(sub, prefix + (name,)))
    return paths


def cli_reference() -> str:
    from evaluators import cli

    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        blocks = []
        for path in _command_paths(cli.build_parser()):
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
                cli.build_parser().parse_args([*path, "--help"])
            title = "bananabench " + " ".join(path)
            blocks.append(f"## `{title.strip()}`\n\n```text\n{out.getvalue().rstrip()}\n```\n")
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved
    return CLI_HEADER + "\n".join(blocks)


def schema_reference() -> str:
    from evaluators.store import lookups
    from evaluators.store.schema import MIGRATIONS
    from evaluators.store.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        lines = [f"Schema version {MIGRATIONS[-1][0]}. Migrations:", ""]
        lines += [f"{version}. {description}" for version, description, _ in MIGRATIONS]
        for name, label, columns in lookups.relations(Store(tmp)):
            lines += ["", f"**`{name}`** ({label})", "", "| column | type | null |", "|---|---|---|"]
            lines += [f"| `{column}` | {kind} | {'yes' if nullable else 'no'} |" for column, kind, nullable in columns]
    return "\n".join(lines) + "\n"


def _section(name: str, make: Callable[[], str]) -> Callable[[str], str]:
    """A renderer that replaces what lies between `<!-- NAME:start -->` and `<!-- NAME:end -->`."""
    pattern = re.compile(rf"(<!-- {name}:start -->\n).*?(<!-- {name}:end -->)", re.S)

    def render(text: str) -> str:
        if not pattern.search(text):
            raise SystemExit(f"lacks the <!-- {name}:start --> / <!-- {name}:end --> markers")
        body = make()
        return pattern.sub(lambda m: m.group(1) + body + m.group(2), text)

    return render


# Each generated page and how it is rendered from its current text.
PAGES: dict[str, Callable[[str], str]] = {
    "cli.md": lambda _current: cli_reference(),
    "store.md": _section("schema", schema_reference),
}


def stale(docs: Path = DOCS) -> dict[Path, str]:
    """Each generated page whose text differs from a fresh rendering, with the fresh text."""
    out = {}
    for name, render in PAGES.items():
        path = docs / name
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        fresh = render(current)
        if fresh != current:
            out[path] = fresh
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the generated pages in place")
    mode.add_argument("--check", action="store_true", help="exit 1 if a generated page is stale")
    args = parser.parse_args(argv)
    changed = stale()
    if args.check:
        for path in changed:
            print(f"{path} is stale: run `make docs`", file=sys.stderr)
        return 1 if changed else 0
    for path, text in changed.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
