"""The agent runner's own overhead per attempt, measured with the scripted stand-in model.

Runs the smoke fixture task N times through the real runner path (agent container, proxy, bridge,
Pi in RPC mode, diff and verification containers) and, as the naive baseline in the same process,
the same two-request Pi session natively on the host (no container, no proxy) plus the verify
command run natively (the same verification driver, on the reference solution). Both sides start
the same Pi script, the bundle or Pi's own cli.js as `Image.pi_entry` decides (`pi_entry` in the
output). Prints one JSON line: medians and the ratios runner / native.

usage: PYTHONPATH=. python benchmarks/agent_overhead.py [--n 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evaluators.agent.attempts.attempt import Upstream, run_attempt  # noqa: E402
from evaluators.agent.corpus import datasets, repos  # noqa: E402
from evaluators.agent.grading.verification import verify_native  # noqa: E402
from evaluators.agent.sandbox import hosts, image  # noqa: E402
from evaluators.agent.sandbox import pi as pi_mod  # noqa: E402
from evaluators.agent.sandbox import podman as pm  # noqa: E402
from evaluators.agent.sandbox.containers import Resources  # noqa: E402
from evaluators.agent.sandbox.limits import Limits  # noqa: E402
from evaluators.models.backends.replicas import ReplicaSet  # noqa: E402
from tests.mock_openai import MockOpenAI, ModelSpec, Reply, Rule  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "agent_tasks"


def _rule() -> Rule:
    return Rule(match="hello banana", reply=lambda body: (
        Reply(tool_calls=[{"name": "write", "arguments": {"path": "hello.txt", "content": "hello banana\n"}}])
        if not any(m.get("role") == "tool" for m in body["messages"]) else Reply(content="Done.")))


def pi_entry(img: image.Image) -> Path:
    """This machine's copy of the script the agent containers start Pi with (`Image.pi_entry`, under PI_MOUNT):
    the bundle, or Pi's own cli.js, so both sides start the same code."""
    return Path(img.pi_dir or image.pi_dir()) / Path(img.pi_entry).relative_to(image.PI_MOUNT)


def native_pi(entry: Path, options: pi_mod.PiOptions, base_url: str, prompt: str) -> float:
    """The same Pi session on the host: no container, no proxy, no bridge."""
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "agent"
        pi_mod.write_config(config, options)
        models = json.loads((config / "models.json").read_text())
        models["providers"][pi_mod.PROVIDER]["baseUrl"] = base_url + "/v1"
        (config / "models.json").write_text(json.dumps(models))
        work = Path(tmp) / "work"
        work.mkdir()
        flags = [f if f != "/home/agent/.pi/sessions" else str(Path(tmp) / "sessions") for f in pi_mod.PI_FLAGS]
        env = {**os.environ, "PI_OFFLINE": "1", "PI_CODING_AGENT_DIR": str(config), "HOME": tmp}
        started = time.monotonic()
        proc = subprocess.Popen(["node", str(entry), *flags], cwd=work, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert proc.stdin and proc.stdout
        proc.stdin.write(json.dumps({"type": "prompt", "message": prompt}) + "\n")
        proc.stdin.flush()
        for line in proc.stdout:
            if '"type":"agent_end"' in line.replace(" ", ""):
                break
        elapsed = time.monotonic() - started
        proc.stdin.close()
        proc.wait(timeout=30)
        assert (work / "hello.txt").read_text() == "hello banana\n", "the native Pi session did not write hello.txt"
        return elapsed


def native_verify(task: datasets.Task) -> float:
    """The same verification driver on the host (`agent validate --native`), on the reference solution."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "w"
        shutil.copytree(task.workspace_dir, work)
        repos.apply_solution(task, work)
        run = verify_native(task, work, task.workspace_dir, Path(tmp) / "stage")
        assert run.verdict.passed, run.log
        return run.seconds


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5, help="attempts (and native runs) to take the medians of")
    args = parser.parse_args()
    task = datasets.load_task(FIXTURES / "smoke" / "hello", FIXTURES)
    options, limits = pi_mod.PiOptions("mock-coder", 65536), Limits()
    host = hosts.open_host(hosts.LOCAL, 1, image_name=None, owner="overhead-bench", resources=Resources(),
                           workspace_mb=limits.workspace_mb)
    sandbox, img = host.sandbox, host.sandbox.image
    entry = pi_entry(img)
    samples: dict[str, list[float]] = {k: [] for k in (
        "container_start_s", "pi_ready_s", "agent_s", "diff_s", "verify_s", "attempt_wall_s", "native_pi_s",
        "native_verify_s")}
    with MockOpenAI(models=[ModelSpec(id="mock-coder", n_ctx=65536)], rules=[_rule()]) as mock, \
            tempfile.TemporaryDirectory() as tmp:
        upstream = Upstream(ReplicaSet([mock.base_url], slots=1), "mock-coder")
        for i in range(args.n):
            started = time.monotonic()
            pm.run(sandbox.podman, *sandbox.base_args(sandbox.name("bench"), "bench"), img.name, "true")
            samples["container_start_s"].append(time.monotonic() - started)
            result = run_attempt(host, task, task.workspace_dir.resolve(), Path(tmp) / f"a{i}", upstream=upstream,
                                 pi_options=options, limits=limits, keep_workspace=False, cancel=threading.Event())
            assert result.status == "passed", result
            for key in ("pi_ready_s", "agent_s", "diff_s", "verify_s"):
                samples[key].append(result.metrics[key])
            samples["attempt_wall_s"].append(result.wall_s)
            samples["native_pi_s"].append(native_pi(entry, options, mock.base_url, task.prompt))
            samples["native_verify_s"].append(native_verify(task))
    med = {k: round(statistics.median(v), 3) for k, v in samples.items()}
    print(json.dumps({
        "benchmark": "agent_overhead", "n": args.n, "image": img.kind,
        "pi_entry": "bundle" if img.pi_bundled else "cli.js", **med,
        "attempt_over_native_pi": round(med["attempt_wall_s"] / med["native_pi_s"], 2),
        "agent_phase_over_native_pi": round(med["agent_s"] / med["native_pi_s"], 2),
        "verify_over_native": round(med["verify_s"] / max(med["native_verify_s"], 1e-3), 1),
        "runner_overhead_s": round(med["attempt_wall_s"] - med["native_pi_s"], 3),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
