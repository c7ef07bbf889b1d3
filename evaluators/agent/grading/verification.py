"""Running a task's verification: stage and build in one container, run the tests in another.

Phase 1 (with the hidden files, read-only) stages the copy of the workspace (runner configuration
restored from the start state, hidden files laid in) and builds; phase 2 (without the hidden files,
except for script graders) runs the tests, each process writing its own record. The verdict comes
from `verdict.decide` over those records. `agent validate --native` runs the same driver on the host.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from evaluators.agent.corpus.datasets import Task
from evaluators.agent.grading.canaries import CanaryPair, judged
from evaluators.agent.grading.verdict import TestOutcome, Verdict, decide, read_records
from evaluators.agent.sandbox import podman as pm
from evaluators.agent.sandbox.containers import MAX_LOG, OneShot, Sandbox, Source, prepare_scratch
from evaluators.agent.sandbox.image import SUPPORT_DIR
from evaluators.core.errors import EvaluationFailure

DRIVER = "grader/run.py"
STAGE_FILE_CAP = 256 << 20   # bytes of one file copied into the verification stage
_MARK = "BUILD FAILED: "
DRIVER_STARTED = "bananabench-verify: driver started"


@dataclass
class VerifyRun:
    verdict: Verdict
    log: str
    seconds: float
    timed_out: bool = False
    records: dict[str, TestOutcome] = field(default_factory=dict)


def driver_spec(task: Task, *, src: str, start: str, verify: str | None, stage: str, python: str,
                tmp: str = "/tmp", watch_reads: bool = False) -> dict:
    """The driver's JSON spec; `watch_reads` makes it list the staged files each phase opened (mutation.py)."""
    spec = task.verify
    return {"runner": spec.runner, "src": src, "start": start, "verify": verify, "stage": stage,
            "restore": spec.restore_globs(), "targets": spec.resolved_targets(task.verify_dir), "args": list(spec.args),
            "build": spec.build, "binaries": list(spec.binaries), "cmd": spec.cmd, "vet": spec.vet,
            "release": spec.release, "pythonpath": list(spec.pythonpath), "cap": STAGE_FILE_CAP, "python": python,
            "tmp": tmp, "watch_reads": watch_reads}


def _container_ran(phase: str, shot: OneShot) -> None:
    """podman's own failures (and a missing interpreter) are the host's problem, never the model's.

    They are recognised by their exit status and by the driver's first line being absent: code under test
    that forced the driver to exit 125 (through ptrace, say) cannot take back that line, so it cannot turn
    its failure into an uncounted infrastructure error.
    """
    if not shot.timed_out and shot.rc in pm.PODMAN_FAILURE_CODES and DRIVER_STARTED not in shot.text:
        raise EvaluationFailure(f"the verification's {phase} container did not run (exit {shot.rc}): "
                                f"{shot.text.strip()[-300:]}")


def _build_error(rc: int, output: str) -> str | None:
    """Phase 1 ran no code under test, so its exit status can be believed: it only ever fails a task."""
    if rc == 0:
        return None
    for line in reversed(output.splitlines()):
        if line.startswith(_MARK):
            return line[len(_MARK):]
    return f"staging or build ended with exit status {rc}: {output.strip()[-300:]}"


class Stage(Protocol):
    """The verification's scratch folder (size-limited): on this machine, or a volume on a remote host."""

    source: Source

    def sub(self, name: str) -> Source: ...

    def has_dir(self, name: str) -> bool: ...

    def records(self) -> Path: ...


@dataclass
class LocalStage:
    """A stage folder of this machine."""

    source: Path

    def sub(self, name: str) -> Path:
        return self.source / name

    def has_dir(self, name: str) -> bool:
        return (self.source / name).is_dir() and not (self.source / name).is_symlink()

    def records(self) -> Path:
        return self.source / "report"


def _finish(task: Task, stage: Stage, log: str, started: float, *, build_error: str | None = None,
            timed_out: bool = False, canary: CanaryPair | None = None) -> VerifyRun:
    records = read_records(stage.records()) if build_error is None else {}
    problem = None
    if canary is not None and build_error is None:
        records, problem = canary.split(records)
    verdict = decide(task.verify, records, build_error=build_error,
                     timed_out_s=task.verify.timeout_s if timed_out else None)
    if not timed_out:   # a run cut short misses its canaries honestly; it gets no credit it did not record
        verdict = judged(verdict, problem)
    return VerifyRun(verdict, log, time.monotonic() - started, timed_out, records)


def verify_in_podman(sandbox: Sandbox, task: Task, workspace: Source, start: Source, stage: Stage | Path,
                     hidden: Source | None = None, *, watch_reads: bool = False) -> VerifyRun:
    """Both phases in fresh containers without network; `stage` must be empty (a size-limited mount).

    `hidden` is where the task's verify/ folder is on the sandbox's host (default: the task's own folder)."""
    started = time.monotonic()
    if isinstance(stage, Path):
        prepare_scratch(stage, sandbox.podman)
        stage = LocalStage(stage)
    if hidden is None and task.verify_dir.is_dir():
        hidden = task.verify_dir
    spec = json.dumps(driver_spec(task, src="/src", start="/start", verify="/verify" if hidden else None,
                                  stage="/stage", python="/usr/bin/python3", watch_reads=watch_reads))
    command = f"exec python3 -I /opt/bananabench/{DRIVER} {shlex.quote(spec)}"
    mounts = [*sandbox.bind(workspace, "/src"), *sandbox.bind(start, "/start"),
              *sandbox.bind(stage.source, "/stage", "rw")]
    if hidden:
        mounts += sandbox.bind(hidden, "/verify")
    timeout = task.verify.timeout_s
    build = sandbox.oneshot("verify-build", mounts, f"{command} stage build", timeout_s=timeout)
    _container_ran("build", build)
    log = "== phase 1: stage and build ==\n" + build.text
    if build.timed_out:
        return _finish(task, stage, log, started, build_error="timed out while staging or building", timed_out=True)
    build_error = _build_error(build.rc, build.text)
    if build_error is not None:
        return _finish(task, stage, log, started, build_error=build_error)
    mounts = [*sandbox.bind(stage.source, "/stage", "rw"), *sandbox.bind(stage.sub("bin"), "/stage/bin")]
    if stage.has_dir("target"):
        mounts += sandbox.bind(stage.sub("target"), "/stage/target")
    if hidden and task.verify.runner == "script":
        mounts += sandbox.bind(hidden, "/verify")
    left = max(1.0, timeout - (time.monotonic() - started))
    canary = CanaryPair.draw(task)
    run = sandbox.oneshot("verify-run", mounts, f"{command} run", timeout_s=left,
                          stdin=canary.stdin() if canary else b"")
    _container_ran("test", run)
    log += "\n== phase 2: run the tests ==\n" + run.text
    if run.timed_out:
        log += f"\n[verification timed out after {timeout:g} s]\n"
    return _finish(task, stage, log, started, timed_out=run.timed_out, canary=canary)


def host_python() -> str:
    """Debian's interpreter, as in the sandbox; another one only if it is missing."""
    return "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else shutil.which("python3") or "python3"


def verify_native(task: Task, workspace: Path, start: Path, stage: Path, *, watch_reads: bool = False) -> VerifyRun:
    """The same driver on the host, without isolation (trusted tasks only)."""
    started = time.monotonic()
    stage.mkdir(parents=True, exist_ok=True)
    stage, workspace, start = stage.resolve(), workspace.resolve(), start.resolve()
    (stage / "tmp").mkdir(exist_ok=True)
    hidden = None
    if task.verify_dir.is_dir():  # a copy: graders run from it and must not leave bytecode in the task
        hidden = stage / "verify"
        shutil.rmtree(hidden, ignore_errors=True)
        shutil.copytree(task.verify_dir, hidden, symlinks=True)
    spec = driver_spec(task, src=str(workspace), start=str(start), verify=str(hidden) if hidden else None,
                       stage=str(stage), python=host_python(), tmp=str(stage / "tmp"), watch_reads=watch_reads)
    argv = [host_python(), "-I", str(SUPPORT_DIR / DRIVER), json.dumps(spec)]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(stage / "tmp"), "LANG": "C.UTF-8"}
    timeout = task.verify.timeout_s
    canary = CanaryPair.draw(task)
    logs = []
    for phases in (["stage", "build"], ["run"]):
        left = timeout - (time.monotonic() - started)
        proc = subprocess.Popen([*argv, *phases], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True, stdin=subprocess.PIPE)
        given = canary.stdin() if canary and phases == ["run"] else b""
        try:
            out, _ = proc.communicate(given, timeout=max(1.0, left))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            logs.append(out[-MAX_LOG:].decode(errors="replace"))
            error = "timed out while staging or building" if phases[0] == "stage" else None
            return _finish(task, LocalStage(stage), "\n".join(logs), started, build_error=error, timed_out=True,
                           canary=canary)
        text = out[-MAX_LOG:].decode(errors="replace")
        logs.append(text)
        if phases[0] == "stage" and (error := _build_error(proc.returncode, text)) is not None:
            return _finish(task, LocalStage(stage), "\n".join(logs), started, build_error=error)
    return _finish(task, LocalStage(stage), "\n".join(logs), started, canary=canary)
