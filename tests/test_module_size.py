"""No module of the package grows past 500 lines, and no folder past 15 modules: a reader takes in a module
at one sitting and a folder at one glance; past either, it holds more than one idea and splits by concept."""

from __future__ import annotations

from collections import Counter

from tests.conftest import REPO

LIMIT = 500
FOLDER_LIMIT = 15
PACKAGE = REPO / "evaluators"


def modules() -> list:
    return [path for path in PACKAGE.rglob("*.py") if "node_modules" not in path.parts]


def test_no_module_is_over_500_lines():
    sizes = {path.relative_to(REPO): len(path.read_text(encoding="utf-8").splitlines()) for path in modules()}
    assert len(sizes) > 100
    assert {str(path): n for path, n in sizes.items() if n > LIMIT} == {}


def test_no_folder_holds_more_than_15_modules():
    per_folder = Counter(str(path.parent.relative_to(REPO)) for path in modules())
    assert len(per_folder) > 10
    assert {folder: n for folder, n in per_folder.items() if n > FOLDER_LIMIT} == {}
