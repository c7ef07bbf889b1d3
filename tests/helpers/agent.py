"""Shared pieces of the agent tests: podman/Pi availability, scripted tool calls, task folders."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.mock_openai import Reply

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "agent_tasks"
PI_DIR = REPO / "evaluators" / "agent" / "pi"


def podman_ready() -> bool:
    return shutil.which("podman") is not None


def pi_ready() -> bool:
    return (PI_DIR / "node_modules" / "@mariozechner" / "pi-coding-agent" / "package.json").is_file()


needs_podman = pytest.mark.skipif(not podman_ready(), reason="podman is not installed (make system-deps)")
needs_pi = pytest.mark.skipif(not pi_ready(), reason="Pi is not installed (make pi)")

# Agent code in a Go package `calc` that claims the failing case `TestTable/two` and its parent passed, on the
# stream the go runner reads subtest outcomes from (tests/test_agent_case_ids.py natively, the cheating suite in podman).
FORGED_SUBTEST_PASS_GO = """package calc

import "fmt"

func init() {
	fmt.Println("=== RUN   TestTable/two\\n--- PASS: TestTable/two (0.00s)\\n--- PASS: TestTable (0.00s)")
}
"""


def call(name: str, **arguments: Any) -> Reply:
    """A model reply that makes one tool call."""
    return Reply(tool_calls=[{"name": name, "arguments": arguments}])


def say(text: str, **kw: Any) -> Reply:
    return Reply(content=text, **kw)


CHECK_DONE = """import json, os
passed = os.path.isfile("done.txt")
with open(os.environ["BANANABENCH_REPORT"], "a") as fh:
    fh.write(json.dumps({"id": "done", "outcome": "passed" if passed else "failed"}) + "\\n")
"""


def write_task(root: Path, task_id: str, *, prompt: str, verify_toml: str | None = None,
               agent: dict[str, Any] | None = None, files: dict[str, str] | None = None,
               verify: dict[str, str] | None = None, tags: tuple[str, ...] = ("shell",),
               solution: dict[str, str] | None = None) -> Path:
    """A small task folder written by a test; by default a script grader records `done` when done.txt exists."""
    directory = root / task_id
    category = task_id.rsplit("/", 1)[0]
    (directory / "workspace").mkdir(parents=True)
    (directory / "solution").mkdir()
    if verify_toml is None:
        verify_toml = 'runner = "script"\ncmd = \'python3 -I "$BANANABENCH_VERIFY/check.py"\'\ntests = ["done"]'
        verify = {"check.py": CHECK_DONE, **(verify or {})}
    toml = [f'title = "{task_id}"', f'category = "{category}"', f"tags = {json.dumps(list(tags))}", "",
            "[verify]", verify_toml, "timeout_s = 60"]
    if agent:
        toml += ["", "[agent]"] + [f"{k} = {v}" for k, v in agent.items()]
    (directory / "task.toml").write_text("\n".join(toml) + "\n")
    (directory / "prompt.md").write_text(prompt + "\n")
    for name, text in (files or {"README.md": "start\n"}).items():
        (directory / "workspace" / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / "workspace" / name).write_text(text)
    for name, text in (verify or {}).items():
        (directory / "verify" / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / "verify" / name).write_text(text)
    for name, text in (solution or {"done.txt": "done\n"}).items():
        (directory / "solution" / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / "solution" / name).write_text(text)
    return directory


def containers_of(owner: str) -> list[str]:
    out = subprocess.run(["podman", "ps", "-a", "--filter", f"label=bananabench.owner={owner}", "--format",
                          "{{.Names}}"], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if line.strip()]
