"""Opening the backend a `--backend hf|gguf|server` flag names, from the flags `loglik run` and `lm-eval` share.

Both commands take the same model flags (`--model`, `--device`, `--dtype`, `--revision`, `--threads`,
`--batch-size`, `--n-gpu-layers`, `--n-ctx` and the server group) under the same names, so one opener serves
both and a flag means the same thing in each.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from evaluators.models.backends.base import Backend
from evaluators.models.backends.discovery import ServerOptions

log = logging.getLogger("bananabench")

BACKEND_NAMES = ("hf", "gguf", "server")


class BackendFlags(Protocol):
    """The option fields an opener reads (`LoglikOptions` and `LmEvalOptions` both have them)."""

    backend: str
    model: str | None
    name: str | None
    device: str
    dtype: str
    revision: str | None
    threads: int | None
    batch_size: int | None
    n_gpu_layers: int
    n_ctx: int | None
    server: ServerOptions


def open_backend(opts: BackendFlags, *, device_map: str | None = None, **hf_scoring: Any) -> Backend:
    """The backend `opts.backend` names; `device_map` and `hf_scoring` (`HFBackend.configure_loglik`'s token
    budget, log-softmax) apply to hf only."""
    if opts.backend == "hf":
        return _open_hf(opts, device_map, hf_scoring)
    if opts.backend == "gguf":
        from evaluators.models.backends.gguf import GGUFBackend

        return GGUFBackend(opts.model, threads=opts.threads, n_gpu_layers=opts.n_gpu_layers, n_ctx=opts.n_ctx)
    from evaluators.models.backends.server_loglik import ServerLoglikBackend

    backend = ServerLoglikBackend(opts.server.discover(opts.name), api_key=opts.server.key(),
                                  concurrency=opts.server.concurrency)
    log.info("%s; log-likelihoods by %s", backend.info.startup_line(), backend.method.replace("_", " "))
    return backend


def _open_hf(opts: BackendFlags, device_map: str | None, scoring: dict[str, Any]) -> Backend:
    """`--dtype auto` is bfloat16 on a GPU and float32 on CPU (where bfloat16 is slow and inexact)."""
    from evaluators.models.backends.hf import HFBackend

    dtype = opts.dtype
    if dtype == "auto":
        import torch

        cuda = opts.device.startswith("cuda") or (opts.device == "auto" and torch.cuda.is_available())
        dtype = "bfloat16" if cuda else "float32"
    backend = HFBackend(opts.model, revision=opts.revision, device=opts.device, dtype=dtype, threads=opts.threads,
                        device_map=device_map)
    backend.configure_loglik(max_contexts=opts.batch_size, **scoring)
    return backend
