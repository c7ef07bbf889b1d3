"""How tests are spread over xdist workers, on small suites run by a real pytest. The slowest-first order
(tests/helpers/slowest_first.py): files and xdist groups by their recorded time, tests within them by theirs,
unknown tests last in place; `--record-durations` merges a run (on xdist workers too) into the record; a broken
record is a one-line usage error. xdist groups (tests/helpers/xdist_groups.py): one worker runs a group."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

SUITE = {
    "test_a.py": "def test_a1():\n    pass\n\n\ndef test_a2():\n    pass\n",
    "test_b.py": "def test_b_fast():\n    pass\n\n\ndef test_b_slow():\n    pass\n\n\ndef test_b_mid():\n    pass\n",
    "test_c.py": "def test_c1():\n    pass\n\n\ndef test_c2():\n    pass\n",
    "test_d.py": "import pytest\n\n\n@pytest.mark.xdist_group('g')\ndef test_d1():\n    pass\n",
    "test_e.py": "import pytest\n\n\n@pytest.mark.xdist_group('g')\ndef test_e1():\n    pass\n",
}
RECORD = {"suite/test_b.py::test_b_slow": 30, "suite/test_b.py::test_b_mid": 5, "suite/test_c.py::test_c1": 20,
          "suite/test_c.py::test_c2": 20, "suite/test_d.py::test_d1": 12, "suite/test_e.py::test_e1": 25}


def pytest_in(root: Path, *args: str) -> subprocess.CompletedProcess:
    """A real pytest on the small suite under `root`; its temporary folders stay there too (without --basetemp it
    would number one under the system's temp folder and clear out old ones: the outer run's, seconds of deleting)."""
    (root / "pytest.ini").touch()
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.helpers.slowest_first", "-p",
                           "tests.helpers.xdist_groups", "-p", "no:cacheprovider", "--basetemp", str(root / "tmp"),
                           "-c", str(root / "pytest.ini"), "--rootdir", str(root), *args], cwd=root, text=True,
                          capture_output=True, timeout=120, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)})


def project(tmp_path: Path, files: dict[str, str], record: dict | str) -> Path:
    (tmp_path / "suite").mkdir()
    for name, text in files.items():
        (tmp_path / "suite" / name).write_text(text)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "durations.json").write_text(record if isinstance(record, str) else json.dumps(record))
    return tmp_path


def test_files_and_groups_by_recorded_time_then_tests_by_theirs_unknown_last(tmp_path: Path):
    root = project(tmp_path, SUITE, RECORD)
    proc = pytest_in(root, "--collect-only", "-q", "suite")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    order = [line.split("::")[1] for line in proc.stdout.splitlines() if "::" in line]
    # c: 40 s; the group g (d and e): 37 s; b: 35 s, in one piece; a: unknown, in place
    assert order == ["test_c1", "test_c2", "test_e1", "test_d1", "test_b_slow", "test_b_mid", "test_b_fast",
                     "test_a1", "test_a2"]


@pytest.mark.slow         # two xdist workers start: seconds
def test_a_run_on_xdist_workers_merges_its_durations_into_the_record(tmp_path: Path):
    files = {"test_t.py": "import time\n\n\ndef test_quick():\n    pass\n\n\ndef test_slow():\n    time.sleep(1.2)\n"}
    old = {"suite/test_gone.py::test_x": 50, "suite/test_t.py::test_quick": 9.0}
    root = project(tmp_path, files, old)
    proc = pytest_in(root, "-n", "2", "--record-durations", "suite")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    record = json.loads((root / "tests" / "durations.json").read_text())
    # kept what it did not run, updated what it ran, left out what is now under a second; slowest first
    assert list(record) == ["suite/test_gone.py::test_x", "suite/test_t.py::test_slow"], record
    assert record["suite/test_gone.py::test_x"] == 50 and 1.2 <= record["suite/test_t.py::test_slow"] < 50
    assert sorted(p.name for p in (root / "tests").iterdir()) == ["durations.json"]


def test_a_broken_record_is_a_usage_error_naming_its_line(tmp_path: Path):
    root = project(tmp_path, SUITE, '{\n"suite/test_b.py::test_b_slow": 30,\n}\n')
    proc = pytest_in(root, "--collect-only", "-q", "suite")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert f"{root / 'tests' / 'durations.json'}:3: not JSON" in proc.stderr, proc.stderr
    (root / "tests" / "durations.json").write_text('{"suite/test_b.py::test_b_slow": "slow"}')
    proc = pytest_in(root, "--collect-only", "-q", "suite")
    assert proc.returncode == 4 and "suite/test_b.py::test_b_slow: 'slow' is not a number of seconds" in proc.stderr


@pytest.mark.slow         # two xdist workers start: seconds
def test_one_worker_runs_a_group_and_builds_its_module_fixture_once(tmp_path: Path):
    builds = tmp_path / "builds"
    module = ("import os\nimport pytest\n\nG = pytest.mark.xdist_group('g')\n\n\n@pytest.fixture(scope='module')\n"
              f"def shared():\n    with open({str(builds)!r}, 'a') as fh:\n        fh.write(f'{{os.getpid()}}\\n')\n\n\n"
              + "".join(f"@G\ndef test_g{i}(shared):\n    pass\n\n\ndef test_free{i}():\n    pass\n\n\n"
                        for i in range(4)))
    root = project(tmp_path, {"test_m.py": module}, {})
    proc = pytest_in(root, "-n", "2", "--dist", "loadgroup", "--no-loadscope-reorder", "-v", "suite")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    workers = {line.split()[0] for line in proc.stdout.splitlines() if "PASSED" in line and "::test_g" in line}
    assert len(workers) == 1 and all("@g" in line for line in proc.stdout.splitlines() if "::test_g" in line), \
        proc.stdout
    assert len(builds.read_text().split()) == 1
