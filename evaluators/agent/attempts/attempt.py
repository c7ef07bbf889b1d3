"""One attempt: Pi in the agent container, watched by the monitor; then diff, verification, screenshots.

Artifacts land in `<run dir>/<task id>/attempt-N/`: events.jsonl (without partial updates),
pi-stderr.log, changes.diff, final_message.md, verify.log, verify.json (every expected test's
outcome from the runner's record), screenshot.png (+ screenshot-mobile.png), and workspace/ when
kept (manual tasks always keep theirs: humans judge the app). The workspace lives on its own
size-limited file system during the attempt, on this machine (`hosts.LocalSpace`, `volumes`) or on a
remote podman host (`remote.RemoteSpace`); the attempt reaches it only through its space.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.agent.attempts import events as events_mod
from evaluators.agent.attempts.monitor import StuckMonitor
from evaluators.agent.corpus.datasets import Task
from evaluators.agent.grading import tamper, testproof, verification
from evaluators.agent.sandbox import pi as pi_mod
from evaluators.agent.sandbox import podman as pm
from evaluators.agent.sandbox import volumes
from evaluators.agent.sandbox.containers import MAX_DIFF, Sandbox, Source, valid_png
from evaluators.agent.sandbox.hosts import STAGE_FACTOR, Host, LocalSpace
from evaluators.agent.sandbox.limits import Limits
from evaluators.agent.sandbox.proxy import ModelProxy
from evaluators.agent.sandbox.remote import RemoteSpace
from evaluators.core.contract import HELD, AttemptKey
from evaluators.models.backends.replicas import ReplicaSet

log = logging.getLogger("bananabench")

MAX_LISTED_PATHS = 200    # changed paths in the attempt record (run.MAX_LIST); changed-paths.txt has them all
SETTLE_S = 0.5           # quiet time after agent_end before asking Pi whether it is idle
EXIT_GRACE_S = 5.0
_OVERFLOW = re.compile(r"context size|context length|context window|too many tokens|prompt is too long", re.I)


@dataclass
class Upstream:
    """The model's servers (one set shared by every attempt, so replicas are balanced across them)."""

    replicas: ReplicaSet
    model_id: str


@dataclass
class AttemptResult:
    status: str
    score: float | None
    correct: bool | None
    wall_s: float
    stuck_reason: str | None = None
    error: str | None = None
    metrics: dict[str, float | None] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


class Cancelled(Exception):
    """The run is stopping (SIGINT/SIGTERM): the attempt is discarded."""


Space = LocalSpace | RemoteSpace


def run_attempt(host: Host, task: Task, start_dir: Path, attempt_dir: Path, *, upstream: Upstream,
                pi_options: pi_mod.PiOptions, limits: Limits, keep_workspace: bool,
                cancel: threading.Event) -> AttemptResult:
    """Run one attempt end to end; infrastructure failures become status `error`, never exceptions.

    Raises EvaluationFailure (an `error` attempt) when this machine's disk cannot hold the attempt's
    file systems at their full size.
    """
    attempt_dir.parent.mkdir(parents=True, exist_ok=True)
    need = 0 if host.remote else (limits.workspace_mb * (1 + STAGE_FACTOR)) << 20
    volumes.reserve(attempt_dir.parent, need)
    try:
        return _attempt(host, task, start_dir, attempt_dir, upstream=upstream, pi_options=pi_options,
                        limits=limits, keep_workspace=keep_workspace, cancel=cancel)
    finally:
        volumes.release(need)


def _attempt(host: Host, task: Task, start_dir: Path, attempt_dir: Path, *, upstream: Upstream,
             pi_options: pi_mod.PiOptions, limits: Limits, keep_workspace: bool,
             cancel: threading.Event) -> AttemptResult:
    started = time.monotonic()
    if attempt_dir.exists():
        volumes.unmount_below(attempt_dir)
        shutil.rmtree(attempt_dir)
    attempt_dir.mkdir(parents=True)
    space = host.space(task, start_dir, attempt_dir, limits.workspace_mb)
    try:
        return _work(host.sandbox, task, space, attempt_dir, started, upstream=upstream, pi_options=pi_options,
                     limits=limits, keep_workspace=keep_workspace, cancel=cancel)
    finally:
        space.close()


def _work(sandbox: Sandbox, task: Task, space: Space, attempt_dir: Path, started: float, *,
          upstream: Upstream, pi_options: pi_mod.PiOptions, limits: Limits, keep_workspace: bool,
          cancel: threading.Event) -> AttemptResult:
    workspace = space.workspace
    timings: dict[str, float | None] = {}
    with tempfile.TemporaryDirectory(prefix="bb-sock-") as tmp:
        tmp_path = Path(tmp)
        socket_dir, config_dir = tmp_path / "sock", tmp_path / "config"
        pi_mod.write_config(config_dir, pi_options)
        config_dir.chmod(0o755)
        for path in config_dir.iterdir():
            path.chmod(0o644)
        proxy = ModelProxy(socket_dir, upstream.replicas, upstream.model_id, max_chunks=limits.max_chunks)
        with proxy:
            agent = _drive(sandbox, task, space, attempt_dir, proxy, config_dir, limits, cancel, timings)
        traffic = proxy.traffic.summary()
    agent_s = time.monotonic() - started
    summary = events_mod.summarize(events_mod.read_events(attempt_dir / "events.jsonl"), pi_options.context_window)
    if summary["final_message"]:
        (attempt_dir / "final_message.md").write_text(summary["final_message"] + "\n", encoding="utf-8")
    status, stuck_reason, error = agent["status"], agent.get("stuck_reason"), agent.get("error")
    if status == "verify" and space.full():        # filled after the monitor's last look
        verdict = StuckMonitor(limits).check(workspace_full=True)
        assert verdict is not None
        status, stuck_reason, agent["detail"] = verdict.status, verdict.reason, verdict.detail
    extra: dict[str, Any] = {"stop_reason": summary["stop_reason"], "tool_calls_by_name": summary["tool_calls_by_name"],
                             "denied_requests": traffic["denied"],
                             "denied_not_listed": traffic["denied_not_listed"], "monitor_detail": agent.get("detail")}
    if status == "failed":
        extra[AttemptKey.REASON] = agent.get("detail")
    # The diff is useful for every outcome (what did a stuck agent do?).
    t0 = time.monotonic()
    diff_problem = _write_diff(sandbox, task, space.start, workspace, attempt_dir, extra)
    timings["diff_s"] = time.monotonic() - t0
    if diff_problem is not None and diff_problem.startswith("infrastructure:"):
        status, error = "error", diff_problem
    score: float | None = 0.0
    correct: bool | None = False
    verify_s = None
    if status == "verify":
        t0 = time.monotonic()
        verdict = _verify(sandbox, task, space, attempt_dir)
        verify_s = time.monotonic() - t0
        extra[AttemptKey.VERDICT] = verdict.summary()
        if (counts := testproof.target_tests(task.verify, verdict.tests)) is not None:
            extra[AttemptKey.TARGET_TESTS] = counts
        if task.manual:
            status, score, correct = "manual", None, None
            extra["smoke_passed"] = verdict.passed
        else:
            status, score, correct = ("passed" if verdict.passed else "failed"), verdict.score, verdict.passed
            if not verdict.passed:
                extra[AttemptKey.REASON] = verdict.reason
        if diff_problem is not None and status == "passed":
            status, score, correct = "failed", 0.0, False
            extra[AttemptKey.REASON] = f"the attempt's diff could not be produced: {diff_problem}"
        if extra.get(AttemptKey.TAMPER_FLAGS) and (correct or (score or 0.0) > 0):
            extra[AttemptKey.HELD] = {"status": status, "score": score}
            earlier = f" ({extra[AttemptKey.REASON]})" if extra.get(AttemptKey.REASON) else ""
            extra[AttemptKey.REASON] = (
                f"held for review: the tests passed{'' if correct else ' in part'}, but the change trips "
                f"{extra[AttemptKey.N_TAMPER_FLAGS]} tamper check(s); `bananabench agent review` decides{earlier}")
            status, score, correct = HELD, 0.0, False
    elif status == "error":
        score, correct = None, None
    if task.screenshot is not None and status != "error":
        extra[AttemptKey.SCREENSHOTS], extra["page_report"] = _screenshots(sandbox, task, space, attempt_dir)
    if task.manual or keep_workspace:
        extra[AttemptKey.WORKSPACE] = "workspace"
        _keep(sandbox, space, attempt_dir / "workspace", extra, limits.workspace_mb)
    metrics: dict[str, float | None] = {k: summary[k] for k in events_mod.EVENT_METRICS}
    metrics.update({k: traffic[k] for k in ("llm_requests", "llm_prompt_tokens", "llm_cached_tokens",
                                             "llm_completion_tokens", "prefill_tps", "decode_tps", "ttft_s")})
    metrics["verify_s"] = verify_s
    metrics["largest_context"] = max(traffic["llm_largest_prompt"] or 0, summary["context_peak"] or 0) or None
    metrics["agent_s"] = agent_s
    metrics.update({k: v for k, v in timings.items() if v is not None})
    return AttemptResult(status=status, score=score, correct=correct, wall_s=time.monotonic() - started,
                         stuck_reason=stuck_reason, error=error, metrics=metrics, extra=extra)


def _write_diff(sandbox: Sandbox, task: Task, start_dir: Source, workspace: Source, attempt_dir: Path,
                extra: dict[str, Any]) -> str | None:
    """changes.diff (cut for display at MAX_DIFF), changed-paths.txt and the tamper flags read over the whole
    diff; the problem, if the diff could not be produced."""
    scanner = tamper.Scanner(task.verify.restore_globs(), task.verify.runner)
    shown = 0
    total = 0
    with open(attempt_dir / "changes.diff", "wb") as out:
        def sink(chunk: bytes) -> None:
            nonlocal shown, total
            scanner.feed(chunk)
            total += len(chunk)
            if shown < MAX_DIFF:
                out.write(chunk[:MAX_DIFF - shown])
                shown = min(MAX_DIFF, shown + len(chunk))

        diff = sandbox.diff(start_dir, workspace, sink)
        if total > shown:
            out.write(f"\n[... diff cut for display after {shown} of {total} bytes; every path is in "
                      f"changed-paths.txt ...]\n".encode())
    if diff.timed_out or diff.rc != 0:
        (attempt_dir / "changes.diff").unlink()        # a partial diff would pass for the whole change
        if not diff.timed_out and diff.rc in pm.PODMAN_FAILURE_CODES:
            return f"infrastructure: the diff container did not run (exit {diff.rc}): {diff.text.strip()[-300:]}"
        problem = ("timed out" if diff.timed_out else f"exit status {diff.rc}") + f": {diff.text.strip()[-300:]}"
        extra[AttemptKey.ARTIFACT_ERRORS] = [f"changes.diff: {problem}"]
        return problem
    if total > shown:
        scanner.flag(f"the diff was cut for display after {shown} of {total} bytes (read in full for these flags)")
    findings = scanner.finish()
    lines = [f"{p.change}{' binary' if p.binary else ''}\t{json.dumps(p.path)}" for p in findings.paths]
    (attempt_dir / "changed-paths.txt").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    extra[AttemptKey.TAMPER_FLAGS] = findings.flags
    extra[AttemptKey.N_TAMPER_FLAGS] = findings.n_flags
    extra[AttemptKey.TAMPER_NOTES] = findings.notes
    extra[AttemptKey.CHANGED_PATHS] = [{"path": p.path, "change": p.change, "binary": p.binary}
                                       for p in findings.paths[:MAX_LISTED_PATHS]]
    extra[AttemptKey.N_CHANGED_PATHS] = len(findings.paths)
    return None


def _verify(sandbox: Sandbox, task: Task, space: Space, attempt_dir: Path):
    """The verification in its own size-limited stage; verify.log and verify.json land in the attempt."""
    with space.stage() as stage:
        run = verification.verify_in_podman(sandbox, task, space.workspace, space.start, stage,
                                            hidden=space.hidden)
    (attempt_dir / "verify.log").write_text(run.log, encoding="utf-8")
    (attempt_dir / "verify.json").write_text(json.dumps(run.verdict.details(), indent=2) + "\n", encoding="utf-8")
    return run.verdict


def _keep(sandbox: Sandbox, space: Space, target: Path, extra: dict[str, Any], workspace_mb: int) -> None:
    """The final workspace outlives its mount: copied out in a container, or moved when it is a plain folder;
    either way without its links (nothing that reads a kept workspace later, the publisher included, may be led
    out of it)."""
    if isinstance(space, LocalSpace) and space.keep_plain(target):
        _drop_links(target, extra)
        return
    with space.output(target, cap_bytes=(workspace_mb or 2048) << 20) as out:
        copied = sandbox.keep(space.workspace, out)
    left_out = [line[len("left out: "):] for line in copied.text.splitlines() if line.startswith("left out: ")]
    if left_out:
        extra["workspace_left_out"] = left_out[:50]
    if copied.rc != 0:
        extra.setdefault("artifact_errors", []).append(f"workspace: copy failed (exit {copied.rc})")
    if isinstance(target, Path):
        _drop_links(target, extra)


def _drop_links(folder: Path, extra: dict[str, Any]) -> None:
    dropped = []
    for current, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(current, name)
            if os.path.islink(path):
                os.unlink(path)
                dropped.append(os.path.relpath(path, folder))
    if dropped:
        extra["workspace_links_dropped"] = dropped[:50]


def _screenshots(sandbox: Sandbox, task: Task, space: Space, attempt_dir: Path) -> tuple[dict, dict]:
    spec = task.screenshot
    assert spec is not None
    out = attempt_dir / ".shots"
    with space.output(out, cap_bytes=64 << 20) as target:
        shot, report = sandbox.screenshot(space.workspace, target, page=spec.path, build=spec.build,
                                          width=spec.width, height=spec.height, mobile_width=spec.mobile_width)
    files: dict[str, str] = {}
    for view, name in (("desktop", "screenshot.png"), ("mobile", "screenshot-mobile.png")):
        produced = out / name
        if valid_png(produced):
            shutil.move(str(produced), attempt_dir / name)
            files[view] = name
    shutil.rmtree(out, ignore_errors=True)
    if not files:
        report = {**report, "log": shot.text[-2000:]}
    return files, report


def _drive(sandbox: Sandbox, task: Task, space: Space, attempt_dir: Path, proxy: ModelProxy, config_dir: Path,
           limits: Limits, cancel: threading.Event, timings: dict[str, float | None]) -> dict[str, Any]:
    """Run Pi until it is idle after its last agent_end, the monitor stops it, or it dies."""
    name = sandbox.name("agent")
    socket_dir, config_mount, config_path = space.model(proxy.socket_path, config_dir)
    command = pi_mod.container_argv(config_path, "/run/model/model.sock", sandbox.image.pi_entry)
    argv = sandbox.agent_argv(name, workspace=space.workspace, socket_dir=socket_dir, config_dir=config_mount,
                              command=command)
    monitor = StuckMonitor(limits)
    launched = time.monotonic()
    sandbox.track(name)
    pi = pi_mod.PiProcess(argv, attempt_dir / "events.jsonl", attempt_dir / "pi-stderr.log", cwd=pm.scratch_cwd())
    try:
        pi.send({"type": "prompt", "message": task.prompt})
        state_request: str | None = None
        saw_end = False
        last_event = time.monotonic()
        while True:
            if cancel.is_set():
                raise Cancelled()
            try:
                event = pi.queue.get(timeout=0.25)
            except queue.Empty:
                event = {"type": "_tick"}
            if event is None:
                code = pi.wait(EXIT_GRACE_S)
                if cancel.is_set():
                    raise Cancelled()
                if saw_end:
                    return {"status": "verify"} | _final_error(attempt_dir)
                return {"status": "error", "error": f"Pi exited (code {code}) before finishing: "
                        + _tail(attempt_dir / "pi-stderr.log")}
            kind = event["type"]
            if kind != "_tick":
                last_event = time.monotonic()
                monitor.last_event = monitor.clock()
            if kind not in ("_tick", "_activity", "response"):
                monitor.observe(event)
            if kind == "response":
                if event.get("command") == "prompt" and "pi_ready_s" not in timings:
                    timings["pi_ready_s"] = time.monotonic() - launched
                    if not event.get("success", True):
                        return {"status": "error", "error": f"Pi refused the prompt: {event.get('error')}"}
                if state_request and event.get("id") == state_request:
                    state_request = None
                    data = event.get("data") or {}
                    if not data.get("isStreaming") and not data.get("isCompacting"):
                        return {"status": "verify"} | _final_error(attempt_dir)
            if kind == "agent_end":
                saw_end = True
            elif kind == "agent_start":
                saw_end = False
            # Pi may compact or retry after agent_end: finish only once it has been quiet and says it is idle.
            if saw_end and state_request is None and time.monotonic() - last_event >= SETTLE_S:
                state_request = pi.send({"type": "get_state"})
            verdict = monitor.verdict or monitor.check(last_traffic=max(proxy.traffic.last_activity, pi.last_output),
                                                       runaway=proxy.traffic.runaway, workspace_full=space.full())
            if verdict is not None:
                _kill(sandbox, name)
                return {"status": verdict.status, "stuck_reason": verdict.reason, "detail": verdict.detail}
    except Cancelled:
        _kill(sandbox, name)
        raise
    finally:
        pi.close_stdin()
        if pi.wait(EXIT_GRACE_S) is None:
            _kill(sandbox, name)
        pi.finish()
        sandbox.untrack(name)
        timings["container_s"] = time.monotonic() - launched


def _final_error(attempt_dir: Path) -> dict[str, Any]:
    """After a finished agent: an LLM failure that is not a context overflow is an infrastructure error."""
    summary = events_mod.summarize(events_mod.read_events(attempt_dir / "events.jsonl"), None)
    if summary["stop_reason"] in ("error", "aborted"):
        message = summary["error_message"] or "the model call failed"
        if not _OVERFLOW.search(message):
            return {"status": "error", "error": f"model server error: {message}"[:1000]}
    return {}


def _kill(sandbox: Sandbox, name: str) -> None:
    pm.kill(sandbox.podman, name)


def _tail(path: Path, n: int = 600) -> str:
    try:
        return path.read_text(errors="replace").strip()[-n:] or "(no stderr)"
    except OSError:
        return "(no stderr)"
