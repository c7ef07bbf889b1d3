"""llama.cpp's OpenAI-compatible server for a GGUF file, in a child process, as a context manager.

`LlamaServer` runs the server shipped in the xllamacpp wheel (no llama-server binary, no compile) via
`models.llamacpp_launcher`. The child watches its stdin, which only this process holds: when we stop it,
or crash, or are killed, it exits too. `exact=True` turns off flash attention and keeps the K/V cache in
float32, which is what log-probability scoring needs to match transformers.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import evaluators
from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.core.http import TRANSIENT_ERRORS, HttpClient, HttpError

log = logging.getLogger("bananabench")

LAUNCHER = "evaluators.models.llamacpp_launcher"


def check_gguf(path: str | os.PathLike) -> Path:
    """The path, if it names a readable GGUF file; else BadInput that says what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise BadInput(f"{path}: no such GGUF file")
    with open(path, "rb") as fh:
        if fh.read(4) != b"GGUF":
            raise BadInput(f"{path}: not a GGUF file (it does not start with the GGUF magic bytes)")
    return path


class LlamaServer:
    """A llama.cpp server for one GGUF model; `with LlamaServer(path) as srv: srv.base_url`.

    `n_ctx` is the total context (split across `parallel` slots, as llama-server does); `port=0` picks
    a free port; `alias` is the model id the API reports (default: the file name, not llama.cpp's full
    path); `threads` sets llama.cpp's CPU threads (use 1 for tiny models: on a busy machine more
    threads spin-wait and run ~10x slower). `extra_args` are further llama.cpp `CommonParams` fields
    as `NAME=VALUE` (dotted for nested ones, e.g. `n_gpu_layers=99`, `sampling.top_k=1`). `log_path`
    keeps the server's log there; by default it goes to a temp file that is removed on stop, after
    its tail has been used in any error message.
    """

    def __init__(self, model_path: str | os.PathLike, *, n_ctx: int = 2048, parallel: int = 1,
                 alias: str | None = None, exact: bool = True, port: int = 0, extra_args: Sequence[str] = (),
                 threads: int | None = None, host: str = "127.0.0.1", startup_timeout: float = 120.0,
                 log_path: str | os.PathLike | None = None, verbose: bool = False):
        self.model_path = check_gguf(model_path).resolve()
        for name, value in (("n_ctx", n_ctx), ("parallel", parallel)):
            if value < 1:
                raise BadInput(f"{name} must be at least 1, got {value}")
        if not 0 <= port <= 65535:
            raise BadInput(f"port must be 0..65535, got {port}")
        for item in extra_args:
            if "=" not in item:
                raise BadInput(f"llama.cpp setting {item!r}: expected NAME=VALUE")
        self.n_ctx, self.parallel, self.exact = n_ctx, parallel, exact
        self.alias = alias or self.model_path.name
        self.port, self.host, self.threads = port, host, threads
        self.extra_args = tuple(extra_args)
        self.startup_timeout = startup_timeout
        self.verbose = verbose
        self._keep_log = log_path is not None
        self.log_path: Path | None = Path(log_path) if log_path is not None else None
        self._proc: subprocess.Popen | None = None
        self._base_url: str | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> LlamaServer:
        if self._proc is not None:
            raise RuntimeError("LlamaServer already started")
        config = {
            "model": str(self.model_path), "n_ctx": self.n_ctx, "parallel": self.parallel, "alias": self.alias,
            "exact": self.exact, "port": self.port, "host": self.host, "threads": self.threads,
            "settings": list(self.extra_args), "verbosity": 3 if self.verbose else 1,
        }
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="llama-server-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
        env = dict(os.environ)
        # OpenMP worker threads spin while idle; on a shared machine that starves the threads that work.
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        root = str(Path(evaluators.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        with open(self.log_path, "ab") as log_fh:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", LAUNCHER, json.dumps(config)], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=log_fh, env=env, close_fds=True,
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        log.debug("llama.cpp server for %s at %s (pid %s)", self.model_path.name, self._base_url, self.pid)
        return self

    def stop(self) -> None:
        """Stop the server (idempotent): close its stdin, then SIGTERM, then SIGKILL if it lingers."""
        proc, self._proc, self._base_url = self._proc, None, None
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            proc.stdout.close()
        if self.log_path is not None and not self._keep_log:
            self.log_path.unlink(missing_ok=True)
            self.log_path = None

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- state -----------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """`http://HOST:PORT` (no trailing slash; the OpenAI-compatible API is under `/v1`)."""
        if self._base_url is None:
            raise RuntimeError("LlamaServer is not running")
        return self._base_url

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def wait(self, timeout: float | None = None) -> int:
        """Block until the server process ends (or `timeout` passes: TimeoutExpired); its exit status."""
        if self._proc is None:
            raise RuntimeError("LlamaServer is not running")
        return self._proc.wait(timeout)

    @property
    def model_name(self) -> str:
        """The model id the API reports (`/v1/models`)."""
        return self.alias

    @property
    def client(self) -> HttpClient:
        """An HTTP client for the server's own API (`/health`, `/props`, `/completion`, `/tokenize`, ...)."""
        return HttpClient(self.base_url)

    # -- internals -------------------------------------------------------------------------------

    def _wait_ready(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        deadline = time.monotonic() + self.startup_timeout
        line = b""
        with selectors.DefaultSelector() as sel:
            sel.register(self._proc.stdout, selectors.EVENT_READ)
            while not line.endswith(b"\n"):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise EvaluationFailure(self._failure(f"did not start within {self.startup_timeout:.0f} s"))
                if not sel.select(timeout=min(remaining, 0.5)):
                    if self._proc.poll() is not None:
                        break
                    continue
                chunk = os.read(self._proc.stdout.fileno(), 4096)
                if not chunk:
                    break
                line += chunk
        if not line.endswith(b"\n"):
            code = self._proc.wait()
            error = BadInput if code == 2 else EvaluationFailure
            raise error(self._failure(f"exited with status {code}"))
        address = json.loads(line)["base_url"].rstrip("/")
        for wildcard in ("0.0.0.0", "[::]"):
            address = address.replace(f"//{wildcard}:", "//127.0.0.1:")
        self._base_url = address
        client = self.client
        while True:
            try:
                if (client.get("/health", timeout=5) or {}).get("status") == "ok":
                    return
            except (*TRANSIENT_ERRORS, HttpError):
                pass
            if time.monotonic() > deadline or self._proc.poll() is not None:
                raise EvaluationFailure(self._failure("never reported healthy on /health"))
            time.sleep(0.05)

    def _failure(self, what: str) -> str:
        tail = ""
        if self.log_path is not None and self.log_path.exists():
            lines = self.log_path.read_text(errors="replace").strip().splitlines()[-5:]
            tail = ("; last log lines: " + " | ".join(lines)) if lines else ""
        return f"llama.cpp server for {self.model_path}: {what}{tail}"
