"""The scripts in benchmarks/ import only what exists: a package move that leaves one behind fails here, not the
day someone runs it. Imports inside functions count too (benchmarks import their heavy parts lazily)."""

from __future__ import annotations

import ast
import importlib

import pytest

from tests.conftest import REPO

SCRIPTS = sorted((REPO / "benchmarks").glob("*.py"))
OURS = ("evaluators", "tests")


def _our_imports(tree: ast.AST) -> list[tuple[int, str, str | None]]:
    """(line, module, name imported from it or None) for every import of our packages, at any depth."""
    found: list[tuple[int, str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in OURS:
            found += [(node.lineno, node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, None) for alias in node.names if alias.name.split(".")[0] in OURS]
    return found


def _resolves(module: str, name: str | None) -> bool:
    try:
        imported = importlib.import_module(module)
    except ImportError:
        return False
    if name is None or hasattr(imported, name):
        return True
    try:
        importlib.import_module(f"{module}.{name}")
    except ImportError:
        return False
    return True


def test_there_are_benchmark_scripts():
    assert len(SCRIPTS) >= 10


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_import_of_a_benchmark_script_resolves(script):
    imports = _our_imports(ast.parse(script.read_text(encoding="utf-8"), str(script)))
    missing = [f"{script.name}:{line}: {module}" + (f".{name}" if name else "")
               for line, module, name in imports if not _resolves(module, name)]
    assert not missing, missing
