"""The architecture's layers, read from the import statements: `core` knows no evaluator, evaluators do not
import each other, `publish` imports only `core`."""

from __future__ import annotations

import ast

from tests.conftest import REPO

PACKAGE = REPO / "evaluators"
EVALUATORS = ("loglik", "chat", "agent", "modes", "publish")


def imported(path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {n.split(".")[1] for n in names if n.startswith("evaluators.") and n.count(".") >= 1}


def test_core_imports_no_evaluator_and_evaluators_do_not_import_each_other():
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        if len(parts) < 2 or parts[0] not in ("core", *EVALUATORS):
            continue  # cli.py, api.py, demo.py and docs.py tie the layers together
        allowed = {"core"} if parts[0] == "core" else {"core", parts[0]}
        for layer in imported(path) - allowed:
            if layer in (*EVALUATORS, "core"):
                problems.append(f"{path.relative_to(REPO)} imports evaluators.{layer}")
    assert not problems, problems
