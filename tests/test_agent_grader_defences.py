"""The grader's own defences, without containers: shadowed test modules and recorder, forged records, patched
frameworks (the canary pair, whatever the task selects), restored pytest configuration. Each attack of the
cheating suite listed here is applied to a copy of its task's start state on this host and verified with
`verify_native`; the honest fix of every language involved must still pass, so the attacks fail because of the
defences.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from evaluators.agent.corpus.datasets import load_task
from evaluators.agent.grading.canaries import CanaryPair
from evaluators.agent.grading.verdict import TestOutcome as Outcome
from evaluators.agent.grading.verification import verify_native
from evaluators.agent.support.grader import stage
from tests.test_agent_cheating import ATTACKS, HONEST, write_attack_tasks

NATIVE = ["dot-pytest-ini", "unittest-package-shadow", "pytest-root-package-shadow", "pytest-stage-folder-shadow",
          "forged-record", "forged-record-obfuscated", "patched-testcase-run", "pytest-hook-patch", "cpp-header-shadow",
          "cpp-macro-patch", "go-forged-record", "go-delete-embedded-suite", "js-forged-record", "pytest-k-forged-record",
          "pytest-loop-replaced", "cargo-forged-log"]


def built(*cases: str | tuple[str, ...]) -> list:
    """The cases as parameters; the Go and Rust ones build with their toolchains, seconds each, so they are
    slow (make test runs them, make check does not)."""
    return [pytest.param(*case, marks=[pytest.mark.slow] if case[0].startswith(("go", "cargo", "rust")) else [])
            for case in (c if isinstance(c, tuple) else (c,) for c in cases)]


@pytest.fixture(scope="module")
def tasks(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tasks")
    write_attack_tasks(root)
    return root


def verify(tasks: Path, tmp_path: Path, name: str, command: str):
    task = load_task(tasks / "cheat" / name, tasks)
    workspace = tmp_path / "workspace"
    shutil.copytree(task.dir / "workspace", workspace)
    subprocess.run(["bash", "-c", command], cwd=workspace, check=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    return verify_native(task, workspace, task.dir / "workspace", tmp_path / "stage")


@pytest.mark.parametrize("name", built(*NATIVE))
def test_each_attack_ends_failed(tasks: Path, tmp_path: Path, name: str):
    run = verify(tasks, tmp_path, name, ATTACKS[name][1])
    assert (run.verdict.passed, run.verdict.score) == (False, 0.0), (name, run.verdict.reason, run.log[-3000:])


@pytest.mark.parametrize("language", built("python", "pytest", "pytest-k", "pytest-package", "go", "go-suite", "cpp",
                                            "javascript", "rust"))
def test_the_honest_fix_still_passes(tasks: Path, tmp_path: Path, language: str):
    run = verify(tasks, tmp_path, f"honest-{language}", HONEST[language])
    assert run.verdict.passed, (language, run.verdict.reason, run.log[-3000:])
    assert not [t for t in run.records if "canary" in t], run.records      # the canaries never reach the verdict


@pytest.mark.parametrize("name, says", built(
    ("forged-record", "missing from the record"),
    ("patched-testcase-run", "must fail passed"),
    ("cpp-macro-patch", "must fail passed"),
    ("pytest-root-package-shadow", "did not pass"),
    ("pytest-k-forged-record", "missing from the record"),
    ("pytest-loop-replaced", "missing from the record"),
    ("cargo-forged-log", "missing from the record"),
))
def test_the_reason_says_what_was_caught(tasks: Path, tmp_path: Path, name: str, says: str):
    run = verify(tasks, tmp_path, name, ATTACKS[name][1])
    assert says in run.verdict.reason, run.verdict.reason


@pytest.mark.parametrize("shadowed", ["test_calc", "conftest"])
def test_a_shadow_that_survived_staging_is_refused_by_the_origin_check(tmp_path: Path, shadowed: str):
    """Had staging missed it, the runner itself refuses a test module or conftest that is not the staged file."""
    ws = tmp_path / "ws"
    (ws / "tests").mkdir(parents=True)
    (ws / "tests" / "test_calc.py").write_text("def test_a():\n    assert False\n")
    (ws / "tests" / "conftest.py").write_text("")
    (ws / shadowed).mkdir()
    (ws / shadowed / "__init__.py").write_text(
        f"import os\n__file__ = os.path.join(os.getcwd(), 'tests', '{shadowed}.py')\ndef test_a(): pass\n")
    grader = Path(stage.__file__).parent
    report = tmp_path / "record.jsonl"
    subprocess.run(["/usr/bin/python3", "-I", str(grader / "pytest_run.py"), str(ws), "--", "tests/test_calc.py"],
                   cwd=ws, timeout=120, capture_output=True, stdin=subprocess.DEVNULL,
                   env={"PATH": "/usr/bin:/bin", "BANANABENCH_REPORT": str(report), "HOME": str(tmp_path)})
    assert f'"outcome": "error", "message": "refused: {shadowed}: __spec__.origin' in report.read_text()


SELECTING = "def test_add():\n    assert False\n\n\ndef test_zero():\n    assert True\n"


@pytest.mark.parametrize("runner, selection", [
    ("pytest_run.py", ["-k", "zero", "--", "tests/test_calc.py"]),
    ("pytest_run.py", ["-x", "--", "tests/test_calc.py"]),
    ("pytest_run.py", ["--maxfail=1", "-k", "add or zero", "--", "tests/test_calc.py"]),
    ("pytest_run.py", ["-m", "slow", "--", "tests/test_calc.py"]),
    ("pytest_run.py", ["--deselect", "tests/test_calc.py::test_add", "--", "tests/test_calc.py"]),
    ("pytest_run.py", ["--", "tests/test_calc.py::test_zero"]),
    ("pyunit.py", ["tests.test_calc.Selected.test_zero"]),
])
def test_no_selection_of_the_task_drops_the_canaries(tmp_path: Path, runner: str, selection: list[str]):
    """The canaries run after the task's tests whatever those select (-k, -m, --deselect, node ids) or stop at."""
    ws = tmp_path / "ws"
    (ws / "tests").mkdir(parents=True)
    (ws / "tests" / "__init__.py").write_text("")
    body = SELECTING if runner == "pytest_run.py" else (
        "import unittest\n\n\nclass Selected(unittest.TestCase):\n    def test_add(self):\n        self.fail()\n\n"
        "    def test_zero(self):\n        pass\n")
    (ws / "tests" / "test_calc.py").write_text(body)
    report = tmp_path / "record.jsonl"
    subprocess.run(["/usr/bin/python3", "-I", str(Path(stage.__file__).parent / runner), str(ws), *selection],
                   cwd=ws, timeout=120, capture_output=True, input=b'{"pass": "canary_p_0", "fail": "canary_f_0"}\n',
                   env={"PATH": "/usr/bin:/bin", "BANANABENCH_REPORT": str(report), "HOME": str(tmp_path)})
    pair = CanaryPair("canary_p", "canary_f", processes=1)
    records = {}
    for line in report.read_text().splitlines():
        item = json.loads(line)
        records[item["id"]] = Outcome(item["outcome"])
    assert pair.split(records)[1] is None, records


def test_the_canary_pair_judges_a_record():
    pair = CanaryPair("canary_p", "canary_f", processes=2)
    good = {"t": Outcome("passed"), "x::canary_p_0": Outcome("passed"), "x::canary_f_0": Outcome("failed"),
            "y::canary_p_1": Outcome("passed"), "y::canary_f_1": Outcome("error")}
    assert pair.split(good) == ({"t": Outcome("passed")}, None)
    patched = {**good, "x::canary_f_0": Outcome("passed")}
    assert "must fail passed in test process 1" in pair.split(patched)[1]
    cut = {k: v for k, v in good.items() if not k.startswith("y::")}
    assert "test process 2 is missing" in pair.split(cut)[1]


def test_cargo_unit_tests_carry_the_canary_too(tmp_path: Path):
    """A `lib` target (tests inside the crate) gets the canary module in src/lib.rs for the build only."""
    task_dir = tmp_path / "tasks" / "cheat" / "rust-lib"
    files = {"workspace/Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
             "workspace/src/lib.rs": "pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n\n#[cfg(test)]\nmod hidden;\n",
             "workspace/src/hidden.rs": "",
             "verify/src/hidden.rs": "#[test]\nfn adds() {\n    assert_eq!(crate::add(2, 3), 5);\n}\n",
             "task.toml": 'title = "lib"\ncategory = "cheat"\ntags = ["rust"]\n\n[verify]\nrunner = "cargo"\n'
                          'targets = ["lib"]\ntests = ["calc::hidden::adds"]\ntimeout_s = 300\n',
             "prompt.md": "lib\n"}
    for rel, text in files.items():
        (task_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (task_dir / rel).write_text(text)
    task = load_task(task_dir, tmp_path / "tasks")
    run = verify_native(task, task_dir / "workspace", task_dir / "workspace", tmp_path / "stage")
    assert run.verdict.passed, (run.verdict.reason, run.log[-3000:])
    assert "zzzz_bananabench_canary::pair ... ok" in run.log
    assert (tmp_path / "stage" / "ws" / "src" / "lib.rs").read_text() == files["workspace/src/lib.rs"]
