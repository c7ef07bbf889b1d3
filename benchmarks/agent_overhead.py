"""The agent runner's own overhead per attempt, measured with the scripted stand-in model.

Runs the smoke fixture task N times through the real runner path (agent container, proxy, bridge,
Pi in RPC mode, diff and verification containers) and, as the naive baseline in the same process,
the same two-request Pi session natively on the host (no container, no proxy) plus the verify
command run natively. Prints one JSON line: medians and the ratios runner / native.

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

from evaluators.agent import datasets, image  # noqa: E402
from evaluators.agent import pi as pi_mod  # noqa: E402
from evaluators.agent import podman as pm  # noqa: E402
from evaluators.agent.attempts.attempt import Upstream, run_attempt  # noqa: E402
from evaluators.agent.sandbox.containers import Sandbox  # noqa: E402
from evaluators.agent.sandbox.limits import Limits  # noqa: E402
from tests.mock_openai import MockOpenAI, ModelSpec, Reply, Rule  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "agent_tasks"


def _rule() -> Rule:
    return Rule(match="hello banana", reply=lambda body: (
        Reply(tool_calls=[{"name": "write", "arguments": {"path": "hello.txt", "content": "hello banana\n"}}])
        if not any(m.get("role") == "tool" for m in body["messages"]) else Reply(content="Done.")))


def native_pi(base_url: str, prompt: str) -> float:
    """The same Pi session on the host: no container, no proxy, no bridge."""
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "agent"
        pi_mod.write_config(config, pi_mod.PiOptions("mock-coder", 65536))
        models = json.loads((config / "models.json").read_text())
        models["providers"][pi_mod.PROVIDER]["baseUrl"] = base_url + "/v1"
        (config / "models.json").write_text(json.dumps(models))
        work = Path(tmp) / "work"
        work.mkdir()
        cli = image.pi_dir() / "node_modules" / image.PI_PACKAGE / "dist" / "cli.js"
        flags = [f if f != "/home/agent/.pi/sessions" else str(Path(tmp) / "sessions") for f in pi_mod.PI_FLAGS]
        env = {**os.environ, "PI_OFFLINE": "1", "PI_CODING_AGENT_DIR": str(config), "HOME": tmp}
        started = time.monotonic()
        proc = subprocess.Popen(["node", str(cli), *flags], cwd=work, env=env, stdin=subprocess.PIPE,
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
        return elapsed


def native_verify(task: datasets.Task) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "w"
        shutil.copytree(task.solution_dir, work)
        shutil.copytree(task.verify_dir, work, dirs_exist_ok=True)
        started = time.monotonic()
        subprocess.run(["sh", "-c", task.verify_cmd], cwd=work, capture_output=True)
        return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5)
    args = parser.parse_args()
    task = datasets.load_task(FIXTURES / "smoke" / "hello", FIXTURES)
    podman = pm.detect()
    img = image.resolve(podman)
    sandbox = Sandbox(podman, img, owner="overhead-bench")
    samples: dict[str, list[float]] = {k: [] for k in (
        "container_start_s", "pi_ready_s", "agent_s", "diff_s", "verify_s", "attempt_wall_s", "native_pi_s",
        "native_verify_s")}
    with MockOpenAI(models=[ModelSpec(id="mock-coder", n_ctx=65536)], rules=[_rule()]) as mock, \
            tempfile.TemporaryDirectory() as tmp:
        for i in range(args.n):
            started = time.monotonic()
            pm.run(podman, *sandbox.base_args(sandbox.name("bench"), "bench"), img.name, "true")
            samples["container_start_s"].append(time.monotonic() - started)
            result = run_attempt(sandbox, task, task.workspace_dir, Path(tmp) / f"a{i}",
                                 upstream=Upstream(mock.base_url, "mock-coder"),
                                 pi_options=pi_mod.PiOptions("mock-coder", 65536), limits=Limits(),
                                 keep_workspace=False, cancel=threading.Event())
            assert result.status == "passed", result
            for key in ("pi_ready_s", "agent_s", "diff_s", "verify_s"):
                samples[key].append(result.metrics[key])
            samples["attempt_wall_s"].append(result.wall_s)
            samples["native_pi_s"].append(native_pi(mock.base_url, task.prompt))
            samples["native_verify_s"].append(native_verify(task))
    med = {k: round(statistics.median(v), 3) for k, v in samples.items()}
    print(json.dumps({
        "benchmark": "agent_overhead", "n": args.n, **med,
        "attempt_over_native_pi": round(med["attempt_wall_s"] / med["native_pi_s"], 2),
        "agent_phase_over_native_pi": round(med["agent_s"] / med["native_pi_s"], 2),
        "verify_over_native": round(med["verify_s"] / max(med["native_verify_s"], 1e-3), 1),
        "runner_overhead_s": round(med["attempt_wall_s"] - med["native_pi_s"], 3),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
