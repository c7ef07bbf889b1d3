"""Attempts on a remote podman host: files and the model reach it only the ways podman remote offers.

Nothing here assumes that a path of this machine exists on that host (`Sandbox.bind` refuses one):

- folders go in and out as tar streams through a helper container's stdin and stdout (a start state
  into a volume, test records, screenshots and a kept workspace out of one); what comes out is
  extracted with tarfile's `data` filter (no links out of the target, no devices) under a byte cap;
- the workspace and the verification stage are tmpfs volumes with a size limit (`nr_blocks`), so the
  kernel refuses writes beyond it; their pages also count against the writing container's memory
  limit. A *holder* container keeps them mounted between the attempt's containers;
- the model: a relay container (`support/relay.py`, no network) listens on a unix socket in a volume
  the agent's container mounts read-only, and carries each connection over its attached stdin and
  stdout to this machine, where `RelayPump` connects it to the filtering proxy. The remote host needs
  no route to the model server and never sees its address or key;
- what the image needs from this machine (support scripts; for the offline image Pi and Playwright)
  is copied once per content hash into volumes kept on the host for later runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import secrets
import shutil
import socket
import struct
import subprocess
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from evaluators.agent.sandbox import podman as pm
from evaluators.agent.sandbox.containers import RemoteDir, Sandbox
from evaluators.agent.sandbox.image import PI_DIR, SUPPORT_DIR, playwright_site_dir
from evaluators.core.errors import EvaluationFailure

log = logging.getLogger("bananabench")

LABEL_FILES = "bananabench.files"
COMPLETE = ".complete"           # written last into a files volume: its copy is whole
FULL_MARGIN = 4 << 20            # a workspace with less free space than this is full
FULL_CHECK_S = 5.0               # how often a remote workspace's free space is asked for
RELAY = "/opt/bananabench/relay.py"
HEADER = struct.Struct(">IBI")
OPEN, DATA, EOF, READY, CLOSE = 0, 1, 2, 3, 4
PLAYWRIGHT_PACKAGES = ("playwright", "greenlet", "pyee", "typing_extensions.py")


# -- volumes and streams --------------------------------------------------------------------------

def create_volume(podman: pm.Podman, owner: str, role: str, *, size_mb: int | None = None,
                  page_size: int = 4096) -> RemoteDir:
    """A new volume for the agent user; with `size_mb` a tmpfs of that size (needs a holder to persist)."""
    name = f"bb-{role}-{os.getpid()}-{secrets.token_hex(4)}"
    args = ["volume", "create", *pm.labels(owner, role)]
    if size_mb:
        blocks = (size_mb << 20) // page_size
        args += ["--opt", "type=tmpfs", "--opt", "device=tmpfs",
                 "--opt", f"o=nr_blocks={blocks},uid={pm.AGENT_UID},gid={pm.AGENT_UID},mode=0755,nosuid,nodev"]
    else:
        args += ["--opt", f"o=uid={pm.AGENT_UID},gid={pm.AGENT_UID}"]
    pm.run(podman, *args, name, timeout=120)
    return RemoteDir(name)


def remove_volume(podman: pm.Podman, volume: RemoteDir) -> None:
    pm.run(podman, "volume", "rm", "--force", volume.volume, check=False, timeout=120)


def mountpoint(podman: pm.Podman, volume: RemoteDir) -> str:
    """Where the volume is on its host (valid while something holds it mounted)."""
    proc = pm.run(podman, "volume", "inspect", "--format", "{{.Mountpoint}}", volume.volume, timeout=60)
    return proc.stdout.decode().strip()


def _helper(sandbox: Sandbox, role: str, mounts: list[str], argv: list[str], *, files: bool = False,
            interactive: bool = False) -> tuple[str, list[str]]:
    name = sandbox.name(role)
    args = sandbox.base_args(name, role, interactive=interactive, files=files)
    return name, sandbox.podman.cmd(*args, *mounts, sandbox.image.name, *argv)


def stream_in(sandbox: Sandbox, role: str, mounts: list[str], argv: list[str], write: Callable[[IO[bytes]], None],
              *, timeout_s: float = 1800) -> None:
    """Run `argv` in a helper container with `write` feeding its stdin; failure is an infrastructure error."""
    name, cmd = _helper(sandbox, role, mounts, argv, interactive=True)
    sandbox.track(name)
    timer = threading.Timer(timeout_s, pm.kill, (sandbox.podman, name))
    error: BaseException | None = None
    try:
        with tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err,
                                    cwd=pm.scratch_cwd())
            timer.start()
            try:
                assert proc.stdin is not None
                with proc.stdin:
                    write(proc.stdin)
            except (OSError, ValueError) as exc:  # the container went away: its stderr says why
                error = exc
            proc.wait()
            err.seek(0)
            message = err.read().decode(errors="replace").strip()[-300:]
    finally:
        timer.cancel()
        sandbox.untrack(name)
    if proc.returncode != 0 or error is not None:
        raise EvaluationFailure(f"{role} on {sandbox.podman.host} failed ({proc.returncode}): {message or error}")


def stream_out(sandbox: Sandbox, role: str, mounts: list[str], argv: list[str], read: Callable[[IO[bytes]], Any],
               *, timeout_s: float = 1800) -> Any:
    """Run `argv` in a helper container and hand its stdout to `read`; returns what `read` returns."""
    name, cmd = _helper(sandbox, role, mounts, argv)
    sandbox.track(name)
    timer = threading.Timer(timeout_s, pm.kill, (sandbox.podman, name))
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                cwd=pm.scratch_cwd())
        timer.start()
        assert proc.stdout is not None and proc.stderr is not None
        try:
            result = read(proc.stdout)
        finally:
            proc.stdout.read()  # whatever `read` left (it stopped at its cap)
            err = proc.stderr.read()
            proc.wait()
    finally:
        timer.cancel()
        sandbox.untrack(name)
    if proc.returncode in pm.PODMAN_FAILURE_CODES:
        raise EvaluationFailure(f"{role} on {sandbox.podman.host} did not run ({proc.returncode}): "
                                f"{err.decode(errors='replace').strip()[-300:]}")
    return result


def fill(sandbox: Sandbox, volume: RemoteDir, local: Path, *, names: tuple[str, ...] | None = None,
         complete: bool = False) -> None:
    """Copy the local folder `local` (or only its entries `names`) into `volume`; links stay links."""
    def write(stdin: IO[bytes]) -> None:
        with tarfile.open(fileobj=stdin, mode="w|", format=tarfile.PAX_FORMAT) as tar:
            for name in names if names is not None else sorted(os.listdir(local)):
                if os.path.lexists(local / name):
                    tar.add(local / name, arcname=name, filter=_portable)
            if complete:
                info = tarfile.TarInfo(COMPLETE)
                tar.addfile(info)

    stream_in(sandbox, "fill", sandbox.bind(volume, "/dst", "rw"),
              ["tar", "-x", "--no-same-owner", "-C", "/dst", "-f", "-"], write)


def _portable(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = pm.AGENT_UID
    info.uname = info.gname = ""
    return info


def export(sandbox: Sandbox, source: RemoteDir, dest: Path, *, sub: str = ".", cap_bytes: int,
           suffix: str | None = None) -> int:
    """Copy `sub` of a remote folder into `dest` (created); returns the bytes written.

    The archive comes from a helper container; entries the `data` filter refuses (absolute paths,
    links leaving `dest`, devices) are skipped, and so is everything past `cap_bytes`."""
    dest.mkdir(parents=True, exist_ok=True)
    script = f'cd /src && if [ -e {_quote(sub)} ]; then exec tar -c -f - {_quote(sub)}; fi'

    def read(stdout: IO[bytes]) -> int:
        written = 0
        try:
            with tarfile.open(fileobj=stdout, mode="r|") as tar:
                for member in tar:
                    if suffix and member.isfile() and not member.name.endswith(suffix):
                        continue
                    if member.isfile() and written + member.size > cap_bytes:
                        continue
                    try:
                        tar.extract(member, dest, filter="data")
                    except (tarfile.FilterError, OSError):
                        continue
                    written += member.size if member.isfile() else 0
        except tarfile.ReadError:  # nothing to copy (an empty stream)
            pass
        return written

    return stream_out(sandbox, "export", sandbox.bind(source, "/src"), ["/bin/sh", "-c", script], read)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


# -- the model, relayed ------------------------------------------------------------------------------

class RelayPump:
    """This machine's end of the relay: each connection the relay accepts is connected to `proxy_socket`."""

    def __init__(self, sandbox: Sandbox, run_dir: RemoteDir, proxy_socket: Path, *, ready_timeout_s: float = 120):
        self.sandbox = sandbox
        self.proxy_socket = proxy_socket
        self.name = sandbox.name("relay")
        args = sandbox.base_args(self.name, "relay", interactive=True, label_disable=True)
        cmd = sandbox.podman.cmd(*args, *sandbox.bind(run_dir, "/run/model", "rw"), sandbox.image.name,
                                 "python3", "-I", RELAY, "/run/model/model.sock")
        sandbox.track(self.name)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=pm.scratch_cwd())
        self._conns: dict[int, socket.socket] = {}
        self._lock = threading.Lock()
        self._ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self._ready.wait(ready_timeout_s):
            err = self.close()
            raise EvaluationFailure(f"the model relay on {sandbox.podman.host} did not start: {err}")

    def _send(self, cid: int, kind: int, data: bytes = b"") -> None:
        with self._lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(HEADER.pack(cid, kind, len(data)) + data)
            self.proc.stdin.flush()

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        with contextlib.suppress(OSError, ValueError):
            while header := stream.read(HEADER.size):
                if len(header) < HEADER.size:
                    break
                cid, kind, length = HEADER.unpack(header)
                data = stream.read(length) if length else b""
                if kind == READY:
                    self._ready.set()
                elif kind == OPEN:
                    self._open(cid)
                else:
                    self._forward(cid, kind, data)
        for conn in list(self._conns.values()):
            conn.close()

    def _open(self, cid: int) -> None:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(str(self.proxy_socket))
        except OSError:
            conn.close()
            self._send(cid, CLOSE)
            return
        self._conns[cid] = conn
        threading.Thread(target=self._pump, args=(cid, conn), daemon=True).start()

    def _forward(self, cid: int, kind: int, data: bytes) -> None:
        """The agent's bytes to the proxy; its EOF as a half-close (the proxy may still answer)."""
        conn = self._conns.get(cid)
        if conn is None:
            return
        try:
            if kind == DATA:
                conn.sendall(data)
            elif kind == EOF:
                conn.shutdown(socket.SHUT_WR)
        except OSError:
            self._drop(cid)

    def _pump(self, cid: int, conn: socket.socket) -> None:
        """The proxy's answer to the agent; when the proxy is done, so is the connection."""
        with contextlib.suppress(OSError, ValueError):
            while data := conn.recv(1 << 16):
                self._send(cid, DATA, data)
        self._drop(cid)

    def _drop(self, cid: int) -> None:
        conn = self._conns.pop(cid, None)
        if conn is not None:
            conn.close()
            with contextlib.suppress(OSError, ValueError):
                self._send(cid, CLOSE)

    def close(self) -> str:
        """Stop the relay; returns its stderr (for messages)."""
        with contextlib.suppress(OSError, ValueError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            pm.kill(self.sandbox.podman, self.name)
            self.proc.wait()
        self.sandbox.untrack(self.name)
        for conn in list(self._conns.values()):
            conn.close()
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode(errors="replace").strip()[-300:]


# -- what the image needs from this machine ------------------------------------------------------------

def _listing_hash(root: Path, names: tuple[str, ...] | None = None) -> str:
    """A key for a folder's content: every file's path, size and modification time."""
    digest = hashlib.sha256()
    for name in names if names is not None else sorted(os.listdir(root)):
        top = root / name
        if not os.path.lexists(top):
            continue
        for current, dirs, files in os.walk(top) if top.is_dir() else [(str(root), [], [name])]:
            dirs.sort()
            for file in sorted(files):
                st = os.lstat(os.path.join(current, file))
                digest.update(f"{os.path.relpath(os.path.join(current, file), root)}\0{st.st_size}\0"
                              f"{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def image_files(sandbox: Sandbox, *, screenshots: bool = False) -> dict[str, RemoteDir]:
    """The volumes holding this machine's support scripts (and the offline image's Pi and Playwright) on the
    sandbox's host, copied there once per content and kept for later runs."""
    wanted: dict[str, tuple[Path, tuple[str, ...] | None]] = {"support": (SUPPORT_DIR, None)}
    image = sandbox.image
    if image.kind == "offline":
        wanted["pi"] = (Path(image.pi_dir or PI_DIR), None)
        site = playwright_site_dir()
        if screenshots and site:
            wanted["pylib"] = (Path(site), PLAYWRIGHT_PACKAGES)
    present = _complete_volumes(sandbox)
    out: dict[str, RemoteDir] = {}
    for key, (root, names) in wanted.items():
        name = f"bb-files-{key}-{_listing_hash(root, names)}"
        if name not in present:
            log.info("copying %s%s to podman host %s (once: kept as volume %s)", root,
                     f" ({', '.join(names)})" if names else "", sandbox.podman.host, name)
            remove_volume(sandbox.podman, RemoteDir(name))
            pm.run(sandbox.podman, "volume", "create", "--label", f"{LABEL_FILES}={key}", "--opt",
                   f"o=uid={pm.AGENT_UID},gid={pm.AGENT_UID}", name, timeout=120)
            fill(sandbox, RemoteDir(name), root, names=names, complete=True)
        out[key] = RemoteDir(name)
    return out


def _complete_volumes(sandbox: Sandbox) -> set[str]:
    proc = pm.run(sandbox.podman, "volume", "ls", "--filter", f"label={LABEL_FILES}", "--format", "{{.Name}}",
                  timeout=60)
    names = proc.stdout.decode().split()
    if not names:
        return set()
    mounts = [arg for i, name in enumerate(names) for arg in sandbox.bind(RemoteDir(name), f"/v/{i}")]
    script = "; ".join(f"[ -f /v/{i}/{COMPLETE} ] && echo {name}" for i, name in enumerate(names)) + "; true"
    shot = sandbox.oneshot("files", mounts, script, timeout_s=120, files=False)
    return set(shot.text.split()) & set(names)


# -- one attempt's file systems ---------------------------------------------------------------------------

class RemoteSpace:
    """An attempt's workspace, verification stage, model socket and outputs on a remote host (see the module
    docstring). `close` removes everything it made."""

    def __init__(self, sandbox: Sandbox, *, start: RemoteDir, hidden: RemoteDir | None, workspace_mb: int,
                 stage_mb: int, page_size: int):
        self.sandbox, self.podman = sandbox, sandbox.podman
        self.start, self.hidden = start, hidden
        self.workspace_mb = workspace_mb
        self._volumes: list[RemoteDir] = []
        self._relay: RelayPump | None = None
        self._holder = sandbox.name("holder")
        self._checked = 0.0
        self._full = False
        self._mountpoints: dict[str, str] = {}
        self.temporary: list[Path] = []
        try:
            self.workspace = self._volume("workspace", workspace_mb, page_size)
            self.stage_dir = self._volume("stage", stage_mb, page_size)
            self.run_dir = self._volume("model", 16, page_size)
            args = sandbox.base_args(self._holder, "holder", files=False)
            args.insert(1, "-d")
            sandbox.track(self._holder)
            pm.run(self.podman, *args, *sandbox.bind(self.workspace, "/h/workspace", "rw"),
                   *sandbox.bind(self.stage_dir, "/h/stage", "rw"), *sandbox.bind(self.run_dir, "/h/model", "rw"),
                   sandbox.image.name, "sleep", "infinity", timeout=120)
            copied = sandbox.oneshot("fill", [*sandbox.bind(start, "/start"),
                                              *sandbox.bind(self.workspace, "/workspace", "rw")],
                                     "cp -a /start/. /workspace/", timeout_s=600, files=False)
            if copied.rc != 0:
                raise EvaluationFailure(f"copying the start state on {self.podman.host} failed: {copied.text[-300:]}")
        except BaseException:
            self.close()
            raise

    def _volume(self, role: str, size_mb: int, page_size: int) -> RemoteDir:
        volume = create_volume(self.podman, self.sandbox.owner, role, size_mb=size_mb or None, page_size=page_size)
        self._volumes.append(volume)
        return volume

    def _exec(self, script: str) -> subprocess.CompletedProcess:
        """A shell command in the holder, which sees the volumes under /h."""
        return pm.run(self.podman, "exec", self._holder, "/bin/sh", "-c", script, check=False, timeout=60)

    def full(self) -> bool:
        """Whether the workspace is (nearly) full; asked of the host every few seconds at most."""
        if not self.workspace_mb:
            return False
        now = time.monotonic()
        if now - self._checked >= FULL_CHECK_S:
            self._checked = now
            proc = self._exec("stat -f -c '%a %S' /h/workspace")
            with contextlib.suppress(ValueError):
                free, size = (int(x) for x in proc.stdout.split()[:2])
                self._full = free * size < FULL_MARGIN
        return self._full

    def model(self, proxy_socket: Path, config_dir: Path) -> tuple[RemoteDir, None, str]:
        """Pi's configuration and the relayed model socket in the model volume: (the socket's folder, no separate
        configuration folder, the configuration's path in the container)."""
        fill(self.sandbox, self.run_dir, config_dir.parent, names=(config_dir.name,))
        self._relay = RelayPump(self.sandbox, self.run_dir, proxy_socket)
        return self.run_dir, None, f"/run/model/{config_dir.name}"

    @contextlib.contextmanager
    def stage(self) -> Iterator[RemoteStage]:
        yield RemoteStage(self, self.stage_dir)

    def mountpoint(self, volume: RemoteDir) -> str:
        if volume.volume not in self._mountpoints:
            self._mountpoints[volume.volume] = mountpoint(self.podman, volume)
        return self._mountpoints[volume.volume]

    @contextlib.contextmanager
    def output(self, dest: Path, *, cap_bytes: int) -> Iterator[RemoteDir]:
        """A fresh volume for a container's outputs, copied into `dest` afterwards (a disk volume: what lands
        there is bounded by its source and `cap_bytes`)."""
        volume = create_volume(self.podman, self.sandbox.owner, "output")
        try:
            yield volume
            export(self.sandbox, volume, dest, cap_bytes=cap_bytes)
        finally:
            remove_volume(self.podman, volume)

    def close(self) -> None:
        if self._relay is not None:
            self._relay.close()
            self._relay = None
        pm.kill(self.podman, self._holder)
        self.sandbox.untrack(self._holder)
        for volume in self._volumes:
            remove_volume(self.podman, volume)
        self._volumes = []
        for folder in self.temporary:
            shutil.rmtree(folder, ignore_errors=True)
        self.temporary = []


class RemoteStage:
    """The verification stage as a volume (see `verification.Stage`)."""

    def __init__(self, space: RemoteSpace, volume: RemoteDir):
        self.space, self.source = space, volume

    def sub(self, name: str) -> RemoteDir:
        return self.source.sub(self.space.mountpoint(self.source), name)

    def has_dir(self, name: str) -> bool:
        proc = self.space._exec(f"[ -d /h/stage/{name} ] && [ ! -L /h/stage/{name} ]")
        return proc.returncode == 0

    def records(self) -> Path:
        """A local copy of the test records (the space removes it when it closes)."""
        from evaluators.agent.grading.verdict import MAX_RECORD_BYTES

        dest = Path(tempfile.mkdtemp(prefix="bb-records-"))
        self.space.temporary.append(dest)
        export(self.space.sandbox, self.source, dest, sub="report", cap_bytes=MAX_RECORD_BYTES, suffix=".jsonl")
        return dest / "report"


def check_report(shot_text: str) -> dict[str, Any]:
    """The JSON line a host check printed (empty when there is none)."""
    for line in reversed(shot_text.splitlines()):
        if line.startswith("SANDBOX "):
            with contextlib.suppress(ValueError):
                return json.loads(line[len("SANDBOX "):])
    return {}
