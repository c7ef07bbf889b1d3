"""Where attempts run: this machine's podman and remote podman connections, each with its own slots.

`agent run --podman-connection NAME[=N][,NAME...]` names connections made with `podman system
connection add` (`local` is this machine); each runs up to N attempts at once (default `--parallel`,
else the server's slots shared out). At start every host is checked with the sandbox's own flags (uid,
capabilities, no-new-privileges, read-only root, no network, memory and process limits, a size-limited
workspace, Pi): a host that does not give the same guarantees is refused before any attempt runs.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shlex
import shutil
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.agent.corpus.datasets import Task
from evaluators.agent.grading.verification import LocalStage
from evaluators.agent.sandbox import podman as pm
from evaluators.agent.sandbox import remote, volumes
from evaluators.agent.sandbox.containers import RemoteDir, Sandbox, chown_tree
from evaluators.core.errors import BadInput, EvaluationFailure

log = logging.getLogger("bananabench")

LOCAL = "local"
STAGE_FACTOR = 2          # the verification stage may grow to twice the workspace limit (build outputs)
CHECK_MB = 16             # the size-limited volume the start check writes to
UNITS = {"b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}

PROBE = r'''
import json, os, subprocess
out = {"uid": os.getuid(), "gid": os.getgid(), "page_size": os.sysconf("SC_PAGE_SIZE")}
status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
out["cap_eff"] = status["CapEff"].strip()
out["no_new_privs"] = status.get("NoNewPrivs", "").strip()
out["interfaces"] = sorted(os.listdir("/sys/class/net"))
try:
    open("/bananabench-check", "w").close()
    out["root_writable"] = True
except OSError:
    out["root_writable"] = False
def first(*paths):
    for path in paths:
        try:
            return open(path).read().strip()
        except OSError:
            pass
out["memory"] = first("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
out["pids"] = first("/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/pids/pids.max")
st = os.statvfs("/workspace")
out["workspace_bytes"] = st.f_blocks * st.f_frsize
try:
    open("/workspace/check", "w").write("x")
    out["workspace_writable"] = True
except OSError:
    out["workspace_writable"] = False
pi = subprocess.run(["node", PI_CLI, "--version"], capture_output=True, text=True, timeout=120)
out["pi"] = (pi.stdout + pi.stderr).strip().splitlines()[-1:] or [""]
out["python"] = subprocess.run(["python3", "-c", "import sys; print(sys.version_info >= (3, 11))"],
                               capture_output=True, text=True).stdout.strip()
out["tar"] = subprocess.run(["tar", "--version"], capture_output=True).returncode == 0
print("SANDBOX " + json.dumps(out), flush=True)
'''


def parse_connections(spec: str | None, parallel: int | None) -> list[tuple[str, int | None]]:
    """`NAME[=N],...` as (name, slots or None); BadInput naming what is wrong."""
    if not spec:
        return [(LOCAL, parallel)]
    hosts: list[tuple[str, int | None]] = []
    for part in (p.strip() for p in spec.split(",")):
        name, _, count = part.partition("=")
        if not name or (count and not count.isdigit()) or count == "0":
            raise BadInput(f"--podman-connection: {part!r} is not NAME or NAME=N (N attempts at once, N >= 1)")
        if name in (h[0] for h in hosts):
            raise BadInput(f"--podman-connection names {name} twice")
        hosts.append((name, int(count) if count else parallel))
    return hosts


def share(hosts: list[tuple[str, int | None]], total: int) -> list[int]:
    """Slots per host: each host's own count, else `total` shared out (at least one each)."""
    unset = [i for i, (_, n) in enumerate(hosts) if n is None]
    out = [n or 0 for _, n in hosts]
    for k, i in enumerate(unset):
        out[i] = max(1, total // len(unset) + (k < total % len(unset)))
    return out


@dataclass
class LocalSpace:
    """An attempt's file systems on this machine: loop-mounted size-limited images under the attempt folder."""

    sandbox: Sandbox
    task: Task
    start: Path
    attempt_dir: Path
    workspace_mb: int

    def __post_init__(self) -> None:
        owner = self.sandbox.podman.owner_ids()
        self.disk = volumes.create(self.attempt_dir / ".workspace", self.workspace_mb, owner)
        try:
            shutil.copytree(self.start, self.disk.path, symlinks=True, dirs_exist_ok=True)
            chown_tree(self.disk.path, *owner)
        except BaseException:
            self.disk.close()
            raise
        self.workspace = self.disk.path
        self.hidden = self.task.verify_dir if self.task.verify_dir.is_dir() else None

    def full(self) -> bool:
        return self.disk.full()

    def model(self, proxy_socket: Path, config_dir: Path) -> tuple[Path, Path, str]:
        return proxy_socket.parent, config_dir, "/opt/pi-config"

    @contextlib.contextmanager
    def stage(self) -> Iterator[LocalStage]:
        stage = volumes.create(self.attempt_dir / ".stage", self.workspace_mb * STAGE_FACTOR,
                               self.sandbox.podman.owner_ids())
        try:
            yield LocalStage(stage.path)
        finally:
            stage.close()

    @contextlib.contextmanager
    def output(self, dest: Path, *, cap_bytes: int) -> Iterator[Path]:
        yield dest

    def keep_plain(self, target: Path) -> bool:
        """Without a size limit the workspace is a plain folder: moved, not copied."""
        if self.disk.image is not None:
            return False
        self.disk.path.rename(target)
        return True

    def close(self) -> None:
        self.disk.close()


@dataclass
class Host:
    """One podman host: its sandbox, its slots, and (remote) the per-task volumes of this run."""

    sandbox: Sandbox
    slots: int
    page_size: int = 4096
    _playwright_copied: bool = False
    _volumes: dict[tuple[str, str], RemoteDir] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def name(self) -> str:
        return self.sandbox.podman.host

    @property
    def remote(self) -> bool:
        return self.sandbox.podman.remote

    def space(self, task: Task, start: Path, attempt_dir: Path, workspace_mb: int) -> LocalSpace | remote.RemoteSpace:
        """A fresh workspace holding the start state, on this host."""
        if not self.remote:
            return LocalSpace(self.sandbox, task, start, attempt_dir, workspace_mb)
        if task.screenshot is not None and self.sandbox.image.kind == "offline":
            with self._lock:  # Playwright goes over the first time a task needs it
                if not self._playwright_copied:
                    self.sandbox.files = remote.image_files(self.sandbox, screenshots=True)
                    self._playwright_copied = True
        hidden = self._copy(task, "verify", task.verify_dir) if task.verify_dir.is_dir() else None
        return remote.RemoteSpace(self.sandbox, start=self._copy(task, "start", start), hidden=hidden,
                                  workspace_mb=workspace_mb, stage_mb=workspace_mb * STAGE_FACTOR,
                                  page_size=self.page_size)

    def _copy(self, task: Task, role: str, folder: Path) -> RemoteDir:
        """A read-only copy of a task's folder on this host, made once per run."""
        with self._lock:
            key = (task.id, str(folder))
            if key not in self._volumes:
                volume = remote.create_volume(self.sandbox.podman, self.sandbox.owner, role)
                try:
                    remote.fill(self.sandbox, volume, folder)
                except BaseException:
                    remote.remove_volume(self.sandbox.podman, volume)
                    raise
                self._volumes[key] = volume
            return self._volumes[key]

    def close(self) -> None:
        for volume in self._volumes.values():
            remote.remove_volume(self.sandbox.podman, volume)
        self._volumes.clear()


def open_host(name: str, slots: int, *, image_name: str | None, owner: str, resources: Any,
              workspace_mb: int) -> Host:
    """Connect, find (or build) the image there, copy what it needs, check the sandbox; a Host ready for attempts."""
    from evaluators.agent.sandbox import image
    podman = pm.detect() if name == LOCAL else pm.connect(name)
    img = image.resolve(podman, image_name)
    sandbox = Sandbox(podman, img, owner=owner, resources=resources)
    if podman.remote:
        sandbox.files = remote.image_files(sandbox)
    pm.remove_stale(podman, owner)
    host = Host(sandbox, slots)
    host.page_size = check(host, workspace_mb)
    log.info("podman host %s: runtime %s (%s), image %s (%s, Pi %s, %s), %d attempt(s) at once", host.name,
             podman.runtime or "default", podman.runtime_reason, img.name, img.kind, img.pi_version,
             "bundled" if img.pi_bundled else "its own cli.js", slots)
    return host


def _bytes(size: str) -> int:
    size = size.strip().lower()
    return int(float(size[:-1]) * UNITS[size[-1]]) if size[-1:] in UNITS else int(size)


def check(host: Host, workspace_mb: int) -> int:
    """Run the probe with the agent's own flags on `host`; EvaluationFailure naming every broken guarantee.
    Returns the host's page size (tmpfs sizes are given in pages)."""
    sandbox = host.sandbox
    limit = CHECK_MB << 20 if workspace_mb else None
    script = f"exec python3 -I -c {shlex.quote(PROBE.replace('PI_CLI', repr(sandbox.image.pi_entry)))}"
    with _check_volume(host, bool(workspace_mb)) as workspace:
        shot = sandbox.oneshot("check", sandbox.bind(workspace, "/workspace", "rw"), script, timeout_s=300)
    report = remote.check_report(shot.text)
    if not report:
        raise EvaluationFailure(f"podman host {host.name}: the sandbox check did not run ({shot.rc}): "
                                f"{shot.text.strip()[-400:]}")
    res = sandbox.resources
    wanted = {
        "runs as the agent user (uid 1000)": report["uid"] == pm.AGENT_UID or sandbox.podman.rootless
        and not sandbox.podman.remote,
        "no capabilities": report["cap_eff"] == "0000000000000000",
        "no-new-privileges": report["no_new_privs"] == "1",
        "read-only root file system": not report["root_writable"],
        "no network (only lo)": report["interfaces"] == ["lo"],
        f"memory limit {res.memory}": report["memory"] == str(_bytes(res.memory)),
        f"process limit {res.pids}": report["pids"] == str(res.pids),
        "a writable workspace": report["workspace_writable"],
        "python3 >= 3.11 and tar": report["python"] == "True" and report["tar"],
        f"Pi {sandbox.image.pi_version}": sandbox.image.pi_version in " ".join(report["pi"]),
    }
    if limit is not None:
        wanted["a size-limited workspace"] = 0 < report["workspace_bytes"] <= limit * report["page_size"] // 4096
    broken = [what for what, ok in wanted.items() if not ok]
    if broken:
        raise EvaluationFailure(f"podman host {host.name} does not give the sandbox's guarantees: "
                                f"{'; '.join(broken)} (probe: {json.dumps(report)})")
    return int(report["page_size"])


@contextlib.contextmanager
def _check_volume(host: Host, limited: bool) -> Iterator[Path | RemoteDir]:
    sandbox = host.sandbox
    if host.remote:
        volume = remote.create_volume(sandbox.podman, sandbox.owner, "check", size_mb=CHECK_MB if limited else None)
        try:
            yield volume
        finally:
            remote.remove_volume(sandbox.podman, volume)
        return
    with tempfile.TemporaryDirectory(prefix="bb-check-") as tmp:
        disk = volumes.create(Path(tmp) / "workspace", CHECK_MB if limited else 0, sandbox.podman.owner_ids())
        try:
            yield disk.path
        finally:
            disk.close()
