"""pytest runner: `python3 -I pytest_run.py ROOTS [PYTEST ARGS] -- TARGET...` records every test.

ROOTS is the workspace, then the task's `pythonpath` folders, joined with os.pathsep.

pytest and the standard library are imported before ROOTS join sys.path (appended, never first);
plugin autoloading is off, test folders are appended too (`--import-mode=append`), the cache plugin
is off and the ini options `addopts` and `pythonpath` (which prepends) are cleared, so the run is
what this file says.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record import Record  # noqa: E402

sys.path.pop(0)
os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
import pytest  # noqa: E402


class Recorder:
    """Records each test's setup/call/teardown reports (the host keeps the worst outcome per test)."""

    def __init__(self) -> None:
        self.record = Record()

    def pytest_runtest_logreport(self, report) -> None:
        message = str(report.longrepr)[-2000:] if report.longrepr else ""
        if report.when == "call":
            if report.passed:
                outcome = "passed"
            elif report.skipped:
                outcome = "skipped"      # includes xfail: the expected failure still happens
            else:
                outcome = "failed"
            self.record.add(report.nodeid, outcome, report.duration, message)
        elif report.failed:
            self.record.add(report.nodeid, "error", report.duration, f"{report.when}: {message}")
        elif report.skipped:
            self.record.add(report.nodeid, "skipped", report.duration, message)

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.record.add(report.nodeid or "collection", "error", message=str(report.longrepr)[-2000:])


def main(joined_roots: str, argv: list[str]) -> int:
    cut = argv.index("--")
    args, targets = argv[:cut], argv[cut + 1:]
    recorder = Recorder()
    roots = joined_roots.split(os.pathsep)
    sys.path.extend(roots)
    os.chdir(roots[0])
    return pytest.main(["--rootdir", roots[0], "-p", "no:cacheprovider", "-o", "addopts=", "-o", "pythonpath=",
                        *args, "--import-mode=append", "-rfE", *targets], plugins=[recorder])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
