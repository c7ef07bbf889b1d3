"""What several runs of each side prove about every test: fail-to-pass, pass-to-pass, flaky or broken.

A task's start state and its reference solution each run a few times (`agent validate --runs`, 3 by
default). A test that fails in every start run and passes in every solution run is fail-to-pass: the fix
is what makes it pass. One that passes in every run of both sides is pass-to-pass. A test whose outcome
changes between runs of the same side is flaky: its verdict would be luck, so it is reported and left out.
One that never passes with the solution (or passes at the start and fails with the fix) is broken there:
reported, never silently dropped. A test missing from a run's record counts as not passed in that run; the
fail-to-pass tests that never ran at the start (a failed build, a process that died first) are named apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evaluators.agent.grading.verifyspec import VerifySpec

Records = Mapping[str, object]  # test id -> the runner's outcome record (with `.outcome`)
# how a runner's test id names a case of a parent test: `pkg::TestToml/decode/x`, `file.test.js::suite > case`
CASE_SEPARATORS = {"go": "/", "node": " > "}


def _passes(runs: Sequence[Records], test: str) -> list[bool]:
    return [getattr(run.get(test), "outcome", None) == "passed" for run in runs]


@dataclass
class Proof:
    fail_to_pass: list[str] = field(default_factory=list)
    pass_to_pass: list[str] = field(default_factory=list)
    flaky: dict[str, str] = field(default_factory=dict)  # test -> which side changed, e.g. "solution 2/3 passed"
    broken: list[str] = field(default_factory=list)  # never pass with the solution, or regress with it
    # fail-to-pass tests absent from every start record: they never ran there (the build failed, or the test
    # process died first, e.g. a panic in a Go test binary), so the start proves less about them
    unrun: list[str] = field(default_factory=list)

    def problems(self, spec: VerifySpec) -> list[str]:
        """Why the task's expected tests are not proven (empty when they are)."""
        out = []
        declared_f2p = spec.fail_to_pass if (spec.fail_to_pass or spec.pass_to_pass) else ()
        declared_p2p = spec.pass_to_pass
        f2p, p2p = set(self.fail_to_pass), set(self.pass_to_pass)
        for test in spec.tests:
            if test in self.flaky:
                out.append(f"{test} is flaky ({self.flaky[test]})")
            elif test in declared_f2p and test not in f2p:
                out.append(f"fail_to_pass {test} is not proven ({'passes at the start' if test in p2p else 'broken'})")
            elif test in declared_p2p and test not in p2p:
                out.append(f"pass_to_pass {test} is not proven ({'fails at the start' if test in f2p else 'broken'})")
        if not f2p & set(spec.tests):
            out.append("no expected test is proven fail-to-pass (fails at the start, passes with the solution)")
        return out


def prove(start: Sequence[Records], solution: Sequence[Records]) -> Proof:
    """Classify every test recorded on either side across the runs of both sides."""
    proof = Proof()
    tests = sorted({t for run in [*start, *solution] for t in run})
    for test in tests:
        before, after = _passes(start, test), _passes(solution, test)
        changing = [f"{side} {sum(v)}/{len(v)} passed" for side, v in (("start", before), ("solution", after))
                    if 0 < sum(v) < len(v)]
        if changing:
            proof.flaky[test] = ", ".join(changing)
        elif all(after) and not any(before):
            proof.fail_to_pass.append(test)
            if all(test not in run for run in start):
                proof.unrun.append(test)
        elif all(after) and all(before):
            proof.pass_to_pass.append(test)
        else:
            proof.broken.append(test)
    return proof


def _parents(test: str, runner: str) -> list[str]:
    """The ids of the tests that hold `test` as a case, nearest first (none for runners without cases)."""
    separator = CASE_SEPARATORS.get(runner)
    head, colons, name = test.partition("::")
    out = []
    while separator and separator in name:
        name = name.rpartition(separator)[0]
        out.append(head + colons + name)
    return out


def cases_only(tests: Sequence[str], runner: str) -> list[str]:
    """`tests` without the parents whose cases are listed too (a Go test with its subtests, a node suite with its
    tests): they count through their cases, so one fixed case of a 700-case test counts once, not with its parents."""
    parents = {parent for test in tests for parent in _parents(test, runner)}
    return [t for t in tests if t not in parents]


def without_cases_of_listed(tests: Sequence[str], runner: str) -> list[str]:
    """Pass-to-pass `tests` without the cases of a parent that is pass-to-pass as a whole: the parent passes only
    when all its cases do, so it stands for them (a test with a fail-to-pass case is still listed case by case)."""
    listed = set(tests)
    return [t for t in tests if not listed.intersection(_parents(t, runner))]


def target_tests(spec: VerifySpec, records: Records) -> dict[str, int] | None:
    """An attempt's counts: fail-to-pass cases it fixed, pass-to-pass cases it broke (None without the lists).
    Listed parents are not counted (`cases_only`), but they are graded: the verdict needs every listed test."""
    if not spec.fail_to_pass:
        return None
    f2p, p2p = cases_only(spec.fail_to_pass, spec.runner), cases_only(spec.pass_to_pass, spec.runner)
    passed = {t for t in spec.tests if getattr(records.get(t), "outcome", None) == "passed"}
    return {"fixed": len(passed.intersection(f2p)), "fail_to_pass": len(f2p),
            "broke": len(set(p2p) - passed), "pass_to_pass": len(p2p)}
