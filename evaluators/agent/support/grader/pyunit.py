"""unittest runner: `python3 -I pyunit.py ROOTS TARGET...` loads each target and records every test.

ROOTS is the workspace, then the task's `pythonpath` folders, joined with os.pathsep. The standard
library (unittest included) is imported before they join sys.path, after the standard library and before
site-packages (paths.py), so nothing in the workspace can stand in for a standard module or the runner.
Each target module is loaded from its file by path, never looked up by name, and a test whose module
did not come from a real file of the staged copy is refused. The canary pair (canary.py) runs last.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import time
import traceback
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from canary import read_canary  # noqa: E402
from paths import add_code_under_test  # noqa: E402
from record import Record  # noqa: E402

sys.path.pop(0)


class RecordingResult(unittest.TextTestResult):
    record: Record

    def startTest(self, test):  # noqa: N802 - unittest's naming
        self._started = time.monotonic()
        super().startTest(test)

    def _add(self, test, outcome: str, message: str = "") -> None:
        self.record.add(test.id(), outcome, time.monotonic() - getattr(self, "_started", time.monotonic()), message)

    def addSuccess(self, test):  # noqa: N802
        super().addSuccess(test)
        self._add(test, "passed")

    def addFailure(self, test, err):  # noqa: N802
        super().addFailure(test, err)
        self._add(test, "failed", self._exc_info_to_string(err, test))

    def addError(self, test, err):  # noqa: N802
        super().addError(test, err)
        self._add(test, "error", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):  # noqa: N802
        super().addSkip(test, reason)
        self._add(test, "skipped", reason)

    def addExpectedFailure(self, test, err):  # noqa: N802
        super().addExpectedFailure(test, err)
        self._add(test, "skipped", "expected failure")

    def addUnexpectedSuccess(self, test):  # noqa: N802
        super().addUnexpectedSuccess(test)
        self._add(test, "failed", "unexpected success")

    def addSubTest(self, test, subtest, err):  # noqa: N802
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._add(test, "failed", f"{subtest.id()}: {self._exc_info_to_string(err, test)}")


def module_file(target: str, roots: list[str]) -> tuple[str, str] | None:
    """(module name, file) of the longest prefix of `target` that is a .py file under one of the roots."""
    parts = target.split(".")
    for n in range(len(parts), 0, -1):
        for root in roots:
            path = os.path.join(root, *parts[:n]) + ".py"
            if os.path.isfile(path) and not os.path.islink(path):
                return ".".join(parts[:n]), path
    return None


def load_by_path(name: str, path: str):
    """Import module `name` from `path` itself (its parent packages the usual way)."""
    parent, _, leaf = name.rpartition(".")
    if parent:
        importlib.import_module(parent)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    if parent:
        setattr(sys.modules[parent], leaf, module)
    return module


def not_staged(module, roots: list[str]) -> str | None:
    """Why `module` is not a real file of the staged copy (None when it is)."""
    origin = getattr(getattr(module, "__spec__", None), "origin", None)
    file = getattr(module, "__file__", None)
    if not isinstance(origin, str) or not os.path.isfile(origin) or os.path.islink(origin):
        return f"module {getattr(module, '__name__', '?')} has no staged file (origin {origin!r})"
    real = os.path.realpath(origin)
    if file is None or os.path.realpath(file) != real:
        return f"module {module.__name__}: __file__ {file!r} is not its origin {origin!r}"
    if not any(real.startswith(os.path.realpath(root) + os.sep) for root in roots):
        return f"module {module.__name__} was loaded from {origin}, outside the staged copy"
    return None


def load_target(loader: unittest.TestLoader, target: str, roots: list[str]) -> unittest.TestSuite:
    found = module_file(target, roots)
    if found is None:
        return loader.loadTestsFromName(target)
    name, path = found
    module = load_by_path(name, path)
    if sys.modules.get(name) is not module or os.path.realpath(module.__spec__.origin) != os.path.realpath(path):
        raise ImportError(f"refused: {name} is not the staged file {path}")
    rest = target[len(name) + 1:]
    return loader.loadTestsFromName(rest, module) if rest else loader.loadTestsFromModule(module)


def canary_case(names: tuple[str, str]) -> unittest.TestSuite:
    """The canary pair as a TestCase of its own: the first must pass, the second must fail."""
    must_pass, must_fail = names
    case = type("Canary", (unittest.TestCase,), {
        f"test_{must_pass}": lambda self: self.assertEqual(len(must_pass), len(must_pass)),
        f"test_{must_fail}": lambda self: self.assertEqual(must_fail, must_pass)})
    case.__module__ = "bananabench_canary"
    return unittest.TestSuite([case(f"test_{must_pass}"), case(f"test_{must_fail}")])


def checked(suite: unittest.TestSuite, roots: list[str]) -> unittest.TestSuite:
    """Each test whose class's module is not a staged file is recorded as an error instead of run."""
    kept = unittest.TestSuite()
    for test in _flatten(suite):
        module = sys.modules.get(type(test).__module__)
        problem = "its module is not loaded" if module is None else not_staged(module, roots)
        if problem and type(test).__module__ != "unittest.loader":
            RecordingResult.record.add(test.id(), "error", message=f"refused: {problem}")
        else:
            kept.addTest(test)
    return kept


def _flatten(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from _flatten(test)
        else:
            yield test


def main(joined_roots: str, targets: list[str]) -> None:
    canary = read_canary()
    RecordingResult.record = Record()
    roots = joined_roots.split(os.pathsep)
    add_code_under_test(roots)
    os.chdir(roots[0])
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    for target in targets:
        try:
            suite.addTests(load_target(loader, target, roots))
        except Exception:  # noqa: BLE001 - an import error is that target's outcome
            RecordingResult.record.add(target, "error", message=traceback.format_exc())
    for error in loader.errors:
        print(error, file=sys.stderr)
    suite = checked(suite, roots)
    if canary:
        suite.addTests(canary_case(canary))
    unittest.TextTestRunner(stream=sys.stderr, verbosity=2, resultclass=RecordingResult).run(suite)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
