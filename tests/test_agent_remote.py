"""The agent on a remote podman host: a `podman system service` in its own mount namespace that shares no
path with this process (see tests/helpers/remote_podman.py), reached as `--podman-connection NAME`.

A run on that host and this machine at once gets the results a local run gets; the sandbox tests
(escapes, proxy attacks through the relayed socket, fork and memory bombs, a full workspace) hold there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from evaluators.agent.corpus.datasets import load_task
from evaluators.agent.sandbox import hosts
from evaluators.agent.sandbox import podman as pm
from evaluators.agent.sandbox.containers import Resources
from evaluators.agent.sandbox.proxy import ModelProxy
from evaluators.store.store import Store
from tests.conftest import run_cli
from tests.helpers import remote_podman
from tests.helpers.agent import FIXTURES, needs_pi, needs_podman
from tests.mock_openai import MockOpenAI, ModelSpec
from tests.test_agent_e2e import COUNTER, scripted_mock
from tests.test_agent_sandbox import BOMBS, PROBE, PROXY_ATTACKS, contained_probe

# one worker runs them in turn: they share one remote host, whose volumes the first test checks are all gone
pytestmark = [pytest.mark.slow, pytest.mark.podman, needs_podman, needs_pi, pytest.mark.xdist_group("remote-host"),
              pytest.mark.skipif(not remote_podman.available(), reason="needs root, unshare and podman")]
REMOTE = "bb-test-remote"
ESCAPE_OWNER = "escape-test"


@pytest.fixture(scope="module")
def remote_env():
    """The remote service, and this process's podman pointed at its private connection list."""
    with remote_podman.remote_podman(REMOTE) as env:
        old = os.environ.get("CONTAINERS_CONF")
        os.environ.update(env)
        try:
            yield env
        finally:
            if old is None:
                os.environ.pop("CONTAINERS_CONF", None)
            else:
                os.environ["CONTAINERS_CONF"] = old


def test_a_run_on_a_remote_host_and_this_machine(remote_env, tmp_path: Path):
    results = tmp_path / "results"
    with scripted_mock() as mock:
        proc = run_cli("agent", "run", "--name", "coder", "--base-url", mock.base_url, "--results", str(results),
                       "--tasks-dir", str(FIXTURES), "--timeout-s", "120", "--idle-s", "60", "--parallel", "1",
                       "--podman-connection", f"{REMOTE},local", env=remote_env)
    assert proc.returncode == 0, proc.stderr
    assert f"podman host {REMOTE}" in proc.stderr and "podman host local" in proc.stderr
    store = Store(results)
    run = store.runs(benchmark="banana-benchmark")[0]
    assert run.status == "finished" and [h["host"] for h in run.extra["hosts"]] == [REMOTE, "local"]
    attempts = {a.item_id: a for a in store.attempts(run.run_id)}
    assert {a.extra["host"] for a in attempts.values()} == {REMOTE, "local"}
    assert (attempts["smoke/hello"].status, attempts["smoke/hello"].score) == ("passed", 1.0)
    digits = attempts["coding/python/digit-sum"]
    assert digits.status == "failed" and digits.score == pytest.approx(0.8)
    verdict = json.loads((results / digits.extra["artifacts"] / "verify.json").read_text())
    assert verdict["not_passed"] == ["test_digits.DigitSum.test_negative"] and verdict["missing"] == []
    counter = attempts["frontend/counter"]
    assert counter.status == "manual"
    for view in ("desktop", "mobile"):
        assert (results / counter.extra["screenshots"][view]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    kept = results / counter.extra["workspace"]
    assert (kept / "index.html").read_text() == COUNTER and not (kept / "README.md").exists()
    for row in attempts.values():
        folder = results / row.extra["artifacts"]
        assert {p.name for p in folder.iterdir()} >= {"events.jsonl", "changes.diff", "verify.log", "verify.json"}
        assert not [p for p in folder.iterdir() if p.name.startswith(".")]
    # Nothing of the run is left on the remote host but the copies of the image's files, kept for later runs
    # (the module's `remote_host`, which another test may have opened first, keeps its own until the module ends).
    listed = pm.run(pm.connect(REMOTE), "volume", "ls", "--format",
                    f'{{{{.Name}}}} {{{{index .Labels "{pm.LABEL_OWNER}"}}}}').stdout.decode().splitlines()
    left = [name for name, _, owner in (line.partition(" ") for line in listed)
            if name.startswith("bb-files-") or owner != ESCAPE_OWNER]
    assert left and all(name.startswith("bb-files-") for name in left), listed
    assert not pm.run(pm.connect(REMOTE), "ps", "--all", "--quiet").stdout.strip()


def test_bad_connections_are_refused_before_anything_runs(remote_env, tmp_path: Path):
    with MockOpenAI(models=[ModelSpec(id="m")]) as mock:
        for spec, words in (("nowhere", "does not answer"), (f"{REMOTE}=0", "NAME=N"),
                            (f"{REMOTE},{REMOTE}", "twice")):
            proc = run_cli("agent", "run", "--name", "m", "--base-url", mock.base_url, "--results",
                           str(tmp_path / "r"), "--tasks-dir", str(FIXTURES), "--only", "smoke/hello",
                           "--podman-connection", spec, env=remote_env)
            assert proc.returncode == 2 and words in proc.stderr, (spec, proc.stderr)
    assert not (tmp_path / "r" / "runs").exists()


@pytest.fixture(scope="module")
def remote_host(remote_env):
    host = hosts.open_host(REMOTE, 1, image_name=None, owner=ESCAPE_OWNER,
                           resources=Resources(memory="256m", pids=64, cpus=1), workspace_mb=64)
    yield host
    host.close()


def _space(host: hosts.Host, tmp_path: Path, script_name: str, script: str):
    task = load_task(FIXTURES / "smoke" / "hello", FIXTURES)
    start = tmp_path / "start"
    shutil.copytree(task.workspace_dir, start)
    (start / script_name).write_text(script)
    return task, host.space(task, start, tmp_path / "attempt", 64)


def _relayed_run(host: hosts.Host, space, proxy: ModelProxy, tmp_path: Path, command: list[str],
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    socket_dir, config_dir, _ = space.model(proxy.socket_path, config)
    sandbox = host.sandbox
    argv = sandbox.agent_argv(sandbox.name("agent"), workspace=space.workspace, socket_dir=socket_dir,
                              config_dir=config_dir, command=["node", "/opt/bananabench/bridge.js",
                                                              "/run/model/model.sock", "8080", "--", *command])
    at = argv.index(sandbox.image.name)
    for key, value in (env or {}).items():
        argv[at:at] = ["-e", f"{key}={value}"]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def test_escape_attempts_fail_on_the_remote_host(remote_host, tmp_path: Path):
    import socket
    import threading

    marker = "HIDDEN-VERIFY-MARKER-7f3a"
    host_service = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=lambda: host_service.accept(), daemon=True).start()
    _task, space = _space(remote_host, tmp_path, "probe.py", PROBE)
    try:
        with MockOpenAI(models=[ModelSpec(id="m")]) as mock, \
                ModelProxy(tmp_path / "sock", mock.base_url, "m") as proxy:
            proc = _relayed_run(remote_host, space, proxy, tmp_path, ["python3", "/workspace/probe.py"],
                                {"HOST_PORT": str(host_service.getsockname()[1]), "MARKER": marker})
            seen = [(r.method, r.path) for r in mock.requests]
        out = contained_probe(proc, seen)                # the same guarantees as on this machine
        assert out["uid"] == 1000
        # The workspace is a 64 MiB file system there: filling it stops at the limit, and the attempt sees it.
        fill = remote_host.sandbox.oneshot("fill", remote_host.sandbox.bind(space.workspace, "/workspace", "rw"),
                                           "head -c 200000000 /dev/zero > /workspace/big; echo rc=$?; "
                                           "echo size=$(wc -c < /workspace/big)", timeout_s=120, files=False)
        # A remote podman sends the container's stdout and stderr apart, so head's "No space left on device"
        # may arrive after the lines echoed later: read the two values by name, not by position.
        reported = dict(re.findall(r"^(rc|size)=(\d+)$", fill.text, re.M))
        assert reported.get("rc") == "1" and int(reported.get("size", 1 << 30)) <= 64 << 20, fill.text
        assert space.full()
    finally:
        space.close()
        host_service.close()


def test_proxy_attacks_through_the_relay_cost_this_machine_nothing(remote_host, tmp_path: Path):
    import resource

    _task, space = _space(remote_host, tmp_path, "attacks.py", PROXY_ATTACKS)
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        with MockOpenAI(models=[ModelSpec(id="m")]) as mock, \
                ModelProxy(tmp_path / "sock", mock.base_url, "m") as proxy:
            proc = _relayed_run(remote_host, space, proxy, tmp_path, ["python3", "/workspace/attacks.py"])
            refused = proxy.traffic.refused_connections
    finally:
        space.close()
    line = next((x for x in proc.stdout.splitlines() if x.startswith("PROXY ")), None)
    assert line, proc.stdout + proc.stderr
    out = json.loads(line[len("PROXY "):])
    assert (out["negative"], out["exponent"], out["letters"], out["twice"]) == (400, 400, 400, 400)
    assert (out["huge"], out["chunked"]) == (413, 411)
    assert out["endless_sent_mib"] < 64, out
    assert out["over_budget"] == 503 and out["after"] == 200
    assert out["flood_closed"] >= 60 - 16 and refused >= out["flood_closed"] - 2
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before) / 1024 < 100


def test_fork_and_memory_bombs_are_contained_on_the_remote_host(remote_host, tmp_path: Path):
    _task, space = _space(remote_host, tmp_path, "bombs.py", BOMBS)
    sandbox = remote_host.sandbox
    try:
        fork = sandbox.oneshot("bomb", sandbox.bind(space.workspace, "/workspace"), "python3 /workspace/bombs.py",
                               timeout_s=120)
    finally:
        space.close()
    line = next((x for x in fork.text.splitlines() if x.startswith("BOMBS ")), None)
    assert line, fork.text
    assert json.loads(line[len("BOMBS "):])["fork_stopped_at"] < 64
    memory = sandbox.oneshot("bomb", [], "python3 -c 'x = bytearray(1 << 30); print(len(x))'; echo rc=$?",
                             timeout_s=120)
    assert ("rc=137" in memory.text or "MemoryError" in memory.text) and "1073741824" not in memory.text
    assert sandbox.oneshot("bomb", [], "echo alive", timeout_s=60).text.strip().endswith("alive")
    assert not (Path.cwd() / "oom").exists()                      # podman's OOM marker stays out of the checkout


def test_a_path_of_this_machine_never_reaches_the_remote_host(remote_host, tmp_path: Path):
    from evaluators.core.errors import EvaluationFailure

    with pytest.raises(EvaluationFailure, match="cannot mount"):
        remote_host.sandbox.bind(tmp_path, "/workspace")
