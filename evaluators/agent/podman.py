"""Podman access: runtime detection, the hardening flags every container gets, labels, cleanup.

Every container the runner starts carries the label `bananabench.agent=1` plus the owner (the
model's lock key) and the runner's pid, so a new run can remove containers left by a crashed
run of the same model without touching anyone else's.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import resource
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from evaluators.core.errors import BadInput, EvaluationFailure

log = logging.getLogger("bananabench")

LABEL = "bananabench.agent"
LABEL_OWNER = "bananabench.owner"
LABEL_PID = "bananabench.pid"
LABEL_ROLE = "bananabench.role"
ENV_RUNTIME = "BANANABENCH_PODMAN_RUNTIME"
AGENT_UID = 1000
PODMAN_FAILURE_CODES = (125, 126, 127)   # `podman run` itself failed, not the command in the container


@dataclass(frozen=True)
class Podman:
    """How to call podman on this machine."""

    exe: str
    runtime: str | None
    runtime_reason: str
    rootless: bool
    nofile: int
    nproc: int

    def cmd(self, *args: str) -> list[str]:
        return [self.exe, *args]

    def run_flags(self) -> list[str]:
        """Flags for `podman run` that make containers start on this host."""
        flags = ["--runtime", self.runtime] if self.runtime else []
        flags += ["--ulimit", f"nofile={self.nofile}:{self.nofile}", "--ulimit", f"nproc={self.nproc}:{self.nproc}"]
        return flags

    def user_flags(self) -> list[str]:
        """Run as the unprivileged agent user; rootless podman maps it onto the caller."""
        if self.rootless:
            return ["--userns", "keep-id", "--user", f"{os.getuid()}:{os.getgid()}"]
        return ["--user", f"{AGENT_UID}:{AGENT_UID}"]

    def owner_ids(self) -> tuple[int, int]:
        """Host uid/gid that a writable bind mount must belong to."""
        return (os.getuid(), os.getgid()) if self.rootless else (AGENT_UID, AGENT_UID)


def _cgroup_v1() -> bool:
    return not Path("/sys/fs/cgroup/cgroup.controllers").exists()


@cache
def detect() -> Podman:
    """Find podman and pick an OCI runtime that works here (crun fails on cgroup v1 hosts: use runc)."""
    exe = shutil.which("podman")
    if exe is None:
        raise EvaluationFailure("podman not found: install it (make system-deps, or apt-get install podman runc), "
                                "or use `agent validate --native` for trusted tasks")
    runtime = os.environ.get(ENV_RUNTIME) or None
    reason = f"${ENV_RUNTIME}" if runtime else "podman's default"
    if runtime is None and _cgroup_v1() and shutil.which("runc"):
        runtime, reason = "runc", "cgroup v1 host: crun cannot apply limits there, runc can"
    soft_n, hard_n = resource.getrlimit(resource.RLIMIT_NOFILE)
    soft_p, hard_p = resource.getrlimit(resource.RLIMIT_NPROC)
    # podman's default ulimits can exceed this host's hard limits, which fails every start: be explicit.
    nofile = _cap(hard_n, 4096)
    nproc = _cap(hard_p, 8192)
    return Podman(exe=exe, runtime=runtime, runtime_reason=reason, rootless=os.geteuid() != 0,
                  nofile=nofile, nproc=nproc)


def _cap(hard: int, wanted: int) -> int:
    return wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)


@cache
def scratch_cwd() -> str:
    """A private working directory for podman processes: conmon drops an `oom` marker file into the
    caller's current directory when a container runs out of memory, which must not litter a checkout."""
    path = tempfile.mkdtemp(prefix="bananabench-podman-")
    atexit.register(shutil.rmtree, path, True)
    return path


def run(podman: Podman, *args: str, timeout: float | None = 120, check: bool = True,
        input: bytes | None = None) -> subprocess.CompletedProcess:
    """Run a podman command, returning bytes output; a failure is an infrastructure error."""
    try:
        proc = subprocess.run(podman.cmd(*args), capture_output=True, timeout=timeout, input=input,
                              cwd=scratch_cwd())
    except subprocess.TimeoutExpired as exc:
        raise EvaluationFailure(f"podman {args[0]} timed out after {timeout} s") from exc
    if check and proc.returncode != 0:
        raise EvaluationFailure(f"podman {' '.join(args[:2])} failed ({proc.returncode}): "
                                f"{proc.stderr.decode(errors='replace').strip()[-500:]}")
    return proc


def image_labels(podman: Podman, image: str) -> dict[str, str] | None:
    """The labels of a local image, or None when it does not exist."""
    proc = run(podman, "image", "inspect", "--format", "{{json .Labels}}", image, check=False, timeout=60)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout or b"null") or {}


def labels(owner: str, role: str) -> list[str]:
    return ["--label", f"{LABEL}=1", "--label", f"{LABEL_OWNER}={owner}", "--label", f"{LABEL_PID}={os.getpid()}",
            "--label", f"{LABEL_ROLE}={role}"]


def kill(podman: Podman, name: str) -> None:
    """Stop a container now and remove it (no error if it is already gone)."""
    run(podman, "kill", "--signal", "KILL", name, check=False, timeout=60)
    run(podman, "rm", "--force", "--time", "0", name, check=False, timeout=60)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(podman: Podman, owner: str) -> list[str]:
    """Remove containers of `owner` whose runner process is gone (left by a crashed run)."""
    proc = run(podman, "ps", "--all", "--filter", f"label={LABEL_OWNER}={owner}", "--format", "json",
               check=False, timeout=60)
    if proc.returncode != 0:
        return []
    removed = []
    for info in json.loads(proc.stdout or b"[]") or []:
        pid = (info.get("Labels") or {}).get(LABEL_PID, "")
        if pid.isdigit() and int(pid) != os.getpid() and _pid_alive(int(pid)):
            continue
        name = (info.get("Names") or [info.get("Id")])[0]
        kill(podman, name)
        removed.append(name)
    if removed:
        log.warning("removed %d stale container(s) of a crashed run: %s", len(removed), ", ".join(removed))
    return removed


def require() -> Podman:
    """`detect()`, but a missing podman is a usage error (exit 2): the user must install it or use --native."""
    try:
        return detect()
    except EvaluationFailure as exc:
        raise BadInput(str(exc)) from None
