"""Escape attempts from the agent container that must fail, with the runner's real flags and proxy.

One container (the agent's configuration: workspace, model socket, bridge) runs a probe script
that tries the network, DNS, a host loopback service, the hidden verify/ files, writes outside
the workspace and a non-allowed proxy endpoint; another sends the proxy bad and endless request
bodies and a connection flood from inside the sandbox; a third runs a fork bomb and a memory bomb
under small limits; a fourth fills its size-limited workspace.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from evaluators.agent.sandbox import image
from evaluators.agent.sandbox import podman as pm
from evaluators.agent.sandbox.containers import Resources, Sandbox, chown_tree
from evaluators.agent.sandbox.proxy import ModelProxy
from tests.helpers.agent import FIXTURES, needs_podman
from tests.mock_openai import MockOpenAI, ModelSpec

pytestmark = [pytest.mark.slow, pytest.mark.podman, needs_podman]

PROBE = r'''
import json, os, socket, subprocess, urllib.request, urllib.error
out = {}
def attempt(name, fn):
    try:
        out[name] = ["ok", str(fn())[:200]]
    except Exception as exc:
        out[name] = ["blocked", f"{type(exc).__name__}: {exc}"[:200]]
def connect(host, port):
    s = socket.create_connection((host, port), timeout=3); s.close(); return "connected"
attempt("outbound", lambda: connect("1.1.1.1", 80))
attempt("outbound_ip6", lambda: connect("2606:4700:4700::1111", 80))
attempt("dns", lambda: socket.getaddrinfo("example.com", 80))
attempt("host_loopback", lambda: connect("127.0.0.1", int(os.environ["HOST_PORT"])))
attempt("host_gateway", lambda: connect("10.0.2.2", int(os.environ["HOST_PORT"])))
marker = os.environ["MARKER"]
found = subprocess.run(["grep", "-rl", marker, "/workspace", "/home", "/tmp", "/opt", "/run", "/etc", "/var",
                        "/verify", "/src", "/start", "/out", "/mnt", "/root"], capture_output=True, text=True)
out["hidden_files"] = found.stdout.split()
for path in ("/etc/evil", "/usr/evil", "/opt/bananabench/evil", "/run/model/evil", "/evil", "/var/evil",
             "/opt/pi/evil"):
    attempt("write " + path, lambda p=path: open(p, "w").write("x"))
attempt("write /workspace/ok", lambda: open("/workspace/ok", "w").write("x"))
def http(method, path):
    req = urllib.request.Request("http://127.0.0.1:8080" + path, method=method,
                                 data=b"{}" if method == "POST" else None,
                                 headers={"Content-Type": "application/json"})
    try:
        return urllib.request.urlopen(req, timeout=10).status
    except urllib.error.HTTPError as exc:
        return exc.code
out["proxy"] = {m + " " + p: http(m, p) for m, p in (("GET", "/v1/models"), ("GET", "/props"), ("GET", "/slots"),
                                           ("POST", "/slots/0?action=erase"), ("GET", "/health"),
                                           ("POST", "/v1/embeddings"), ("DELETE", "/v1/models"))}
out["uid"] = os.getuid()
out["caps"] = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")]
out["interfaces"] = sorted(os.listdir("/sys/class/net"))
attempt("setuid", lambda: os.setuid(0))
print("PROBE " + json.dumps(out))
'''

BOMBS = r'''
import json, os, sys, time
out = {}
pids = []
try:
    for i in range(10000):
        pid = os.fork()
        if pid == 0:
            time.sleep(30); os._exit(0)
        pids.append(pid)
except OSError as exc:
    out["fork_stopped_at"] = len(pids)
    out["fork_error"] = str(exc)
for pid in pids:
    os.kill(pid, 9)
for pid in pids:
    os.waitpid(pid, 0)
print("BOMBS " + json.dumps(out), flush=True)
sys.exit(0)
'''


PROXY_ATTACKS = r'''
import json, select, socket, time
def conn():
    s = socket.create_connection(("127.0.0.1", 8080), timeout=20)
    return s
def status(s):
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return int(data.split()[1]) if data.startswith(b"HTTP/") else None
def head(length, extra=""):
    return (f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n{extra}\r\n").encode()
out = {}
for name, length, extra in (("negative", "-1", ""), ("exponent", "1e3", ""), ("letters", "abc", ""),
                            ("twice", "5", "Content-Length: 6\r\n"), ("huge", str(1 << 40), ""),
                            ("chunked", "5", "Transfer-Encoding: chunked\r\n")):
    s = conn(); s.sendall(head(length, extra)); out[name] = status(s); s.close()
# an endless body behind a negative length: how much gets in before the proxy hangs up
s = conn(); s.sendall(head("-1")); sent = 0; block = b"x" * (1 << 20)
try:
    while sent < (512 << 20):
        s.sendall(block); sent += len(block)
except OSError:
    pass
out["endless_sent_mib"] = sent >> 20
s.close()
# hold the buffer budget, then a connection flood
holders = []
for _ in range(2):
    h = conn(); h.sendall(head(30 << 20) + b"{"); holders.append(h)
time.sleep(1)
s = conn(); s.sendall(head(30 << 20) + b"{"); out["over_budget"] = status(s); s.close()
flood = [conn() for _ in range(60)]
time.sleep(1)
# the connections the proxy closed: each is readable (EOF) within a second of the last one found
pending, closed = set(flood), 0
while pending:
    ready, _, _ = select.select(list(pending), [], [], 1)
    if not ready:
        break
    for f in ready:
        pending.discard(f)
        try:
            closed += f.recv(1) == b""
        except OSError:
            pass
out["flood_closed"] = closed
for f in flood + holders:
    f.close()
# still serving once the closes reach it (through a remote host's relay that can take more than a second)
deadline = time.time() + 30
while True:
    s = conn(); s.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"); out["after"] = status(s); s.close()
    if out["after"] == 200 or time.time() > deadline:
        break
    time.sleep(0.5)
print("PROXY " + json.dumps(out), flush=True)
'''


def contained_probe(proc: subprocess.CompletedProcess, seen: list[tuple[str, str]]) -> dict:
    """PROBE's findings, asserted to be what every sandbox guarantees on any host (no network, no view of
    hidden files, read-only system, the proxy letting only the model listing through); the rest for the caller."""
    line = next((x for x in proc.stdout.splitlines() if x.startswith("PROBE ")), None)
    assert line, proc.stdout + proc.stderr
    out = json.loads(line[len("PROBE "):])
    for name in ("outbound", "outbound_ip6", "dns", "host_loopback", "host_gateway", "setuid"):
        assert out[name][0] == "blocked", (name, out[name])
    assert out["hidden_files"] == []
    for path in ("/etc/evil", "/usr/evil", "/opt/bananabench/evil", "/run/model/evil", "/evil", "/var/evil",
                 "/opt/pi/evil"):
        assert out["write " + path][0] == "blocked", (path, out["write " + path])
    assert out["write /workspace/ok"][0] == "ok"
    assert out["proxy"].pop("GET /v1/models") == 200
    assert out["proxy"] == dict.fromkeys(["GET /props", "GET /slots", "POST /slots/0?action=erase", "GET /health",
                                          "POST /v1/embeddings", "DELETE /v1/models"], 403)
    assert seen == [("GET", "/v1/models")]                     # nothing else reached the model server
    assert out["caps"] == ["0000000000000000"] and out["interfaces"] == ["lo"]
    return out


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    podman = pm.detect()
    return Sandbox(podman, image.resolve(podman), owner="escape-test",
                   resources=Resources(memory="256m", pids=64, cpus=1))


def test_escape_attempts_fail(sandbox: Sandbox, tmp_path: Path):
    marker = "HIDDEN-VERIFY-MARKER-7f3a"
    assert marker in (FIXTURES / "smoke" / "hello" / "verify" / "check.py").read_text()
    workspace = tmp_path / "workspace"
    shutil.copytree(FIXTURES / "smoke" / "hello" / "workspace", workspace)
    (workspace / "probe.py").write_text(PROBE)
    chown_tree(workspace, *sandbox.podman.owner_ids())
    host_service = socket.create_server(("127.0.0.1", 0))
    port = host_service.getsockname()[1]
    threading.Thread(target=lambda: host_service.accept(), daemon=True).start()
    config = tmp_path / "config"
    config.mkdir()
    with MockOpenAI(models=[ModelSpec(id="m")]) as mock, \
            ModelProxy(tmp_path / "sock", mock.base_url, "m") as proxy:
        name = sandbox.name("agent")
        argv = sandbox.agent_argv(name, workspace=workspace, socket_dir=proxy.directory, config_dir=config, command=[
            "node", "/opt/bananabench/bridge.js", "/run/model/model.sock", "8080", "--",
            "python3", "/workspace/probe.py"])
        env_at = argv.index(sandbox.image.name)
        argv[env_at:env_at] = ["-e", f"HOST_PORT={port}", "-e", f"MARKER={marker}"]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        seen = [(r.method, r.path) for r in mock.requests]
    host_service.close()
    out = contained_probe(proc, seen)
    assert out["uid"] != 0
    assert sorted(proxy.traffic.denied) == sorted(
        ["GET /props", "GET /slots", "POST /slots/0?action=erase", "GET /health", "POST /v1/embeddings",
         "DELETE /v1/models"])


def test_proxy_attacks_from_inside_the_sandbox_cost_the_host_nothing(sandbox: Sandbox, tmp_path: Path):
    """Bad lengths get 400/411/413 unread; an endless body is cut off; budget and connection caps hold."""
    import resource

    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "attacks.py").write_text(PROXY_ATTACKS)
    chown_tree(workspace, *sandbox.podman.owner_ids())
    config = tmp_path / "config"
    config.mkdir()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with MockOpenAI(models=[ModelSpec(id="m")]) as mock, ModelProxy(tmp_path / "sock", mock.base_url, "m") as proxy:
        argv = sandbox.agent_argv(sandbox.name("agent"), workspace=workspace, socket_dir=proxy.directory,
                                  config_dir=config, command=["node", "/opt/bananabench/bridge.js",
                                                              "/run/model/model.sock", "8080", "--",
                                                              "python3", "/workspace/attacks.py"])
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        refused = proxy.traffic.refused_connections
    line = next((x for x in proc.stdout.splitlines() if x.startswith("PROXY ")), None)
    assert line, proc.stdout + proc.stderr
    out = json.loads(line[len("PROXY "):])
    assert (out["negative"], out["exponent"], out["letters"], out["twice"]) == (400, 400, 400, 400)
    assert (out["huge"], out["chunked"]) == (413, 411)
    assert out["endless_sent_mib"] < 64, out              # the bridge's and kernel's buffers, not the proxy's
    assert out["over_budget"] == 503 and out["after"] == 200
    assert out["flood_closed"] >= 60 - 16 and refused >= out["flood_closed"] - 2
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before) / 1024
    assert grown_mib < 100, grown_mib                         # the host side held at most the 64 MiB budget


def test_fork_bomb_and_memory_bomb_are_contained(sandbox: Sandbox, tmp_path: Path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "bombs.py").write_text(BOMBS)
    chown_tree(workspace, *sandbox.podman.owner_ids())
    fork = sandbox.oneshot("bomb", ["-v", f"{workspace}:/workspace:ro"], "python3 /workspace/bombs.py",
                           timeout_s=120)
    line = next((x for x in fork.text.splitlines() if x.startswith("BOMBS ")), None)
    assert line, fork.text
    out = json.loads(line[len("BOMBS "):])
    assert out["fork_stopped_at"] < 64                           # the pids limit, not the host, stopped it
    memory = sandbox.oneshot("bomb", [], "python3 -c 'x = bytearray(1 << 30); print(len(x))'; echo rc=$?",
                             timeout_s=120)
    assert "rc=137" in memory.text or "MemoryError" in memory.text, memory.text   # 1 GiB > the 256m limit
    assert "1073741824" not in memory.text
    assert not (Path.cwd() / "oom").exists()                      # podman's OOM marker stays out of the checkout
    shell = sandbox.oneshot("bomb", [], "echo alive", timeout_s=60)
    assert shell.rc == 0 and "alive" in shell.text             # the host and podman are still fine
