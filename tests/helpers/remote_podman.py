"""A podman "remote host" on this machine that shares no paths with the client.

`podman system service` runs in its own mount namespace (`unshare -m`) where fresh file systems
cover /tmp (the client's results, temporary folders and sockets, and a checkout that lies below it),
the project checkout (the agent's support files, Pi, the task fixtures, the virtualenv) and /dev/shm (podman's locks); its storage lives
in that private /tmp. Its API socket sits in a folder under /run that both sides see. A client path
that leaks into a mount therefore fails there, as it would on another machine. The connection is
registered in a private containers.conf (`CONTAINERS_CONF`), never in the system's.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SERVICE = """set -e
mount -t tmpfs -o size=4g bb-remote-tmp /tmp
mount -t tmpfs -o size=64m bb-remote-shm /dev/shm
if [ -d {repo} ]; then mount -t tmpfs -o size=1m bb-remote-hidden {repo}; fi  # a checkout below /tmp is gone already
mkdir -p /tmp/store/root /tmp/store/run /tmp/store/tmp
cd /tmp  # conmon leaves an `oom` marker in its working directory
exec podman --root /tmp/store/root --runroot /tmp/store/run --tmpdir /tmp/store/tmp \\
    system service --time 0 unix://{socket}
"""


def available() -> bool:
    return os.geteuid() == 0 and shutil.which("unshare") is not None and shutil.which("podman") is not None


@contextlib.contextmanager
def remote_podman(name: str, *, start_timeout_s: float = 60) -> Iterator[dict[str, str]]:
    """Start the service, register connection `name`; yields the environment a client needs."""
    folder = Path(tempfile.mkdtemp(prefix="bb-remote-", dir="/run"))
    sock, log = folder / "podman.sock", folder / "service.log"
    conf = folder / "containers.conf"
    conf.write_text("")
    env = {**os.environ, "CONTAINERS_CONF": str(conf)}
    script = SERVICE.format(repo=shlex.quote(str(REPO)), socket=shlex.quote(str(sock)))
    with open(log, "wb") as out:
        service = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                   env={k: v for k, v in os.environ.items() if k != "CONTAINERS_CONF"})
    url = f"unix://{sock}"
    try:
        deadline = time.monotonic() + start_timeout_s
        while not sock.exists() and service.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if not sock.exists():
            raise RuntimeError(f"the podman service did not start: {log.read_text()[-2000:]}")
        subprocess.run(["podman", "system", "connection", "add", name, url], env=env, check=True,
                       capture_output=True)
        yield {"CONTAINERS_CONF": str(conf)}
    finally:
        # Our containers keep conmon (and so this mount namespace) alive: remove them; the storage goes with /tmp.
        ours = subprocess.run(["podman", "--url", url, "ps", "--all", "--quiet", "--filter",
                               "label=bananabench.agent=1"], capture_output=True, text=True, timeout=120).stdout.split()
        if ours:
            subprocess.run(["podman", "--url", url, "rm", "--force", "--time", "0", *ours], capture_output=True,
                           timeout=300)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(service.pid, signal.SIGTERM)
        try:
            service.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(service.pid, signal.SIGKILL)
            service.wait()
        shutil.rmtree(folder, ignore_errors=True)
