"""What `bananabench loglik run` (and `evaluators.api.run_loglik`) takes, and which flags fit which backend."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from evaluators.core.errors import BadInput
from evaluators.models.backends.discovery import ServerOptions
from evaluators.models.backends.opening import BACKEND_NAMES

# Flags that mean something to some backends only: given to another one, they are an error, not ignored.
BACKEND_FLAGS = {"model": ("hf", "gguf"), "device": ("hf",), "device_map": ("hf",), "dtype": ("hf",), "revision": ("hf",),
                 "batch_size": ("hf",), "max_batch_tokens": ("hf",), "n_gpu_layers": ("gguf",), "n_ctx": ("gguf",),
                 **{f"server.{f.name}": ("server",) for f in dataclasses.fields(ServerOptions)}}


@dataclass
class LoglikOptions:
    """Everything `bananabench loglik run` accepts (see its --help)."""

    bench: str
    model: str | None = None  # hf: hub id or folder; gguf: the file
    name: str | None = None
    backend: str = "hf"
    device: str = "auto"
    device_map: str | None = None  # hf: "auto" spreads one model over every visible GPU (accelerate)
    dtype: str = "auto"
    threads: int | None = None
    batch_size: int | None = 8
    max_batch_tokens: int | None = None
    add_bos: bool = False
    data: str | None = None
    out_dir: str | None = None
    resume: bool = False
    limit: int | None = None
    results: str | None = None
    revision: str | None = None
    data_revision: str | None = None
    n_gpu_layers: int = 0
    n_ctx: int | None = None
    server: ServerOptions = field(default_factory=ServerOptions)


def _value(opts: object, dotted: str) -> object:
    for part in dotted.split("."):
        opts = getattr(opts, part)
    return opts


def check_backend_options(opts: LoglikOptions) -> None:
    """BadInput for an unknown backend, a flag it would ignore, or a missing --model / --base-url."""
    if opts.backend not in BACKEND_NAMES:
        raise BadInput(f"--backend must be one of {', '.join(BACKEND_NAMES)}, not {opts.backend!r}")
    defaults = LoglikOptions(bench="")
    for name, backends in BACKEND_FLAGS.items():
        if opts.backend not in backends and _value(opts, name) != _value(defaults, name):
            flag = name.removeprefix("server.").replace("_", "-")
            raise BadInput(f"--{flag} applies to --backend {' or '.join(backends)}, not {opts.backend}")
    if opts.backend == "server" and not opts.server.base_url:
        raise BadInput("--backend server needs --base-url (the server, e.g. http://127.0.0.1:8080)")
    if opts.backend != "server" and not opts.model:
        raise BadInput(f"--backend {opts.backend} needs --model")
    if opts.batch_size is not None and opts.batch_size < 1:
        raise BadInput("--batch-size must be a positive integer")
    if opts.device_map not in (None, "auto"):
        raise BadInput(f"--device-map takes auto, not {opts.device_map!r}")


def check_data_parallel(opts: LoglikOptions) -> None:
    """Under torchrun with several processes: what cannot be shared out is refused (BadInput) on every rank."""
    if opts.backend == "server":
        raise BadInput("--backend server does not run under torchrun: the server does the work; give it more "
                       "slots, or give --base-url several times (several servers)")
    if opts.device_map:
        raise BadInput("--device-map auto spreads one model over all GPUs in one process; torchrun runs one copy "
                       "per GPU. Use one or the other (README: Scaling out)")
    if opts.n_gpu_layers:
        raise BadInput("--n-gpu-layers under torchrun: the gguf backend's ranks run on CPU (each gets a share of "
                       "the cores); use --backend hf for one model copy per GPU")
