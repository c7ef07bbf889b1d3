"""The containers of an attempt: the agent's, and fresh ones for the diff, verification and screenshots.

Host tools never process a directory the agent changed: the diff, the copy of the workspace for
verification (see `verification`), the copy of a kept workspace and the screenshots all happen inside
new containers without network, which get the agent's workspace read-only. The host only creates
empty output folders, reads the containers' stdout and the test records (without following links),
and moves a PNG it checked.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.agent.sandbox import podman as pm
from evaluators.agent.sandbox.image import Image
from evaluators.core.errors import EvaluationFailure

MAX_LOG = 1 << 20
MAX_DIFF = 4 << 20           # changes.diff as saved and shown; the tamper flags read all of it
TAIL = 4096
KEEP_FILE_CAP = 64 << 20     # a kept workspace leaves out bigger files (and special files)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CHROMIUM = "/usr/lib/chromium/chromium"


@dataclass
class Resources:
    """Per-container limits."""

    memory: str = "4g"
    pids: int = 512
    cpus: float = 2.0
    tmp_size: str = "1g"


@dataclass(frozen=True)
class RemoteDir:
    """A folder on a remote podman host: a named volume, or a folder inside one as that host sees it."""

    volume: str
    host_path: str | None = None

    def sub(self, mountpoint: str, name: str) -> RemoteDir:
        return RemoteDir(self.volume, f"{mountpoint.rstrip('/')}/{name}")


# What a container mounts: a folder of this machine (local podman only) or one on the remote host.
Source = Path | RemoteDir


@dataclass
class Sandbox:
    """Starts containers for one owner (the model's lock key) and can kill all of them at once.

    On a remote host `files` names the volumes holding what the image needs from this machine (the
    support scripts, and for the offline image Pi and Playwright); a folder of this machine never
    reaches that host's podman (`bind` refuses it)."""

    podman: pm.Podman
    image: Image
    owner: str
    resources: Resources = field(default_factory=Resources)
    files: dict[str, RemoteDir] | None = None
    _live: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def name(self, role: str) -> str:
        return f"bb-{role}-{os.getpid()}-{secrets.token_hex(4)}"

    def bind(self, source: Source, target: str, mode: str = "ro") -> list[str]:
        """The `-v` flag mounting `source` at `target`."""
        if isinstance(source, RemoteDir):
            return ["-v", f"{source.host_path or source.volume}:{target}:{mode}"]
        if self.podman.remote:
            raise EvaluationFailure(f"internal error: {source} is a folder of this machine, which podman host "
                                    f"{self.podman.host} cannot mount")
        return ["-v", f"{source.resolve()}:{target}:{mode}"]

    def base_args(self, name: str, role: str, *, interactive: bool = False, label_disable: bool = False,
                  screenshots: bool = False, files: bool = True) -> list[str]:
        r = self.resources
        args = ["run", "--rm", "--name", name, *self.podman.run_flags(), *pm.labels(self.owner, role),
                "--network", "none", "--cap-drop", "all", "--security-opt", "no-new-privileges",
                "--read-only", *self.podman.user_flags(), "--pids-limit", str(r.pids),
                "--memory", r.memory, "--memory-swap", r.memory, "--cpus", f"{r.cpus:g}", "--init",
                "--mount", "type=tmpfs,destination=/home/agent,tmpfs-size=512m,chown=true",
                "--mount", f"type=tmpfs,destination=/tmp,tmpfs-size={r.tmp_size},chown=true",
                "-e", "HOME=/home/agent", "-e", "LANG=C.UTF-8", "-e", "CI=1"]
        if interactive:
            args.append("-i")
        if label_disable:
            # The proxy is an unconfined host process; a confined container could not connect to its socket.
            args += ["--security-opt", "label=disable"]
        return args + self.image.mounts(screenshots=screenshots, files=files, remote=self.files)

    def track(self, name: str) -> None:
        with self._lock:
            self._live.add(name)

    def untrack(self, name: str) -> None:
        with self._lock:
            self._live.discard(name)

    def kill_all(self) -> None:
        with self._lock:
            names = list(self._live)
        for name in names:
            pm.kill(self.podman, name)

    def oneshot(self, role: str, mounts: list[str], script: str, *, timeout_s: float,
                env: dict[str, str] | None = None, screenshots: bool = False, shm: str | None = None,
                cap: int = MAX_LOG, keep_head: bool = False, files: bool = True, stdin: bytes | None = None,
                sink: Callable[[bytes], None] | None = None) -> OneShot:
        """Run `script` with sh in a fresh container; stdout+stderr merged, capped (its tail, or its head).

        `stdin` (if given) is the script's standard input: a way in that no file, argument or variable shows.
        With `sink`, every byte goes to it as it arrives and the result keeps the last TAIL bytes."""
        name = self.name(role)
        args = self.base_args(name, role, screenshots=screenshots, files=files, interactive=stdin is not None)
        if shm:
            args += ["--shm-size", shm]
        for key, value in (env or {}).items():
            args += ["-e", f"{key}={value}"]
        args += [*mounts, "-w", "/workspace", self.image.name, "/bin/sh", "-c", script]
        self.track(name)
        started = time.monotonic()
        try:
            proc = subprocess.Popen(self.podman.cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    cwd=pm.scratch_cwd(), stdin=subprocess.PIPE if stdin is not None else None)
            if sink is not None:
                if stdin is not None:
                    assert proc.stdin is not None
                    proc.stdin.write(stdin)
                    proc.stdin.close()
                return self._stream(proc, name, sink, timeout_s, started)
            try:
                out, _ = proc.communicate(stdin, timeout=timeout_s)
                timed_out = False
            except subprocess.TimeoutExpired:
                pm.kill(self.podman, name)
                out, _ = proc.communicate()
                timed_out = True
        finally:
            self.untrack(name)
        return OneShot(rc=proc.returncode, output=_cap(out, cap), seconds=time.monotonic() - started,
                       timed_out=timed_out)

    def _stream(self, proc: subprocess.Popen, name: str, sink: Callable[[bytes], None], timeout_s: float,
                started: float) -> OneShot:
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            pm.kill(self.podman, name)

        timer = threading.Timer(timeout_s, expire)
        timer.start()
        tail = b""
        try:
            assert proc.stdout is not None
            while chunk := proc.stdout.read1(1 << 20):
                sink(chunk)
                tail = (tail + chunk)[-TAIL:]
            proc.wait()
        finally:
            timer.cancel()
        return OneShot(rc=proc.returncode, output=tail, seconds=time.monotonic() - started, timed_out=expired.is_set())

    # -- the agent ------------------------------------------------------------------------------

    def agent_argv(self, name: str, *, workspace: Source, socket_dir: Source, config_dir: Source | None,
                   command: list[str]) -> list[str]:
        """The agent's container: the workspace, the model socket's folder at /run/model and Pi's configuration
        at /opt/pi-config (or, without `config_dir`, in the socket's folder)."""
        args = self.base_args(name, "agent", interactive=True, label_disable=True)
        args += [*self.bind(workspace, "/workspace", "rw"), *self.bind(socket_dir, "/run/model")]
        if config_dir is not None:
            args += self.bind(config_dir, "/opt/pi-config")
        args += ["-e", "PI_OFFLINE=1", "-e", "PI_CODING_AGENT_DIR=/home/agent/.pi/agent",
                 "-w", "/workspace", self.image.name, *command]
        return self.podman.cmd(*args)

    # -- after the agent ----------------------------------------------------------------------

    def diff(self, start: Source, workspace: Source, sink: Callable[[bytes], None], *,
             timeout_s: float = 300) -> OneShot:
        """The start state against the final workspace (`support/grader/diff.py`), in a fresh container; the
        whole diff goes to `sink` as it streams out, whatever its size (the result keeps only its tail)."""
        mounts = [*self.bind(start, "/start"), *self.bind(workspace, "/workspace")]
        return self.oneshot("diff", mounts, "exec python3 -I /opt/bananabench/grader/diff.py /start /workspace",
                            timeout_s=timeout_s, sink=sink)

    def keep(self, workspace: Source, out: Source, *, timeout_s: float = 300) -> OneShot:
        """Copy the final workspace out of its size-limited mount (no special files, no huge files)."""
        self.scratch(out)
        script = f"exec python3 -I /opt/bananabench/grader/stage.py /src /out {KEEP_FILE_CAP}"
        mounts = [*self.bind(workspace, "/src"), *self.bind(out, "/out", "rw")]
        return self.oneshot("keep", mounts, script, timeout_s=timeout_s)

    def scratch(self, out: Source) -> None:
        """An empty folder of this machine the container user may write (remote volumes are made that way)."""
        if isinstance(out, Path):
            prepare_scratch(out, self.podman)

    def screenshot(self, workspace: Source, out_dir: Source, *, page: str, build: str | None, width: int,
                   height: int, mobile_width: int | None, timeout_s: float = 300) -> tuple[OneShot, dict[str, Any]]:
        """Build (optionally) and load the page in Chromium with Playwright; PNGs land in out_dir."""
        self.scratch(out_dir)
        mounts = [*self.bind(workspace, "/src"), *self.bind(out_dir, "/out", "rw")]
        root = "/src"
        script = ""
        if build:
            script = f"cp -a /src/. /tmp/app/ && cd /tmp/app && ( {build} ) >&2 && "
            script = "mkdir -p /tmp/app && " + script
            root = "/tmp/app"
        args = ["--page", f"{root}/{page}", "--out", "/out", "--width", str(width), "--height", str(height),
                "--chromium", CHROMIUM]
        if mobile_width:
            args += ["--mobile-width", str(mobile_width)]
        script += "exec python3 /opt/bananabench/screenshot.py " + " ".join(shlex.quote(a) for a in args)
        shot = self.oneshot("screenshot", mounts, script, timeout_s=timeout_s, screenshots=True, shm="256m")
        report: dict[str, Any] = {}
        for line in reversed(shot.output.decode(errors="replace").splitlines()):
            if line.startswith("SCREENSHOT "):
                try:
                    report = json.loads(line[len("SCREENSHOT "):])
                except ValueError:
                    report = {}
                break
        return shot, report


@dataclass
class OneShot:
    rc: int
    output: bytes
    seconds: float
    timed_out: bool = False

    @property
    def text(self) -> str:
        return self.output.decode("utf-8", errors="replace")


def _cap(data: bytes | None, cap: int = MAX_LOG) -> bytes:
    data = data or b""
    if len(data) <= cap:
        return data
    return f"[... output cut to the last {cap} bytes ...]\n".encode() + data[-cap:]


def prepare_scratch(path: Path, podman: pm.Podman) -> None:
    """An empty folder the container user may write."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        os.chown(path, *podman.owner_ids())
    os.chmod(path, 0o755)


def chown_tree(path: Path, uid: int, gid: int) -> None:
    """Give a freshly copied (trusted) start state to the container user; links are not followed."""
    if os.geteuid() != 0:
        return
    for current, dirs, files in os.walk(path):
        os.lchown(current, uid, gid)
        for name in dirs + files:
            os.lchown(os.path.join(current, name), uid, gid)


def valid_png(path: Path, max_bytes: int = 32 << 20) -> bool:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > max_bytes:
            return False
        with open(path, "rb") as fh:
            return fh.read(8) == PNG_MAGIC
    except OSError:
        return False
