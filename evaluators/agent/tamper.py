"""Flags for diffs that touch the test machinery, shown in the attempt's record and on its page.

The verification already reverts runner configuration and test files (restore) and never trusts
exit statuses or printed lines; what in-process code can still do (exit hooks, patching the test
framework, shadowing modules, reading the tests) is called out here so a human looks at it. A flag
is a hint, not a verdict: legitimate code can trip one.
"""

from __future__ import annotations

import re
import sys

from evaluators.agent.support.grader.stage import matches

# (pattern on an added line, what it may do); applied to every language, so keep them specific.
_PATTERNS = [
    (r"\bos\._exit\b|\batexit\b|\bquick_exit\b|\b_[eE]xit\s*\(|process\.reallyExit|process\.on\(\s*['\"](exit|beforeExit)",
     "exit hook or immediate exit"),
    (r"(\bos\.Exit|process::exit|process\.exit|\bsys\.exit|\bexit)\s*\(\s*(0|true|None)?\s*\)", "exits with success"),
    (r"\bunittest\b|\bpytest\b|_pytest|\bTestCase\b|\btesting\.(M|T|InternalTest)\b|func\s+TestMain|node:test"
     r"|libtest|#\[test\]|harness\s*=", "refers to the test framework"),
    (r"sys\.modules|__builtins__|\bbuiltins\b|sys\.meta_path|sys\.path_hooks|importlib\.machinery|sys\.settrace"
     r"|sys\.setprofile|sys\._getframe|gc\.get_objects|require\.cache|Module\._load|go:linkname",
     "patches the runtime or the import system"),
    (r"include_str!|include_bytes!|go:embed|#\s*include\s*[\"<](/|\.\./)", "reads files at compile time"),
    (r"__attribute__\s*\(\(\s*constructor|#\[ctor\]|\bdup2\s*\(|freopen\s*\(", "runs code before main or redirects output"),
    (r"BANANABENCH|/verify\b|/stage/|\bSCORE:", "names the grader's files or output"),
]
_COMPILED = [(re.compile(p), why) for p, why in _PATTERNS]
_DIFF_FILE = re.compile(r"^diff --git a/(\S+) b/(\S+)")
MAX_FLAGS = 40


def _workspace_path(path: str) -> str:
    return path.split("/", 1)[1] if "/" in path else path


def flags(diff: str, restore_globs: list[str], runner: str) -> list[str]:
    """Human-readable flags for one attempt's changes.diff (sorted, capped)."""
    found: dict[str, str] = {}
    current = None
    for line in diff.splitlines():
        header = _DIFF_FILE.match(line)
        if header:
            current = _workspace_path(header.group(2))
            if any(matches(current, g) or any(matches("/".join(current.split("/")[:i]), g)
                                              for i in range(1, current.count("/") + 1)) for g in restore_globs):
                found.setdefault(f"{current}: test machinery (reverted to the start state for grading)", current)
            if runner in ("unittest", "pytest", "script") and current.endswith(".py"):
                top = current.split("/")[0].removesuffix(".py")
                if top in sys.stdlib_module_names:
                    found.setdefault(f"{current}: has the name of the standard module {top!r}", current)
            continue
        if current is None or not line.startswith("+") or line.startswith("+++"):
            continue
        for pattern, why in _COMPILED:
            if pattern.search(line):
                found.setdefault(f"{current}: {why}: {line[1:].strip()[:100]}", current)
                break
        if len(found) >= MAX_FLAGS:
            break
    if diff.startswith("# ") and "# not shown:" in diff.split("\ndiff --git", 1)[0]:
        found.setdefault("the diff lists files it did not read (special or oversized files)", "")
    return sorted(found)[:MAX_FLAGS]
