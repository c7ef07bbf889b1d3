"""unittest runner: `python3 -I pyunit.py ROOTS TARGET...` loads each target and records every test.

ROOTS is the workspace, then the task's `pythonpath` folders, joined with os.pathsep. The standard
library (unittest included) is imported before they join sys.path, and they are appended after it,
so nothing in the workspace can stand in for a standard module or the runner.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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


def main(joined_roots: str, targets: list[str]) -> None:
    RecordingResult.record = Record()
    roots = joined_roots.split(os.pathsep)
    sys.path.extend(roots)
    os.chdir(roots[0])
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    for target in targets:
        try:
            suite.addTests(loader.loadTestsFromName(target))
        except Exception:  # noqa: BLE001 - an import error is that target's outcome
            RecordingResult.record.add(target, "error", message=traceback.format_exc())
    for error in loader.errors:
        print(error, file=sys.stderr)
    unittest.TextTestRunner(stream=sys.stderr, verbosity=2, resultclass=RecordingResult).run(suite)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
