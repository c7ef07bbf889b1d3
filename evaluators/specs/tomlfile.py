"""TOML files whose every value can be traced back to its line, for errors that say `file:line: key: ...`.

`tomllib` (the standard library's parser) reads the file; its syntax errors already carry the line.
Values do not, so `Locator` scans the text once for table headers (`[a.b]`, `[[a]]`) and key lines
(`key =`, `a.b =`), skipping the inside of multi-line strings, and answers the line of any dotted path
(the nearest enclosing key for values inside inline tables and arrays).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput, located

_KEY = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_DOTTED})\s*\]\]?")
_ASSIGN = re.compile(rf"^\s*({_DOTTED})\s*=\s*(.*)$")
_PART = re.compile(_KEY)
_TOML_ERROR_LINE = re.compile(r"\(at line (\d+), column \d+\)")

Path_ = tuple[str | int, ...]


def _parts(dotted: str) -> list[str]:
    return [p[1:-1] if p[:1] in "\"'" else p for p in _PART.findall(dotted)]


class Locator:
    """Line numbers of the keys and tables of one TOML text."""

    def __init__(self, text: str):
        self.lines: dict[Path_, int] = {}
        arrays: dict[tuple[str, ...], int] = {}
        table: Path_ = ()
        closing: str | None = None  # the delimiter of a multi-line string being skipped
        for number, line in enumerate(text.splitlines(), start=1):
            if closing is not None:
                if closing in line:
                    closing = None
                continue
            header = _HEADER.match(line)
            if header:
                names = tuple(_parts(header.group(2)))
                if header.group(1) == "[[":
                    index = arrays.get(names, -1) + 1
                    arrays[names] = index
                    table = (*names, index)
                else:
                    table = names
                self.lines.setdefault(table, number)
                continue
            assign = _ASSIGN.match(line)
            if not assign:
                continue
            path = (*table, *_parts(assign.group(1)))
            self.lines.setdefault(path, number)
            value = assign.group(2)
            for quote in ('"""', "'''"):
                if value.startswith(quote) and value.count(quote) == 1:
                    closing = quote

    def line(self, path: Path_) -> int | None:
        """The line of `path`, or of its nearest enclosing key or table."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return None


def read_toml(path: str | Path) -> tuple[dict[str, Any], Locator]:
    """The parsed file and its locator; BadInput naming the file and line on a syntax error."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: cannot read: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_ERROR_LINE.search(str(exc))
        message = _TOML_ERROR_LINE.sub("", str(exc)).strip()
        raise BadInput(located(path, int(found.group(1)) if found else None, None,
                               f"not valid TOML: {message}")) from None
    return data, Locator(text)
