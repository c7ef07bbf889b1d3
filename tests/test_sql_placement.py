"""SQL lives in two places only: the store (`evaluators/store/`) and the site's queries
(`evaluators/publish/queries/`). Everyone else asks them by name, so a change of schema touches those two.

Read from the code's string literals (f-strings with their holes filled, adjacent literals joined, docstrings
left out), so prose that mentions a keyword does not count and SQL built from pieces still does.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "evaluators"
SQL_HOMES = ("store", "publish/queries")
# Statement shapes, upper case as this code writes SQL (a lower-case "select … from" is prose).
SQL = re.compile(
    r"\b(?:SELECT\b[\s\S]*?\bFROM\b|INSERT\s+(?:OR\s+\w+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b"
    r"|CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP\s+|TEMPORARY\s+)?(?:TABLE|VIEW|INDEX|MACRO|SEQUENCE)\b"
    r"|DROP\s+(?:TABLE|VIEW|INDEX)\b|ALTER\s+TABLE\b|ATTACH\s+['\"{]|DETACH\s+\w|DESCRIBE\s+[\w{]|COPY\s*\()")


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def sql_literals(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string literal in `path` that holds an SQL statement."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docstrings = _docstrings(tree)
    inside_fstrings = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
              and id(node) not in inside_fstrings):
            text = node.value
        else:
            continue
        if SQL.search(text):
            out.append((node.lineno, " ".join(text.split())[:80]))
    return out


def misplaced() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if "node_modules" in rel or rel.startswith(tuple(home + "/" for home in SQL_HOMES)):
            continue
        found += [f"evaluators/{rel}:{line}: {text}" for line, text in sql_literals(path)]
    return found


def test_sql_lives_only_in_the_store_and_the_site_queries():
    assert misplaced() == []


def test_the_homes_do_hold_sql():
    """The check reads the right folders: both homes hold statements it recognises."""
    for home in SQL_HOMES:
        assert any(sql_literals(p) for p in (PACKAGE / home).rglob("*.py")), home


def test_the_check_sees_built_sql_and_ignores_prose(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        '"""Reads SELECT x FROM y in a docstring: prose."""\n'
        'def f(con, table):\n'
        '    """DELETE FROM here is prose too."""\n'
        '    con.execute(f"SELECT count(*) FROM {table}")\n'
        '    con.execute("UPDATE runs "\n'
        '                "SET hidden = ?", [True])\n'
        '    con.execute(f"DESCRIBE {table}")\n'
        '    return "select the runs from the store"\n', encoding="utf-8")
    assert [line for line, _ in sql_literals(probe)] == [4, 5, 7]
