"""Delete what could answer in place of the hidden tests or the recorder, after the stage is built.

Python finds a module by name, not by file: a package `test_x/` beside `test_x.py`, a `test_x/` at the
workspace root for pytest's `tests/test_x.py` (imported as `test_x`), an extension module of the same stem,
or a root `__init__.py` with a folder named like the stage folder (pytest then imports `ws.tests.test_x`)
each take the hidden module's place, and pytest's own mismatch check reads only `__file__`, which a
shadow sets. The C++ recorder header is found by name too (`#include "bananabench_test.hpp"` looks beside
the including file first). Every such entry is removed from the staged copy; what the task's start state
or hidden files hold on that path stays.
"""

from __future__ import annotations

import os

from stage import remove, restored, walk

HEADER = "bananabench_test.hpp"
_EXTENSION_SUFFIXES = (".so", ".pyd")


def _trusted_python(start: str, verify: str | None, restore: list[str]) -> set[str]:
    """Workspace-relative .py files that are hidden or restored: the test modules and their helpers."""
    files = {rel for rel, _ in walk(start) if rel.endswith(".py") and restored(rel, restore)}
    if verify and os.path.isdir(verify):
        files |= {rel for rel, _ in walk(verify) if rel.endswith(".py")}
    return files


def _top_name(ws: str, rel: str) -> tuple[str, str]:
    """(folder, name): where the top-level module that imports `rel` lives, and its name (pytest's rule)."""
    folder, name = os.path.dirname(rel), os.path.basename(rel)[:-3]
    while folder and os.path.isfile(os.path.join(ws, folder, "__init__.py")):
        folder, name = os.path.dirname(folder), os.path.basename(folder)
    return folder, name


def _rivals(directory: str, name: str) -> list[str]:
    """Entries of `directory` that the import system could take for the module `name`."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [os.path.join(directory, n) for n in names
            if n == name or n == name + ".py" or (n.startswith(name + ".") and n.endswith(_EXTENSION_SUFFIXES))]


def python_shadows(ws: str, start: str, verify: str | None, restore: list[str], roots: list[str]) -> list[str]:
    """Paths (absolute) in the stage that could shadow a hidden or restored Python module."""
    trusted = _trusted_python(start, verify, restore)
    keep = {os.path.join(ws, rel) for rel in trusted}
    found = set()
    for rel in sorted(trusted):
        folder, name = _top_name(ws, rel)
        real = os.path.join(ws, folder, name)
        real_entry = real + ".py" if folder == os.path.dirname(rel) and name == os.path.basename(rel)[:-3] else real
        home = os.path.join(ws, folder) if folder else ws
        places = [home] + [r for r in roots if r != home]
        for place in places:
            for path in _rivals(place, name):
                if path != real_entry and path not in keep and not _in_start(start, ws, path):
                    found.add(path)
    if not os.path.exists(os.path.join(start, "__init__.py")):
        found.add(os.path.join(ws, "__init__.py"))
    stage_name = os.path.basename(ws.rstrip("/"))
    found.update(p for p in _rivals(ws, stage_name) if not _in_start(start, ws, p))
    return sorted(p for p in found if os.path.lexists(p))


def header_copies(ws: str) -> list[str]:
    """Every file or folder named like the recorder header: the runner's own copy is the only one."""
    return [os.path.join(ws, rel) for rel, _ in walk(ws) if os.path.basename(rel) == HEADER]


def _in_start(start: str, ws: str, path: str) -> bool:
    return os.path.lexists(os.path.join(start, os.path.relpath(path, ws)))


def remove_shadows(ws: str, start: str, verify: str | None, restore: list[str], roots: list[str],
                   python: bool) -> list[str]:
    """Delete the shadows; returns one log line per deleted path."""
    paths = header_copies(ws) + (python_shadows(ws, start, verify, restore, roots) if python else [])
    log = []
    for path in paths:
        if os.path.lexists(path):
            remove(path)
            log.append(f"removed {os.path.relpath(path, ws)} (could stand in for a test module or the recorder)")
    return log
