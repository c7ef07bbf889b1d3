"""Run the CLI in a subprocess against a temporary task file."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class TodoEnv:
    def __init__(self, today: str = "2024-05-01"):
        self.dir = tempfile.TemporaryDirectory()
        self.file = Path(self.dir.name) / "todo.json"
        self.today = today

    def run(self, *args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "TODO_FILE": str(self.file), "TODO_TODAY": self.today, "PYTHONPATH": str(ROOT)}
        return subprocess.run([sys.executable, "-m", "todo", *args], capture_output=True, text=True, env=env,
                              cwd=ROOT, timeout=30)

    def close(self) -> None:
        self.dir.cleanup()
