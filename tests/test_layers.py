"""The architecture's layers, read from the imports (every import, lazy ones inside functions included).

The shared packages stack: `core` (errors, atomic files, the contract, HTTP, secrets, statistics) imports
nothing above it; `store` builds on `core`; `runs` on the store; `specs` and `models` on runs, neither on
the other. An evaluator (loglik, lmeval, chat, agent, modes) imports the shared packages and itself, never
another evaluator; `publish` reads only the store (`core` and `store`). The application modules at the top
(`cli`, `api`, `demo`, `docs`, the `*_cli` modules) may import anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "evaluators"
EVALUATORS = ("loglik", "lmeval", "chat", "agent", "modes")
ROOT_NAMES = {"__version__"}  # what a layer may take from `evaluators` itself


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module or `evaluators.<name>`) of every absolute import of the project in `path`."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "evaluators":
                out += [(node.lineno, f"evaluators.{alias.name}") for alias in node.names]
            else:
                out.append((node.lineno, node.module))
        elif isinstance(node, ast.ImportFrom) and node.level:
            out.append((node.lineno, "." * node.level + (node.module or "")))
    return [(line, name) for line, name in out if name == "evaluators" or name.startswith(("evaluators.", "."))]


SHARED = {
    "core": {"core"},
    "store": {"core", "store"},
    "runs": {"core", "store", "runs"},
    "specs": {"core", "store", "runs", "specs"},
    "models": {"core", "store", "runs", "models"},
}


def allowed(layer: str) -> set[str]:
    if layer in SHARED:
        return SHARED[layer]
    if layer == "publish":
        return {"core", "store", "publish"}
    return set(SHARED) | {layer}


def violations() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if len(rel.parts) == 1 or "node_modules" in rel.parts:
            continue  # application modules, and third-party code shipped with Pi
        layer = rel.parts[0]
        for line, name in imported(path):
            where = f"evaluators/{rel}:{line}"
            if name.startswith("."):
                found.append(f"{where}: relative import {name!r} (import by absolute name)")
                continue
            parts = name.split(".")
            if len(parts) == 1 or parts[1] in ROOT_NAMES:
                continue
            if parts[1] not in allowed(layer):
                found.append(f"{where}: {layer} imports {name}")
    return found


def test_layers_hold():
    assert violations() == []


def test_the_check_sees_lazy_and_from_imports(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from evaluators import api\n\ndef f():\n    import evaluators.chat.run\n"
                     "    from evaluators.publish.queries import Queries\n")
    assert [name for _, name in imported(probe)] == ["evaluators.api", "evaluators.chat.run",
                                                    "evaluators.publish.queries"]


def test_every_layer_is_known():
    layers = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert layers == {*SHARED, "publish", *EVALUATORS}


def test_publish_cannot_reach_past_the_store(tmp_path):
    assert "specs" not in allowed("publish") and "models" not in allowed("publish")
    assert allowed("chat") >= {"specs", "models"} and "agent" not in allowed("chat")
    assert "specs" not in allowed("models") and "models" not in allowed("specs")
