"""No code names a built-in benchmark: a benchmark is its spec file (Base Bench 1.1's seed checks excepted)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from evaluators.specs.spec import builtin_specs
from tests.conftest import REPO

# Where a seed demands behaviour no spec can express: Base Bench 1.1's record checks and category table.
EXCEPTED = {Path("evaluators/loglik/basebench.py")}


def names() -> set[str]:
    return {name for spec in builtin_specs() for name in spec.names}


def docstrings(tree: ast.AST) -> set[int]:
    """Line numbers where docstrings start."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(first.lineno)
    return out


def mentions(path: Path, wanted: set[str]) -> list[str]:
    text = path.read_text(encoding="utf-8")
    skip = docstrings(ast.parse(text))
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(wanted, key=len, reverse=True))) + r")(?![\w-])")
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in (tokenize.STRING, tokenize.NAME) or tok.start[0] in skip:
            continue
        for match in pattern.finditer(tok.string):
            found.append(f"{path.relative_to(REPO)}:{tok.start[0]}: {match.group(1)!r}")
    return found


def test_no_code_names_a_builtin_benchmark():
    wanted = names()
    found = []
    for path in sorted((REPO / "evaluators").rglob("*.py")):
        if "node_modules" in path.parts or path.relative_to(REPO) in EXCEPTED:
            continue
        found += mentions(path, wanted)
    assert found == []
