"""`agent validate`: every task must fail on its start state and pass with its reference solution.

Both sides go through the task's runner exactly as an attempt's verification does, so a task is
valid only when its solution makes every expected test pass in the runner's own record (and the
start state does not). For manual (frontend) tasks the automated part is a smoke check, proven like any
test list (the start state fails it, the solution passes it), and with the solution the page builds and loads
without page or console errors.
With podman the checks run in sandbox containers; `--native` runs them on the host without
isolation, which is only acceptable for trusted tasks (the task's own commands run as you).
Each side runs `runs` times (3 by default) and testproof.py classifies every test from those runs: the
expected tests must be proven (fail-to-pass, pass-to-pass, none flaky), with at least one fail-to-pass.
`--write-tests` writes the proven `fail_to_pass` and `pass_to_pass` lists, and the flaky tests it left
out, into the task's `[verify]`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.agent.corpus import datasets, repos
from evaluators.agent.grading import mutation, testproof, verification
from evaluators.agent.grading.verdict import decide
from evaluators.agent.grading.verification import VerifyRun
from evaluators.agent.sandbox.containers import Sandbox, chown_tree
from evaluators.agent.sandbox.image import SUPPORT_DIR
from evaluators.core import atomic

SCREENSHOT_SCRIPT = SUPPORT_DIR / "screenshot.py"


@dataclass
class Check:
    """One side (start state or solution), verified `len(runs)` times in fresh stages."""

    runs: list[VerifyRun]
    page: dict[str, Any] = field(default_factory=dict)

    @property
    def run(self) -> VerifyRun:
        return self.runs[0]

    @property
    def passed(self) -> bool:
        return all(run.verdict.passed for run in self.runs)

    @property
    def failed(self) -> bool:
        return not any(run.verdict.passed for run in self.runs)


@dataclass
class Validation:
    task: str
    start: Check | None
    solution: Check | None
    seconds: float
    manual: bool
    problem: str | None = None
    mutation: mutation.Mutation | None = None
    proof: testproof.Proof | None = None
    unproven: list[str] = field(default_factory=list)  # why the expected tests are not proven

    @property
    def ok(self) -> bool:
        if self.problem:
            return False
        assert self.solution is not None and self.start is not None
        page = self.solution.page
        if self.manual and not (page.get("loaded") and not page.get("page_errors") and not page.get("console_errors")):
            return False
        return self.solution.passed and self.start.failed and not self.unproven \
            and not (self.mutation and self.mutation.problem)

    def describe(self) -> str:
        if self.problem:
            return self.problem
        assert self.solution is not None and self.start is not None
        start, solution = self.start.run.verdict, self.solution.run.verdict
        runs = len(self.solution.runs)
        times = f" in {runs} runs" if runs > 1 else ""
        parts = [f"start state {'fails' if self.start.failed else 'PASSES'}{times} ({start.reason})"]
        parts.append(f"solution {'passes' if self.solution.passed else 'FAILS'}{times} ({solution.reason})")
        if solution.unexpected:
            parts.append(f"{len(solution.unexpected)} recorded test(s) not expected (not graded)")
        if self.proof is not None:
            proof = self.proof
            parts.append(f"proven: {len(proof.fail_to_pass)} fail-to-pass, {len(proof.pass_to_pass)} pass-to-pass")
            if proof.unrun:
                parts.append(f"{len(proof.unrun)} of the fail-to-pass never ran at the start (its build failed or "
                             f"its test process ended before them; first: {proof.unrun[0]})")
            if proof.flaky:
                first = next(iter(proof.flaky))
                parts.append(f"{len(proof.flaky)} flaky, left out (first: {first}: {proof.flaky[first]})")
            if proof.broken:
                parts.append(f"{len(proof.broken)} fail with the solution too, left out (first: {proof.broken[0]})")
            parts += [f"UNPROVEN: {p}" for p in self.unproven[:3]]
            if len(self.unproven) > 3:
                parts.append(f"{len(self.unproven) - 3} more unproven")
        if self.manual:
            page = self.solution.page
            state = "loads" if page.get("loaded") else f"does NOT load ({page.get('error', 'no report')})"
            errors = page.get("page_errors", []) + page.get("console_errors", [])
            parts.append(f"page {state}" + (f", {len(errors)} error(s): {errors[0][:120]}" if errors else ""))
        if self.mutation and self.mutation.problem:
            parts.append(f"mutation check FAILS: {self.mutation.problem}")
        elif self.mutation and self.mutation.inputs:
            parts.append(f"mutation check: {len(self.mutation.inputs)} editable input(s), {self.mutation.tried} mutant(s) fail")
        return "; ".join(parts)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"task": self.task, "ok": self.ok, "detail": self.describe(),
                               "seconds": round(self.seconds, 2)}
        for side in ("start", "solution"):
            check = getattr(self, side)
            if check is not None:
                out[side] = check.run.verdict.details()
        if self.proof is not None:
            out["proof"] = {"fail_to_pass": self.proof.fail_to_pass, "pass_to_pass": self.proof.pass_to_pass,
                            "flaky": self.proof.flaky, "broken": self.proof.broken, "unrun": self.proof.unrun,
                            "unproven": self.unproven}
        return out


class NativeRunner:
    """Runs the verification and screenshots on the host (no isolation)."""

    def verify(self, workspace: Path, start: Path, task: datasets.Task, scratch: Path, **kw) -> VerifyRun:
        return verification.verify_native(task, workspace, start, scratch, **kw)

    def screenshot(self, workspace: Path, task: datasets.Task, out: Path) -> dict[str, Any]:
        spec = task.screenshot
        assert spec is not None
        if spec.build:
            subprocess.run(["sh", "-c", spec.build], cwd=workspace, capture_output=True, timeout=600)
        return host_screenshot(workspace / spec.path, out, width=spec.width, height=spec.height,
                               mobile_width=spec.mobile_width)


def host_screenshot(page: Path, out: Path, *, width: int, height: int, mobile_width: int | None = None,
                    timeout_s: float = 300) -> dict[str, Any]:
    """Load `page` in the host's Chromium through Playwright (the sandbox's screenshot script); its report."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(SCREENSHOT_SCRIPT), "--page", str(page), "--out", str(out),
           "--width", str(width), "--height", str(height), "--chromium", host_chromium()]
    if mobile_width:
        cmd += ["--mobile-width", str(mobile_width)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    return _page_report(proc.stdout + proc.stderr)


class PodmanRunner:
    """Runs the same checks in fresh sandbox containers."""

    def __init__(self, sandbox: Sandbox):
        self.sandbox = sandbox

    def verify(self, workspace: Path, start: Path, task: datasets.Task, scratch: Path, **kw) -> VerifyRun:
        return verification.verify_in_podman(self.sandbox, task, workspace, start, scratch, **kw)

    def screenshot(self, workspace: Path, task: datasets.Task, out: Path) -> dict[str, Any]:
        spec = task.screenshot
        assert spec is not None
        _, report = self.sandbox.screenshot(workspace, out, page=spec.path, build=spec.build, width=spec.width,
                                            height=spec.height, mobile_width=spec.mobile_width)
        return report


def host_chromium() -> str:
    for path in ("/usr/lib/chromium/chromium", shutil.which("chromium") or "", shutil.which("chromium-browser") or ""):
        if path and os.path.exists(path):
            return path
    return "chromium"


def _page_report(output: str) -> dict[str, Any]:
    for line in reversed(output.splitlines()):
        if line.startswith("SCREENSHOT "):
            try:
                return json.loads(line[len("SCREENSHOT "):])
            except ValueError:
                break
    return {"loaded": False, "error": output.strip()[-300:] or "no report"}


def validate_task(task: datasets.Task, runner: NativeRunner | PodmanRunner, owner_ids: tuple[int, int] | None,
                  *, runs: int = 3) -> Validation:
    """Verify the start state and the solution `runs` times each, and what that proves about every test."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bb-validate-") as tmp:
        tmp_path = Path(tmp)
        os.chmod(tmp_path, 0o755)
        try:
            start = repos.materialize(task, tmp_path / "start")
            solution = repos.materialize(task, tmp_path / "solution", solution=True)
        except Exception as exc:  # a broken task is a finding, not a crash
            return Validation(task.id, None, None, time.monotonic() - started, task.manual,
                              problem=f"cannot prepare: {exc}")
        if owner_ids is not None:
            chown_tree(start, *owner_ids)
            chown_tree(solution, *owner_ids)
        start_check = Check([runner.verify(start, start, task, tmp_path / f"stage-start-{i}") for i in range(runs)])
        # The first solution run records which files the hidden tests read (for the mutation check).
        solution_check = Check([runner.verify(solution, start, task, tmp_path / f"stage-solution-{i}",
                                              watch_reads=i == 0) for i in range(runs)])
        if task.screenshot is not None:
            solution_check.page = runner.screenshot(solution, task, tmp_path / "shots")
        mutated = None
        if solution_check.passed and start_check.failed:
            mutated = mutation.check(task, lambda ws, st, scratch: runner.verify(ws, st, task, scratch), start,
                                     tmp_path / "stage-solution-0", tmp_path / "mutants")
    result = Validation(task.id, start_check, solution_check, time.monotonic() - started, task.manual,
                        mutation=mutated)
    judge(task, result)
    return result


def judge(task: datasets.Task, result: Validation) -> None:
    """Classify the tests from both sides' records and say which expected tests are not proven."""
    if result.start is None or result.solution is None:
        return
    result.proof = testproof.prove([r.records for r in result.start.runs], [r.records for r in result.solution.runs])
    result.unproven = result.proof.problems(task.verify)


def rejudge(task: datasets.Task, result: Validation) -> None:
    """Decide both sides again from their records (after the task's expected tests changed)."""
    for check in (result.start, result.solution):
        for run in check.runs if check is not None else ():
            if not run.verdict.build_failed:
                run.verdict = decide(task.verify, run.records,
                                     timed_out_s=task.verify.timeout_s if run.timed_out else None)
    judge(task, result)


def write_tests(task: datasets.Task, result: Validation) -> testproof.Proof:
    """Write the proven `fail_to_pass` / `pass_to_pass` and the flaky tests left out into the task's `[verify]`
    (a test that passes on both sides as a whole stands for its cases)."""
    assert result.proof is not None
    path = task.dir / datasets.TASK_FILE
    text = drop_array(path.read_text(encoding="utf-8"), "tests")
    pass_to_pass = testproof.without_cases_of_listed(result.proof.pass_to_pass, task.verify.runner)
    for key, ids in (("flaky", sorted(result.proof.flaky)), ("pass_to_pass", pass_to_pass),
                     ("fail_to_pass", result.proof.fail_to_pass)):
        text = set_array(text, key, ids) if ids or key != "flaky" else drop_array(text, key)
    atomic.write_text(path, text, overwrite=True)
    return result.proof


def _verify_body(text: str) -> tuple[int, int]:
    section = re.search(r"^\[verify\][ \t]*$", text, re.M)
    if section is None:
        raise ValueError("no [verify] table")
    end = re.search(r"^\[", text[section.end():], re.M)
    return section.end(), section.end() + end.start() if end else len(text)


def set_array(text: str, key: str, ids: list[str]) -> str:
    """`text` (a task.toml) with `key = [...]` in its [verify] table replaced or added after `runner`."""
    array = f"{key} = [\n" + "".join(f"  {json.dumps(i)},\n" for i in ids) + "]"
    start, stop = _verify_body(text)
    body = text[start:stop]
    found = re.search(rf"^{key}\s*=\s*\[", body, re.M)
    if found:
        close = _array_end(body, found.end() - 1)
        body = body[:found.start()] + array + body[close:]
    else:
        runner = re.search(r"^runner\s*=.*$", body, re.M)
        at = runner.end() if runner else 0
        body = body[:at] + "\n" + array + body[at:]
    return text[:start] + body + text[stop:]


def drop_array(text: str, key: str) -> str:
    """`text` without the `key = [...]` array of its [verify] table (and its line)."""
    start, stop = _verify_body(text)
    body = text[start:stop]
    found = re.search(rf"^{key}\s*=\s*\[", body, re.M)
    if not found:
        return text
    close = _array_end(body, found.end() - 1)
    close += body[close:].startswith("\n")
    return text[:start] + body[:found.start()] + body[close:] + text[stop:]


def _array_end(text: str, opening: int) -> int:
    """The index just past the `]` closing the TOML array that opens at `opening` (strings respected)."""
    depth, i, quote = 0, opening, None
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#":
            i = text.find("\n", i)
            if i < 0:
                break
        elif c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unterminated tests array")
