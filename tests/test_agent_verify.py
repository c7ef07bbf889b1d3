"""The verification's pieces without containers: staging, the record reader, the verdict, flags, --write-tests."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from evaluators.agent.corpus.validate import drop_array, set_array
from evaluators.agent.grading import tamper
from evaluators.agent.grading.verdict import decide, read_records
from evaluators.agent.grading.verifyspec import VerifySpec, default_targets
from evaluators.agent.support.grader import stage


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_stage_restores_runner_configuration_and_lays_hidden_files_last(tmp_path: Path):
    start, src, hidden, dest = (tmp_path / n for n in ("start", "src", "verify", "dest"))
    write(start, {"calc.py": "bug", "tests/cases.txt": "1 1 2\n", "pytest.ini": "[pytest]\n"})
    write(src, {"calc.py": "fixed", "tests/cases.txt": "forged", "tests/conftest.py": "evil", "conftest.py": "evil",
                "pytest.ini": "[pytest]\naddopts = --co\n", "__pycache__/calc.cpython-311.pyc": "stale",
                "old.pyc": "stale", "big.bin": "x" * 2000, "notes.md": "kept"})
    os.mkfifo(src / "pipe")
    (src / "test_hidden.py").symlink_to("/etc/passwd")          # where a hidden file goes: replaced, not written through
    os.symlink("/etc", src / "data")
    write(hidden, {"test_hidden.py": "hidden", "tests/test_more.py": "hidden too"})
    log = stage.stage(str(src), str(start), str(hidden), str(dest),
                      ["**/conftest.py", "pytest.ini", "**/tests/**"], cap=1000)
    assert (dest / "calc.py").read_text() == "fixed" and (dest / "notes.md").read_text() == "kept"
    assert (dest / "tests" / "cases.txt").read_text() == "1 1 2\n"              # restored from the start state
    assert not (dest / "tests" / "conftest.py").exists() and not (dest / "conftest.py").exists()
    assert (dest / "pytest.ini").read_text() == "[pytest]\n"
    assert (dest / "test_hidden.py").read_text() == "hidden" and not (dest / "test_hidden.py").is_symlink()
    assert (dest / "tests" / "test_more.py").read_text() == "hidden too"
    assert not (dest / "__pycache__").exists() and not (dest / "old.pyc").exists()
    assert not (dest / "pipe").exists() and not (dest / "big.bin").exists()
    assert os.readlink(dest / "data") == "/etc"                                 # copied as a link, never followed
    assert "left out: big.bin: 2000 bytes, over the 1000-byte cap" in log
    assert "left out: pipe: special file (fifo)" in log


def test_glob_matching():
    assert stage.matches("a/b/conftest.py", "**/conftest.py") and stage.matches("conftest.py", "**/conftest.py")
    assert stage.matches("tests/x/y.txt", "**/tests/**") and not stage.matches("src/x.py", "**/tests/**")
    assert stage.restored("vendor/github.com/x/assert.go", ["vendor/**"])
    assert not stage.restored("vendors.go", ["vendor/**"])


def spec(**kw) -> VerifySpec:
    return VerifySpec(**{"runner": "unittest", "tests": ("a", "b", "c"), **kw})


def record(tmp_path: Path, *lines: dict | str, name: str = "r.jsonl") -> Path:
    report = tmp_path / "report"
    report.mkdir(exist_ok=True)
    with open(report / name, "a") as fh:
        for line in lines:
            fh.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
    return report


def test_verdict_needs_every_expected_test_recorded_as_passed(tmp_path: Path):
    report = record(tmp_path, {"id": "a", "outcome": "passed"}, {"id": "b", "outcome": "passed"},
                    {"id": "b", "outcome": "failed", "message": "Traceback\nAssertionError: 1 != 2\n"},
                    "SCORE: 1", "{not json", {"id": "x", "outcome": "passed"}, {"id": "c", "outcome": "maybe"})
    verdict = decide(spec(), read_records(report))
    assert not verdict.passed and verdict.score == 0.0
    assert verdict.not_passed == ["b"] and verdict.missing == ["c"] and verdict.unexpected == ["x"]
    assert verdict.reason == ("1 of 3 expected tests did not pass (first: b failed: AssertionError: 1 != 2); 1 of 3 "
                              "expected tests missing from the grader's record (first: c; the test process ended or "
                              "exited before they were recorded)")
    partial = decide(spec(partial=True), read_records(report))
    assert partial.score == pytest.approx(1 / 3)
    assert decide(spec(), {}).reason.startswith("none of 3 expected tests is in the grader's record")
    assert decide(spec(), {}, build_error="go vet reported problems").reason == "build failed: go vet reported problems"
    everything = record(tmp_path, {"id": "c", "outcome": "passed"}, name="s.jsonl")
    assert not decide(spec(), read_records(everything)).passed                    # b still failed: worst counts


def test_script_graders_give_partial_credit_per_test_other_runners_do_not(tmp_path: Path):
    report = record(tmp_path, {"id": "review", "outcome": "passed", "score": 0.67})
    script = decide(VerifySpec(runner="script", tests=("review",), partial=True), read_records(report))
    assert script.passed and script.score == pytest.approx(0.67)
    forged = record(tmp_path, {"id": "a", "outcome": "failed", "score": 1.0}, name="forged.jsonl")
    assert decide(spec(partial=True, tests=("a",)), read_records(forged)).score == 0.0


def test_records_are_read_without_following_links_and_capped(tmp_path: Path):
    report = tmp_path / "report"
    report.mkdir()
    secret = tmp_path / "secret.jsonl"
    secret.write_text(json.dumps({"id": "a", "outcome": "passed"}) + "\n")
    (report / "link.jsonl").symlink_to(secret)
    os.mkfifo(report / "fifo.jsonl")
    (report / "huge.jsonl").write_text(json.dumps({"id": "x" * 2000, "outcome": "passed"}) + "\n")
    assert read_records(report) == {}


def test_default_targets_from_the_hidden_files(tmp_path: Path):
    write(tmp_path, {"tests/test_a.py": "", "test_b.py": "", "helper.py": "", "pkg/x_test.go": "", "y_test.go": "",
                     "tests/hidden.rs": "", "tests/nested/z.rs": "", "test/t.test.js": "", "test/util.js": ""})
    assert default_targets("unittest", tmp_path) == ["test_b", "tests.test_a"]
    assert default_targets("pytest", tmp_path) == ["test_b.py", "tests/test_a.py"]
    assert default_targets("go", tmp_path) == [".", "pkg"]
    assert default_targets("cargo", tmp_path) == ["hidden"]
    assert default_targets("node", tmp_path) == ["test/t.test.js"]


def test_write_tests_rewrites_only_the_verify_test_arrays():
    text = ('title = "x"\n\n[verify]\nrunner = "pytest"\ntests = [\n  "old[1]",  # a comment ]\n  \'b]\',\n]\n'
            'timeout_s = 60\n\n[agent]\ntests = 3\n')
    out = set_array(text, "tests", ["t.py::test_a[1-2]", 'odd "quote"'])
    data = tomllib.loads(out)
    assert data["verify"]["tests"] == ["t.py::test_a[1-2]", 'odd "quote"'] and data["agent"]["tests"] == 3
    assert data["verify"]["timeout_s"] == 60
    added = tomllib.loads(set_array('[verify]\nrunner = "go"\n', "fail_to_pass", ["pkg::TestX"]))
    assert added["verify"] == {"runner": "go", "fail_to_pass": ["pkg::TestX"]}
    dropped = tomllib.loads(drop_array(text, "tests"))
    assert dropped["verify"] == {"runner": "pytest", "timeout_s": 60} and dropped["agent"]["tests"] == 3
    assert drop_array(text, "flaky") == text


def _diff(tmp_path: Path, before: dict[str, bytes], after: dict[str, bytes]) -> bytes:
    """The real diff script on two trees (as the diff container runs it)."""
    import subprocess
    import sys

    for root, files in (("start", before), ("workspace", after)):
        (tmp_path / root).mkdir()
        for rel, data in files.items():
            (tmp_path / root / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / root / rel).write_bytes(data)
    script = Path(stage.__file__).with_name("diff.py")
    return subprocess.run([sys.executable, "-I", str(script), str(tmp_path / "start"), str(tmp_path / "workspace")],
                          capture_output=True, check=True).stdout


def test_flags_name_what_touches_the_test_machinery(tmp_path: Path):
    diff = _diff(tmp_path, {"calc.py": b"x = 1\n", "tests/data/case 1.txt": b"1 2 3\n"},
                 {"calc.py": b"x = 2\n", "tests/conftest.py": b"import pytest\n", "json.py": b"print('hi')\n",
                  "tests/test_mine.py": b"import pytest\nimport os\nos._exit(0)\n"})
    found = tamper.scan(diff, ["**/conftest.py", "**/test_*.py"], "unittest")
    assert "tests/conftest.py: test machinery, added (reverted to the start state for grading)" in found.notes
    assert "tests/test_mine.py: test machinery, added (reverted to the start state for grading)" in found.notes
    assert "json.py: has the name of the standard module 'json'" in found.flags
    assert "tests/data/case 1.txt: deletes a test file or test data the grader does not restore" in found.flags
    assert not any(f.startswith(("calc.py", "tests/conftest.py", "tests/test_mine.py")) for f in found.flags)
    assert {(p.path, p.change) for p in found.paths} == {("calc.py", "modified"), ("tests/data/case 1.txt", "deleted"),
                                                        ("tests/conftest.py", "added"), ("json.py", "added"),
                                                        ("tests/test_mine.py", "added")}


@pytest.mark.parametrize("name, content, flag", [
    ("0 notes.txt", b"os._exit(0)\n", "exit hook"),                      # a space in the name
    ('we"ird \u00e9\u4e2d.py'.encode().decode(), b"raise SystemExit(0)\n", "exits with success"),
    ("src/a.c", b'#include "./../x"\n', "reads files at compile time"),
    ("src/lib.rs", b'include!("../tests/x.rs");\n', "reads files at compile time"),
    ("main.go", b'import o "os"\nfunc init() { o.Exit(0) }\n', "exit"),
    ("src/lib.rs", b'let at = args.iter().position(|a| a == "--logfile");\n', "own arguments, binary or memory"),
    ("probe.py", b'open("/proc/self/cmdline").read()\n', "own arguments, binary or memory"),
    ("calc.so", b"\x7fELF\x00\x01\x02" * 10, "binary change to code"),
    ("test_hidden/__init__.py", b"x = 1\n", "a package named like a test module"),
    ("bananabench_test.hpp", b"#pragma once\n", "has the name of a grader file"),
])
def test_flags_see_any_name_and_the_plain_constructs(tmp_path: Path, name: str, content: bytes, flag: str):
    diff = _diff(tmp_path, {"calc.py": b"x = 1\n"}, {"calc.py": b"x = 1\n", name: content})
    found = tamper.scan(diff, [], "pytest")
    assert any(f.startswith(f"{name}: ") and flag in f for f in found.flags), found.flags
    assert [p.path for p in found.paths] == [name]


@pytest.mark.slow
def test_flags_read_past_any_size_and_in_pieces(tmp_path: Path):
    """A 5 MB padding file sorted first once hid a forgery behind the 4 MiB cap of the diff's text."""
    pad = b"".join(b"padding line %d\n" % i for i in range(400_000))
    diff = _diff(tmp_path, {"calc.py": b"x = 1\n"},
                 {"calc.py": b"x = 1\n", "0pad.txt": pad, "zz.py": b"import os\nos._exit(0)\n",
                  "long.js": b"var x = 1;" * 300_000 + b"process.exit(0)\n"})
    assert len(diff) > (5 << 20)
    scanner = tamper.Scanner([], "pytest")
    for i in range(0, len(diff), 4093):                 # chunks that split lines anywhere
        scanner.feed(diff[i:i + 4093])
    flags = scanner.finish().flags
    assert any(f.startswith("zz.py: exit hook") for f in flags), flags
    assert any(f.startswith("long.js: exits with success") for f in flags), flags
    assert not any(f.startswith("0pad.txt") for f in flags)


def test_the_disk_check_and_the_root_requirement(tmp_path: Path, monkeypatch):
    from evaluators.agent.sandbox import volumes
    from evaluators.core.errors import BadInput, EvaluationFailure

    with pytest.raises(EvaluationFailure, match="host disk low"):
        volumes.reserve(tmp_path, 1 << 60)
    volumes.reserve(tmp_path, 1 << 20)
    volumes.release(1 << 20)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(BadInput, match="--workspace-mb 0"):
        volumes.require_root(2048)
    volumes.require_root(0)


def test_the_diff_lists_what_it_cannot_or_must_not_read(tmp_path: Path):
    import subprocess
    import sys

    start, workspace = tmp_path / "start", tmp_path / "workspace"
    write(start, {"calc.py": "a - b\n", "keep.txt": "same\n"})
    write(workspace, {"calc.py": "a + b\n", "keep.txt": "same\n", "new.txt": "hello\n"})
    os.mkfifo(workspace / "pipe.fifo")
    with open(workspace / "sparse.bin", "wb") as fh:
        fh.truncate(40 << 30)
    proc = subprocess.run([sys.executable, "-I", str(Path(stage.__file__).with_name("diff.py")), str(start),
                           str(workspace)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "# not shown: pipe.fifo: fifo (special file, not read)" in out
    assert "# not shown: sparse.bin: 42949672960 bytes (over the 8388608-byte cap, not read)" in out
    assert "-a - b" in out and "+a + b" in out and "+hello" in out and "keep.txt" not in out


def test_a_diff_that_fails_is_recorded_as_an_artifact_failure_not_an_empty_file(tmp_path: Path):
    from evaluators.agent.attempts import attempt
    from evaluators.agent.corpus import datasets
    from evaluators.agent.sandbox.containers import OneShot
    from tests.helpers.agent import FIXTURES

    class FailingDiff:
        """Stands in for the sandbox's diff container, which here ends with an error."""

        def diff(self, start, workspace, sink):
            sink(b"# 1 changed path(s)\n")
            return OneShot(rc=1, output=b"git diff failed for odd.bin: fatal: unable to read", seconds=0.1)

    task = datasets.load_task(FIXTURES / "smoke" / "hello", FIXTURES)
    extra: dict = {}
    problem = attempt._write_diff(FailingDiff(), task, tmp_path, tmp_path, tmp_path, extra)
    assert problem == "exit status 1: git diff failed for odd.bin: fatal: unable to read"
    assert extra["artifact_errors"] == [f"changes.diff: {problem}"]
    assert not (tmp_path / "changes.diff").exists()


def test_only_podman_failures_become_infrastructure_errors():
    from evaluators.agent.grading.verification import DRIVER_STARTED, _container_ran
    from evaluators.agent.sandbox.containers import OneShot
    from evaluators.core.errors import EvaluationFailure

    with pytest.raises(EvaluationFailure, match="did not run"):
        _container_ran("test", OneShot(rc=125, output=b"Error: crun: cannot mount", seconds=0.1))
    # code under test that makes the driver exit 125 cannot turn its failure into an uncounted error
    _container_ran("test", OneShot(rc=125, output=f"{DRIVER_STARTED}\n$ calc".encode(), seconds=0.1))
    _container_ran("test", OneShot(rc=137, output=b"", seconds=0.1))


@pytest.mark.parametrize("runner", ["unittest", "pytest"])
def test_the_workspace_package_wins_over_a_system_release_but_not_over_the_standard_library(tmp_path: Path, runner):
    """Debian's python3-pytest installs more_itertools system-wide: a task on more-itertools must test the
    workspace's copy, while a workspace `subprocess.py` still cannot stand in for the standard module."""
    import subprocess

    system = subprocess.run(["/usr/bin/python3", "-I", "-c", "import more_itertools; print(more_itertools.__file__)"],
                            capture_output=True, text=True)
    assert system.returncode == 0 and "dist-packages" in system.stdout, "python3-more-itertools (system deps)"
    ws = tmp_path / "ws"
    write(ws, {
        "more_itertools/__init__.py": "ORIGIN = 'workspace'\n",
        "subprocess.py": "raise SystemExit('the workspace shadowed the standard library')\n",
        "test_origin.py": ("import subprocess\nimport unittest\n\nimport more_itertools\n\n\n"
                           "class T(unittest.TestCase):\n    def test_origin(self):\n"
                           "        self.assertEqual(more_itertools.ORIGIN, 'workspace')\n"
                           "        self.assertTrue(hasattr(subprocess, 'run'))\n"),
    })
    grader = Path(stage.__file__).parent
    report = tmp_path / "record.jsonl"
    if runner == "unittest":
        argv, test_id = [str(grader / "pyunit.py"), str(ws), "test_origin"], "test_origin.T.test_origin"
    else:
        argv, test_id = [str(grader / "pytest_run.py"), str(ws), "--", "test_origin.py"], "test_origin.py::T::test_origin"
    subprocess.run(["/usr/bin/python3", "-I", *argv], cwd=ws, timeout=120, capture_output=True, stdin=subprocess.DEVNULL,
                   env={"PATH": "/usr/bin:/bin", "BANANABENCH_REPORT": str(report), "HOME": str(tmp_path)})
    outcomes = {line["id"]: line["outcome"] for line in map(json.loads, report.read_text().splitlines())}
    assert outcomes == {test_id: "passed"}


@pytest.mark.slow
def test_no_reference_solution_trips_a_tamper_flag(tmp_path: Path):
    """Honest work is not held: every task's own solution, diffed by the real script, raises no flag."""
    import subprocess
    import sys

    from evaluators.agent.corpus import datasets, repos
    script = Path(stage.__file__).with_name("diff.py")
    flagged = {}
    for task in datasets.load_tasks(datasets.tasks_root(None)):
        if task.manual:
            continue
        # The start state and the solution as validation builds them (a pinned snapshot or the task's copy).
        start = repos.materialize(task, tmp_path / task.id / "start")
        after = repos.materialize(task, tmp_path / task.id / "workspace", solution=True)
        out = subprocess.run([sys.executable, "-I", str(script), str(start), str(after)], capture_output=True,
                             check=True).stdout
        found = tamper.scan(out, task.verify.restore_globs(), task.verify.runner)
        assert found.paths, task.id
        if found.flags:
            flagged[task.id] = found.flags
    assert flagged == {}
