"""Cases get test ids of their own where the framework names them: Go subtests and node's nested tests, so a
table test of hundreds of cases is not one verdict; and a panicking Go test no longer takes its binary's other
tests with it.

A real Go package with a table test, a subtest that panics at the start and a test after it goes through the
go runner natively (`agent validate --native --write-tests`, one run per side): the written lists name the cases
(`.::TestTable/two`), a test that passes on both sides as a whole stands for its cases, the test after the
panic is proven pass-to-pass instead of "never ran", a test that panics is failed, not passed, and one whose
goroutine ends even the process that runs it alone is failed by the driver.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from evaluators.agent.corpus.datasets import load_task
from evaluators.agent.grading import testproof
from evaluators.agent.grading.verdict import TestOutcome as Outcome
from evaluators.agent.grading.verification import verify_native
from evaluators.agent.grading.verifyspec import parse
from evaluators.core.errors import BadInput
from tests.conftest import run_cli
from tests.helpers.agent import FORGED_SUBTEST_PASS_GO, write_task

needs_go = pytest.mark.skipif(shutil.which("go") is None, reason="needs the go toolchain")

START = """package calc

func Add(a, b int) int {
	if a == 2 {
		return a * b + 1
	}
	return a + b
}

func Explode() int {
	var m map[string]int
	m["boom"] = 1
	return 0
}
"""
FIXED = START.replace("return a * b + 1", "return a + b").replace(
    'var m map[string]int\n\tm["boom"] = 1\n\treturn 0', "return 1")
HIDDEN = """package calc

import "testing"

func TestTable(t *testing.T) {
	for _, c := range []struct {
		name       string
		a, b, want int
	}{{"one", 1, 1, 2}, {"two", 2, 2, 4}, {"with space", 3, 4, 7}} {
		t.Run(c.name, func(t *testing.T) {
			if got := Add(c.a, c.b); got != c.want {
				t.Fatalf("Add(%d, %d) = %d", c.a, c.b, got)
			}
		})
	}
}

func TestPanics(t *testing.T) {
	t.Run("deep", func(t *testing.T) {
		if Explode() != 1 {
			t.Fatal("no")
		}
	})
}

func TestBoom(t *testing.T) {
	if Explode() != 1 {
		t.Fatal("no")
	}
}

func TestInGoroutine(t *testing.T) {
	done := make(chan int)
	go func() { done <- Explode() }()
	if <-done != 1 {
		t.Fatal("no")
	}
}

func TestAfter(t *testing.T) {
	t.Run("nested/level", func(t *testing.T) {})
}
"""


@pytest.fixture
def task_root(tmp_path: Path) -> Path:
    root = tmp_path / "tasks"
    write_task(root, "coding/go/cases", prompt="fix it", tags=("go",), verify_toml='runner = "go"\ntests = []',
               files={"go.mod": "module example.com/calc\n\ngo 1.19\n", "calc.go": START},
               verify={"calc_hidden_test.go": HIDDEN}, solution={"calc.go": FIXED})
    return root


@needs_go
def test_subtests_are_recorded_and_a_panic_leaves_the_other_tests_their_verdict(task_root: Path, tmp_path: Path):
    task = load_task(task_root / "coding/go/cases", task_root)
    run = verify_native(task, task.dir / "workspace", task.dir / "workspace", tmp_path / "stage")
    outcomes = {test: rec.outcome for test, rec in run.records.items()}
    assert outcomes == {
        ".::TestTable": "failed", ".::TestTable/one": "passed", ".::TestTable/two": "failed",
        ".::TestTable/with_space": "passed",
        ".::TestPanics": "failed", ".::TestPanics/deep": "failed",
        # ran again on their own after the panic ended the binary; a test that panics itself is failed, not passed
        ".::TestBoom": "failed", ".::TestAfter": "passed", ".::TestAfter/nested/level": "passed",
        ".::TestInGoroutine": "failed",  # its goroutine's panic ends even the process that runs it alone
    }, run.log[-3000:]
    assert "the test process ended (status 2) while this test ran" in run.records[".::TestInGoroutine"].message
    assert "-test.run=^TestBoom$" in run.log and "-test.run=^TestAfter$" in run.log and "-test.run=^TestTable$" not in run.log
    assert run.verdict.reason.startswith("tampered record:") is False    # no credit to take away: it failed


@pytest.mark.slow
@needs_go
def test_validate_writes_case_ids_and_proves_the_tests_after_a_panic(task_root: Path):
    out = run_cli("agent", "validate", "--native", "--runs", "1", "--write-tests", "--tasks-dir", str(task_root),
                  "--json", "coding/go/cases")
    assert out.returncode == 0, out.stdout + out.stderr
    verify = tomllib.loads((task_root / "coding/go/cases/task.toml").read_text())["verify"]
    assert verify["fail_to_pass"] == [".::TestBoom", ".::TestInGoroutine", ".::TestPanics", ".::TestPanics/deep",
                                      ".::TestTable", ".::TestTable/two"]
    # TestAfter passes on both sides as a whole and stands for its case; TestTable has a fail-to-pass case
    assert verify["pass_to_pass"] == [".::TestAfter", ".::TestTable/one", ".::TestTable/with_space"]
    assert "never ran at the start" not in out.stdout


NODE_HIDDEN = """import { describe, it, test } from 'node:test';
import assert from 'node:assert';
import { double } from '../double.js';

describe('double', () => {
  it('of two', () => assert.strictEqual(double(2), 4));
  describe('of negatives', () => {
    it('of minus one', () => assert.strictEqual(double(-1), -2));
  });
});

test('table', async (t) => {
  for (const n of [0, 5]) await t.test(`n=${n}`, () => assert.strictEqual(double(n), n + n));
});
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_node_cases_are_named_under_their_suites(tmp_path: Path):
    root = tmp_path / "tasks"
    write_task(root, "coding/js/cases", prompt="fix it", tags=("javascript",), verify_toml='runner = "node"\ntests = []',
               files={"package.json": '{"type": "module"}\n',
                      "double.js": "export const double = (n) => (n < 0 ? n : n * 2);\n"},
               verify={"test/hidden.test.js": NODE_HIDDEN})
    task = load_task(root / "coding/js/cases", root)
    run = verify_native(task, task.dir / "workspace", task.dir / "workspace", tmp_path / "stage")
    file = "test/hidden.test.js::"
    assert {test[len(file):]: rec.outcome for test, rec in run.records.items()} == {
        "double": "failed", "double > of two": "passed", "double > of negatives": "failed",
        "double > of negatives > of minus one": "failed",
        "table": "passed", "table > n=0": "passed", "table > n=5": "passed",
    }, run.log[-3000:]


def test_counts_of_target_tests_go_by_cases_while_the_verdict_needs_the_parents_too():
    spec = parse({"runner": "go", "fail_to_pass": [".::TestToml", ".::TestToml/decode", ".::TestToml/decode/dup-08"],
                  "pass_to_pass": [".::TestToml/decode/ok", "pkg/sub::TestOther", "pkg/sub::TestOther/a/b"]},
                 lambda key, message: BadInput(f"{key}: {message}"))
    outcomes = {".::TestToml": "failed", ".::TestToml/decode": "failed", ".::TestToml/decode/dup-08": "passed",
                ".::TestToml/decode/ok": "failed", "pkg/sub::TestOther": "passed", "pkg/sub::TestOther/a/b": "passed"}
    records = {test: Outcome(outcome) for test, outcome in outcomes.items()}
    assert testproof.target_tests(spec, records) == {"fixed": 1, "fail_to_pass": 1, "broke": 1, "pass_to_pass": 2}
    node = ["f.js::suite", "f.js::suite > inner", "f.js::suite > inner > case", "f.js::alone"]
    assert testproof.cases_only(node, "node") == ["f.js::suite > inner > case", "f.js::alone"]
    assert testproof.cases_only([".::TestA", ".::TestA/x"], "pytest") == [".::TestA", ".::TestA/x"]
    both = [".::TestA", ".::TestA/x", ".::TestA/x/y", ".::TestB/z", "p/q::TestC/w"]
    assert testproof.without_cases_of_listed(both, "go") == [".::TestA", ".::TestB/z", "p/q::TestC/w"]




@pytest.mark.slow
@needs_go
def test_a_forged_subtest_line_earns_no_pass(task_root: Path, tmp_path: Path):
    """Case outcomes come from the binary's output, which the code under test can write too: a forged PASS line
    for the failing case neither hides its real FAIL (the worst outcome of an id counts) nor passes the parent,
    whose verdict is the recorder's."""
    (task_root / "coding/go/cases/task.toml").write_text(
        (task_root / "coding/go/cases/task.toml").read_text().replace(
            "tests = []", 'tests = [".::TestTable", ".::TestTable/two"]'))
    task = load_task(task_root / "coding/go/cases", task_root)
    workspace = shutil.copytree(task.dir / "workspace", tmp_path / "workspace")
    (workspace / "forge.go").write_text(FORGED_SUBTEST_PASS_GO)
    run = verify_native(task, workspace, task.dir / "workspace", tmp_path / "stage")
    assert "--- PASS: TestTable/two" in run.log, run.log[-2000:]  # the forgery reached the stream
    assert run.records[".::TestTable/two"].outcome == "failed" and run.records[".::TestTable"].outcome == "failed"
    assert not run.verdict.passed and run.verdict.score < 1.0
    fixed = shutil.copytree(task.dir / "solution", tmp_path / "fixed", dirs_exist_ok=True)
    shutil.copy(task.dir / "workspace" / "go.mod", fixed / "go.mod")
    honest = verify_native(task, fixed, task.dir / "workspace", tmp_path / "stage-honest")
    assert honest.verdict.passed, honest.verdict.reason  # the control: the same list passes an honest fix
