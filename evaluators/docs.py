"""Regenerate the CLI reference and the store schema sections of README.md from the code.

`python -m evaluators.docs --write` rewrites the marked sections; `--check` exits 1 when
they are stale (a test runs it), so the README never drifts from `--help` or the schema.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
import tempfile
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
WIDTH = "100"


def _command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                paths.extend(_command_paths(sub, prefix + (name,)))
    return paths


def cli_reference() -> str:
    from evaluators import cli

    os.environ["COLUMNS"] = WIDTH
    parser = cli.build_parser()
    blocks = []
    for path in _command_paths(parser):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            cli.build_parser().parse_args([*path, "--help"])
        title = "bananabench " + " ".join(path) if path else "bananabench"
        blocks.append(f"#### `{title.strip()}`\n\n```text\n{out.getvalue().rstrip()}\n```\n")
    return "\n".join(blocks)


def schema_reference() -> str:
    from evaluators.core.schema import MIGRATIONS
    from evaluators.core.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(tmp)
        tables = store.query(
            "SELECT table_name, table_type FROM information_schema.tables "
            "WHERE table_name <> 'schema_migrations' ORDER BY table_type, table_name"
        ).rows
        lines = [f"Schema version {MIGRATIONS[-1][0]}. Migrations:", ""]
        lines += [f"{version}. {description}" for version, description, _ in MIGRATIONS]
        for name, kind in tables:
            columns = store.query(f"DESCRIBE {name}").rows
            label = "view" if kind == "VIEW" else "table"
            lines += ["", f"**`{name}`** ({label})", "", "| column | type | null |", "|---|---|---|"]
            lines += [f"| `{c[0]}` | {c[1]} | {'yes' if c[2] == 'YES' else 'no'} |" for c in columns]
    return "\n".join(lines) + "\n"


SECTIONS = {"cli": cli_reference, "schema": schema_reference}


def render(text: str) -> str:
    for name, make in SECTIONS.items():
        pattern = re.compile(rf"(<!-- {name}:start -->\n).*?(<!-- {name}:end -->)", re.S)
        if not pattern.search(text):
            raise SystemExit(f"README.md lacks the <!-- {name}:start --> / <!-- {name}:end --> markers")
        body = make()
        text = pattern.sub(lambda m, body=body: m.group(1) + body + m.group(2), text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the sections in place")
    mode.add_argument("--check", action="store_true", help="exit 1 if the sections are stale")
    args = parser.parse_args(argv)
    current = README.read_text()
    fresh = render(current)
    if args.check:
        if fresh != current:
            print("README.md is stale: run `make docs`", file=sys.stderr)
            return 1
        return 0
    if fresh != current:
        README.write_text(fresh)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
