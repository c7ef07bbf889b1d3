"""`agent validate`: every task must fail on its start state and pass with its reference solution.

For manual (frontend) tasks the automated part is a smoke check: with the solution, the verify
command passes and the page builds and loads without page or console errors.
With podman the checks run in sandbox containers; `--native` runs them on the host without
isolation, which is only acceptable for trusted tasks (the task's own commands run as you).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.agent import datasets, repos
from evaluators.agent.containers import MAX_LOG, Sandbox, chown_tree
from evaluators.agent.image import SUPPORT_DIR

SCREENSHOT_SCRIPT = SUPPORT_DIR / "screenshot.py"


@dataclass
class Check:
    rc: int
    output: str
    timed_out: bool = False
    page: dict[str, Any] = field(default_factory=dict)


@dataclass
class Validation:
    task: str
    start: Check | None
    solution: Check | None
    seconds: float
    manual: bool
    problem: str | None = None

    @property
    def ok(self) -> bool:
        if self.problem:
            return False
        assert self.solution is not None and self.start is not None
        solution_ok = self.solution.rc == 0 and not self.solution.timed_out
        if self.manual:
            page = self.solution.page
            return solution_ok and bool(page.get("loaded")) and not page.get("page_errors") \
                and not page.get("console_errors")
        return solution_ok and self.start.rc != 0

    def describe(self) -> str:
        if self.problem:
            return self.problem
        assert self.solution is not None and self.start is not None
        parts = [f"start state {'fails' if self.start.rc != 0 else 'PASSES'} (exit {self.start.rc})",
                 f"solution {'passes' if self.solution.rc == 0 else 'FAILS'} (exit {self.solution.rc})"]
        if self.manual:
            page = self.solution.page
            state = "loads" if page.get("loaded") else f"does NOT load ({page.get('error', 'no report')})"
            errors = page.get("page_errors", []) + page.get("console_errors", [])
            parts.append(f"page {state}" + (f", {len(errors)} error(s): {errors[0][:120]}" if errors else ""))
        return "; ".join(parts)


class NativeRunner:
    """Runs verify commands and screenshots on the host (no isolation)."""

    def verify(self, workspace: Path, task: datasets.Task, scratch: Path) -> Check:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(workspace, scratch, symlinks=True)
        if task.verify_dir.is_dir():
            shutil.copytree(task.verify_dir, scratch, symlinks=True, dirs_exist_ok=True)
        try:
            proc = subprocess.run(["sh", "-c", task.verify_cmd], cwd=scratch, capture_output=True,
                                  timeout=task.verify_timeout_s, env={**os.environ, "CI": "1"})
            out = (proc.stdout + proc.stderr)[-MAX_LOG:].decode(errors="replace")
            return Check(proc.returncode, out)
        except subprocess.TimeoutExpired as exc:
            return Check(124, (exc.stdout or b"").decode(errors="replace"), timed_out=True)

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

    def verify(self, workspace: Path, task: datasets.Task, scratch: Path) -> Check:
        result = self.sandbox.verify(workspace, task.verify_dir, scratch, task.verify_cmd,
                                     timeout_s=task.verify_timeout_s)
        return Check(result.rc, result.text, result.timed_out)

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


def validate_task(task: datasets.Task, runner: NativeRunner | PodmanRunner, owner_ids: tuple[int, int] | None) -> Validation:
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
        start_check = runner.verify(start, task, tmp_path / "verify-start")
        solution_check = runner.verify(solution, task, tmp_path / "verify-solution")
        if task.screenshot is not None:
            solution_check.page = runner.screenshot(solution, task, tmp_path / "shots")
    return Validation(task.id, start_check, solution_check, time.monotonic() - started, task.manual)
