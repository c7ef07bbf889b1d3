"""No module of the package grows past 500 lines: a reader takes in a module at one sitting, and a module
that grows past it holds more than one idea, so it splits by concept."""

from __future__ import annotations

from tests.conftest import REPO

LIMIT = 500


def test_no_module_is_over_500_lines():
    package = REPO / "evaluators"
    sizes = {path.relative_to(REPO): len(path.read_text(encoding="utf-8").splitlines())
             for path in package.rglob("*.py") if "node_modules" not in path.parts}
    assert len(sizes) > 100
    assert {str(path): n for path, n in sizes.items() if n > LIMIT} == {}
