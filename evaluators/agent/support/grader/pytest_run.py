"""pytest runner: `python3 -I pytest_run.py ROOTS [PYTEST ARGS] -- TARGET...` records every test.

ROOTS is the workspace, then the task's `pythonpath` folders, joined with os.pathsep.

pytest and the standard library are imported before ROOTS join sys.path (after the standard library, before
site-packages: paths.py);
plugin autoloading is off, test folders are appended too (`--import-mode=append`), the cache plugin
is off, the ini option `addopts` is cleared and the plugin behind the `pythonpath` ini option (which
prepends, and which pytest 7.2 cannot even clear without an ini file) is disabled, so the run is what this
file says. Every collected test's module (and every conftest) must be the staged file its node names:
`__spec__.origin` and `__file__` both that file, else the test is recorded as an error (refused). The
canary pair (canary.py), from a module that exists only in memory, is added after the task's own selection
(`-k`, `-m`, `--deselect`, node ids) and runs last, after the loop if `-x` or `--maxfail` stopped it early.
"""

from __future__ import annotations

import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from canary import read_canary  # noqa: E402
from paths import add_code_under_test  # noqa: E402
from record import Record  # noqa: E402

sys.path.pop(0)
os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
import pytest  # noqa: E402


def not_staged(module, path) -> str | None:
    """Why `module` is not the file `path` (None when it is)."""
    real = os.path.realpath(str(path))
    origin = getattr(getattr(module, "__spec__", None), "origin", None)
    file = getattr(module, "__file__", None)
    for what, value in (("__spec__.origin", origin), ("__file__", file)):
        if not isinstance(value, str) or os.path.realpath(value) != real:
            return f"{getattr(module, '__name__', '?')}: {what} is {value!r}, not the staged file {real}"
    return None


class CanaryModule(pytest.Module):
    """A test module whose code is built here, in memory: nothing on disk stands for it."""

    def _getobj(self):
        return self.config.stash[CANARY]


CANARY = pytest.StashKey[types.ModuleType]()


def canary_module(names: tuple[str, str]) -> types.ModuleType:
    must_pass, must_fail = names
    module = types.ModuleType("bananabench_canary")

    def passes():
        assert len(must_pass) == len(must_pass)

    def fails():
        assert must_fail == must_pass

    setattr(module, f"test_{must_pass}", passes)
    setattr(module, f"test_{must_fail}", fails)
    return module


class Recorder:
    """Records each test's setup/call/teardown reports (the host keeps the worst outcome per test)."""

    def __init__(self, canary: tuple[str, str] | None = None) -> None:
        self.record = Record()
        self.canary = canary
        self.canaries: list[pytest.Item] = []
        self.reported: set[str] = set()

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items) -> None:
        """Refuse what is not the staged file, then add the canaries after every selection (`-k`, `-m`,
        `--deselect` and conftest hooks all run before this one)."""
        manager = config.pluginmanager      # pytest 7.2 keeps a set, older ones a dict by path
        conftests = getattr(manager, "_conftest_plugins", None) or getattr(manager, "_conftestpath2mod", {}).values()
        problems = [p for mod in conftests if (p := not_staged(mod, getattr(mod, "__file__", None) or "?"))]
        for item in items:
            module = item.getparent(pytest.Module)
            problem = problems[0] if problems else module and not_staged(module.obj, module.path)
            if problem:
                self.record.add(item.nodeid, "error", message=f"refused: {problem}")
        if self.canary:
            config.stash[CANARY] = canary_module(self.canary)
            path = session.path / f"bananabench_canary_{self.canary[0]}.py"
            self.canaries = CanaryModule.from_parent(session, path=path).collect()
            items.extend(self.canaries)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtestloop(self, session):
        """When pytest's own stop (`-x`, `--maxfail`) ended the loop before the canaries, they run after it. A
        loop that ended early any other way leaves them missing: its record is not the loop's."""
        yield
        left = [item for item in self.canaries if item.nodeid not in self.reported]
        if not left or not (session.shouldfail or session.shouldstop):
            return
        try:
            session._setupstate.teardown_exact(None)    # what the stopped loop left set up
        except Exception as exc:  # noqa: BLE001 - a fixture's teardown error belongs in the record, not here
            self.record.add("teardown", "error", message=repr(exc))
        for n, item in enumerate(left):
            item.ihook.pytest_runtest_protocol(item=item, nextitem=left[n + 1] if n + 1 < len(left) else None)

    def pytest_runtest_logreport(self, report) -> None:
        self.reported.add(report.nodeid)
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
    recorder = Recorder(read_canary())
    roots = joined_roots.split(os.pathsep)
    add_code_under_test(roots)
    os.chdir(roots[0])
    return pytest.main(["--rootdir", roots[0], "-p", "no:cacheprovider", "-p", "no:python_path", "-o", "addopts=",
                        *args, "--import-mode=append", "-rfE", *targets], plugins=[recorder])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
