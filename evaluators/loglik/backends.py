"""The model behind a loglik run: `--backend` names an opener, and what the report says about the model.

The model is reached only through the backend interface (`tokenize`, `bos_token_id`, `max_length`,
`loglikelihood(requests)`, `identity`); `models.backends.opening` opens the one `--backend` names, so other
backends plug in without touching the scoring code.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from evaluators.loglik.options import LoglikOptions, check_backend_options
from evaluators.models.backends.base import Backend
from evaluators.models.backends.opening import open_backend as open_named


def open_backend(opts: LoglikOptions) -> Backend:
    check_backend_options(opts)
    return open_named(opts, device_map=opts.device_map, token_budget=opts.max_batch_tokens)


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
