"""Podman access: this machine's or a remote connection's, runtime detection, hardening flags, labels, cleanup.

Every container (and volume) the runner starts carries the label `bananabench.agent=1` plus the owner
(the model's lock key), the runner's host and pid, so a new run can remove what a crashed run of the
same model left without touching anyone else's. A remote connection (`podman system connection add`)
is reached with `podman --connection NAME`: the flags are the same, except that the OCI runtime is the
remote host's choice (podman remote cannot pick one per container).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import resource
import shutil
import socket
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
LABEL_CLIENT = "bananabench.client"
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
    connection: str | None = None  # a `podman system connection` name: containers run on that host

    @property
    def remote(self) -> bool:
        return self.connection is not None

    @property
    def host(self) -> str:
        return self.connection or "local"

    def cmd(self, *args: str) -> list[str]:
        return [self.exe, *(["--connection", self.connection] if self.connection else []), *args]

    def run_flags(self) -> list[str]:
        """Flags for `podman run` that make containers start on this host."""
        flags = ["--runtime", self.runtime] if self.runtime and not self.remote else []
        flags += ["--ulimit", f"nofile={self.nofile}:{self.nofile}", "--ulimit", f"nproc={self.nproc}:{self.nproc}"]
        return flags

    def user_flags(self) -> list[str]:
        """Run as the unprivileged agent user; rootless podman maps it onto the caller.

        On a remote host nothing is bind-mounted from a host folder (volumes are created for uid 1000),
        so uid 1000 is right whether that podman is rootful or rootless."""
        if self.rootless and not self.remote:
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


def connect(name: str) -> Podman:
    """A remote connection's podman, checked reachable (BadInput naming it when it is not)."""
    local = require()
    proc = run(Podman(local.exe, None, "", False, local.nofile, local.nproc, connection=name), "info", "--format",
               "json", check=False, timeout=120)
    if proc.returncode != 0:
        raise BadInput(f"podman connection {name!r} does not answer (`podman --connection {name} info`): "
                       f"{proc.stderr.decode(errors='replace').strip()[-300:]}; see `podman system connection list`")
    host = json.loads(proc.stdout).get("host") or {}
    runtime = (host.get("ociRuntime") or {}).get("name", "unknown")
    return Podman(exe=local.exe, runtime=None,
                  runtime_reason=f"{name}'s default ({runtime}, cgroups {host.get('cgroupVersion', '?')})",
                  rootless=bool((host.get("security") or {}).get("rootless")), nofile=local.nofile,
                  nproc=local.nproc, connection=name)


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
            "--label", f"{LABEL_ROLE}={role}", "--label", f"{LABEL_CLIENT}={socket.gethostname()}"]


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


def _stale(labels: dict[str, str]) -> bool:
    """Left by a runner of this machine that is gone (another machine's runner may still be alive)."""
    if labels.get(LABEL_CLIENT, socket.gethostname()) != socket.gethostname():
        return False
    pid = labels.get(LABEL_PID, "")
    return not (pid.isdigit() and int(pid) != os.getpid() and _pid_alive(int(pid)))


def _listed(podman: Podman, *command_and_owner: str) -> list[dict]:
    *command, owner = command_and_owner
    proc = run(podman, *command, "--filter", f"label={LABEL_OWNER}={owner}", "--format", "json", check=False,
               timeout=60)
    return (json.loads(proc.stdout or b"[]") or []) if proc.returncode == 0 else []


def remove_stale(podman: Podman, owner: str) -> list[str]:
    """Remove containers, then volumes, of `owner` whose runner process is gone (left by a crashed run)."""
    removed = []
    for info in _listed(podman, "ps", "--all", owner):
        if _stale(info.get("Labels") or {}):
            name = (info.get("Names") or [info.get("Id")])[0]
            kill(podman, name)
            removed.append(name)
    for info in _listed(podman, "volume", "ls", owner):
        if _stale(info.get("Labels") or {}):
            run(podman, "volume", "rm", "--force", info["Name"], check=False, timeout=60)
            removed.append(info["Name"])
    if removed:
        log.warning("removed %d stale container(s) and volume(s) of a crashed run on %s: %s", len(removed),
                    podman.host, ", ".join(removed))
    return removed


def require() -> Podman:
    """`detect()`, but a missing podman is a usage error (exit 2): the user must install it or use --native."""
    try:
        return detect()
    except EvaluationFailure as exc:
        raise BadInput(str(exc)) from None
