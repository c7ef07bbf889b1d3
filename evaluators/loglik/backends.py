"""The model behind a loglik run: `--backend` names an opener, and what the report says about the model.

The model is reached only through the backend interface (`tokenize`, `bos_token_id`, `max_length`,
`loglikelihood(requests)`, `identity`); `BACKENDS` maps `--backend` names to openers, so other
backends plug in without touching the scoring code.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from evaluators.core.backends.base import Backend
from evaluators.loglik.options import LoglikOptions, check_backend_options

log = logging.getLogger("bananabench")


def _open_hf(opts: LoglikOptions) -> Backend:
    from evaluators.core.backends.hf import HFBackend

    dtype = opts.dtype
    if dtype == "auto":
        import torch

        cuda = opts.device.startswith("cuda") or (opts.device == "auto" and torch.cuda.is_available())
        dtype = "bfloat16" if cuda else "float32"
    backend = HFBackend(opts.model, revision=opts.revision, device=opts.device, dtype=dtype, threads=opts.threads,
                        device_map=opts.device_map)
    backend.configure_loglik(max_contexts=opts.batch_size, token_budget=opts.max_batch_tokens)
    return backend


def _open_gguf(opts: LoglikOptions) -> Backend:
    from evaluators.core.backends.gguf import GGUFBackend

    return GGUFBackend(opts.model, threads=opts.threads, n_gpu_layers=opts.n_gpu_layers, n_ctx=opts.n_ctx)


def _open_server(opts: LoglikOptions) -> Backend:
    from evaluators.core.backends.server_loglik import ServerLoglikBackend

    backend = ServerLoglikBackend(opts.server.discover(opts.name), api_key=opts.server.key(),
                                  concurrency=opts.server.concurrency)
    log.info("%s; log-likelihoods by %s", backend.info.startup_line(), backend.method.replace("_", " "))
    return backend


BACKENDS: dict[str, Callable[[LoglikOptions], Backend]] = {"hf": _open_hf, "gguf": _open_gguf,
                                                           "server": _open_server}


def open_backend(opts: LoglikOptions) -> Backend:
    check_backend_options(opts)
    return BACKENDS[opts.backend](opts)


def default_model_name(model: str) -> str:
    """A leaderboard name from a local folder/file (its name) or a hub id (the id)."""
    path = Path(model)
    if path.exists():
        return path.resolve().name.removesuffix(".gguf")
    return model.strip("/")


def model_info(backend: Backend, name: str) -> dict[str, Any]:
    """The report's `model`: name, source, revision, dtype, weights hash and kind."""
    identity = asdict(backend.identity)
    return {"name": name, "source": identity["source"], "revision": identity.get("revision"),
            "dtype": identity.get("dtype"), "weights_sha256": backend.identity.weights_sha256,
            "kind": identity["kind"]}


def scorer_info(backend: Backend) -> dict[str, Any]:
    """How the backend computes log-likelihoods (batching, kernels), when it says."""
    describe = getattr(backend, "describe_loglik", None)
    return describe() if callable(describe) else {}


def options_record(opts: LoglikOptions) -> dict[str, Any]:
    """The run's options (not part of its signature: they do not change the numbers)."""
    return {"device": opts.device, "device_map": opts.device_map, "dtype": opts.dtype, "threads": opts.threads, "batch_size": opts.batch_size,
            "max_batch_tokens": opts.max_batch_tokens, "n_gpu_layers": opts.n_gpu_layers, "n_ctx": opts.n_ctx,
            "base_url": opts.server.urls() if opts.server.base_url else None, "concurrency": opts.server.concurrency}
