"""Checks that a real-issue prompt reads like its reporter wrote it, not like the fix.

Two mechanical rules (the corpus tests apply them to every real-issue task):

- A prompt names no identifier that exists only in the fix: one the solution's added lines bring in and the
  start state nowhere contains. A reporter could not have known it, unless the issue asked for that API;
  such a task lists the names in `asks_for`.
- A reproduction in the prompt (a fenced block marked ` ```python repro `) runs against the start state and
  shows the symptom: its output or exit status differs from the same code run with the fix applied.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from evaluators.agent.corpus import ghimport

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CODE_SPAN = re.compile(r"```[^\n]*\n(.*?)```|`([^`\n]+)`", re.S)
_REPRO = re.compile(r"^```python[ \t]+repro[ \t]*\n(.*?)^```", re.S | re.M)
_TEXT_LIMIT = 2 << 20  # bytes per file read when collecting the start state's names


def looks_like_code(name: str) -> bool:
    """A name no prose word would be: snake_case, camelCase, dunder or ALLCAPS_WITH_UNDERSCORE."""
    return len(name) > 2 and ("_" in name.strip("_") or bool(re.search(r"[a-z][A-Z]", name)))


def prompt_names(prompt: str) -> set[str]:
    """Identifiers the prompt uses as code: any inside code spans or blocks, code-shaped ones anywhere."""
    names = {n for n in _IDENT.findall(prompt) if looks_like_code(n)}
    for block, span in _CODE_SPAN.findall(prompt):
        names |= {n for n in _IDENT.findall(block or span) if len(n) > 2}
    return names


def added_names(patch: str) -> set[str]:
    """Identifiers on the added lines of the fix's source files."""
    names: set[str] = set()
    for path, _status, chunk in ghimport.split_diff(patch):
        if ghimport.is_code_path(path) and not ghimport.is_test_path(path):
            for line in chunk.splitlines():
                if line.startswith("+") and not line.startswith("+++"):
                    names |= set(_IDENT.findall(line))
    return names


def start_names(start: Path) -> set[str]:
    """Every identifier-shaped word in the start state's files (code, docs, tests)."""
    names: set[str] = set()
    for current, dirs, files in os.walk(start):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = Path(current) / name
            if path.is_file() and not path.is_symlink():
                with open(path, "rb") as fh:
                    names |= set(_IDENT.findall(fh.read(_TEXT_LIMIT).decode("utf-8", errors="replace")))
    return names


def fix_only_names(prompt: str, patch: str, start: Path, allowed: tuple[str, ...] = ()) -> list[str]:
    """Names in the prompt that only the fix brings in (sorted), less the API the issue asked for."""
    candidates = (prompt_names(prompt) & added_names(patch)) - set(allowed)
    return sorted(candidates - start_names(start)) if candidates else []


def repros(prompt: str) -> list[str]:
    return _REPRO.findall(prompt)


def run_repro(code: str, workspace: Path, pythonpath: tuple[str, ...] = (), timeout_s: float = 60) -> tuple[int, str]:
    """Run a reproduction in `workspace` (isolated Python, the workspace and `pythonpath` first on sys.path).

    PYTHONPATH carries the same paths so that a Python the reproduction starts itself (a program run on a
    terminal, say) imports the workspace's code too; `-I` keeps the reproduction's own interpreter clean.
    """
    paths = [str(workspace)] + [str(workspace / p) for p in pythonpath]
    boot = f"import sys; sys.path[:0] = {paths!r}; exec(compile(sys.stdin.read(), 'repro', 'exec'))"
    # no bytecode (-B, and the environment for a Python it starts): the workspace is a task's start state, which
    # later checks read and copy as it was made
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONPATH": os.pathsep.join(paths), "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        proc = subprocess.run(["python3", "-I", "-B", "-c", boot], input=code, cwd=workspace, capture_output=True,
                              text=True, timeout=timeout_s, env=env)
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout_s:.0f} s"
    return proc.returncode, (proc.stdout + proc.stderr).replace(str(workspace), "<workspace>")
