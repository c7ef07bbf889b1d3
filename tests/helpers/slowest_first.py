"""Slowest first: xdist hands tests to its workers in collection order, so a five-minute test collected late
starts late and sets the run's wall time alone. Tests are put in the order of the seconds a past run recorded
in tests/durations.json (setup, call and teardown): the file with the most recorded time first, and within a
file the slowest first. A file stays in one piece, so its module-scoped fixtures are not built again by a
worker that left it; an xdist group counts as one file. Tests the record does not know keep their place, last.

`--record-durations` merges the run's own durations into the record: run the whole suite with it
(`make test PYTEST_ARGS=--record-durations`) when tests were added or got slower, and commit the file.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

RECORD = Path("tests") / "durations.json"          # under the root folder
# Tests faster than this are left out of the record: their order does not move the wall time.
KEEP_S = 1.0


def _test_id(nodeid: str) -> str:
    return nodeid.split("@", 1)[0]          # xdist's loadgroup appends "@group" to a grouped test's id


def _unit(item: pytest.Item) -> str:
    group = item.get_closest_marker("xdist_group")
    if group is not None:
        return "@" + str(group.args[0] if group.args else group.kwargs.get("name", "default"))
    return _test_id(item.nodeid).split("::", 1)[0]


def recorded(path: Path) -> dict[str, float]:
    """The record, or a one-line error naming the file and line (or test) that is wrong."""
    if not path.exists():
        return {}
    try:
        seconds = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise pytest.UsageError(f"{path}:{exc.lineno}: not JSON ({exc.msg}); rewrite it with --record-durations") from None
    if not isinstance(seconds, dict):
        raise pytest.UsageError(f"{path}:1: not an object of test id -> seconds")
    for test, value in seconds.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise pytest.UsageError(f"{path}: {test}: {value!r} is not a number of seconds")
    return seconds


def order_slowest_first(items: list[pytest.Item], seconds: dict[str, float]) -> None:
    """Reorder `items` in place: units (files, xdist groups) by their recorded total, then tests by their own."""
    own = [seconds.get(_test_id(item.nodeid), 0.0) for item in items]
    total: dict[str, float] = defaultdict(float)
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        total[_unit(item)] += own[i]
        first.setdefault(_unit(item), i)
    order = sorted(range(len(items)), key=lambda i: (-total[_unit(items[i])], first[_unit(items[i])], -own[i], i))
    items[:] = [items[i] for i in order]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--record-durations", action="store_true",
                     help=f"merge this run's test durations into {RECORD} (the slowest-first order)")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    order_slowest_first(items, recorded(config.rootpath / RECORD))


class _Recorder:
    """Sums each test's setup, call and teardown where the reports arrive (the xdist controller, or the only
    process) and merges them into the record at the end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[_test_id(report.nodeid)] += report.duration

    def pytest_sessionfinish(self) -> None:
        merged = {**recorded(self.path), **{k: round(v, 1) for k, v in self.seconds.items()}}
        kept = sorted(((k, v) for k, v in merged.items() if v >= KEEP_S), key=lambda kv: (-kv[1], kv[0]))
        part = self.path.with_suffix(".part")
        part.write_text(json.dumps(dict(kept), indent=0) + "\n")
        os.replace(part, self.path)            # whole or not at all


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("record_durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Recorder(config.rootpath / RECORD), "record-durations")
