"""What `bananabench lm-eval` takes, and the backend each `--backend` opens (the loglik backends, the same flags)."""

from __future__ import annotations

from dataclasses import dataclass, field

from evaluators.core.errors import BadInput
from evaluators.models.backends.base import Backend
from evaluators.models.backends.discovery import ServerOptions
from evaluators.models.backends.opening import BACKEND_NAMES, open_backend

BACKEND_FLAGS = {"model": ("hf", "gguf"), "device": ("hf",), "dtype": ("hf",), "revision": ("hf",),
                 "batch_size": ("hf",), "n_gpu_layers": ("gguf",), "n_ctx": ("gguf",)}


@dataclass
class LmEvalOptions:
    """Everything `bananabench lm-eval` accepts (see its --help)."""

    tasks: str
    model: str | None = None
    name: str | None = None
    backend: str = "hf"
    device: str = "auto"
    dtype: str = "auto"
    revision: str | None = None
    threads: int | None = None
    batch_size: int = 8
    n_gpu_layers: int = 0
    n_ctx: int | None = None
    add_bos: bool | None = None  # None: as lm-eval's HFLM, the model's own tokenizer default
    num_fewshot: int | None = None
    limit: float | None = None
    include_path: str | None = None
    output_path: str | None = None
    fewshot_seed: int = 1234  # lm-eval's default few-shot sampler seed
    results: str | None = None
    resume: bool = False
    server: ServerOptions = field(default_factory=ServerOptions)

    def task_names(self) -> list[str]:
        names = [t.strip() for t in self.tasks.split(",") if t.strip()]
        if not names:
            raise BadInput("--tasks: name at least one lm-eval task")
        return names

    def check(self) -> None:
        """BadInput for an unknown backend, a flag it would ignore, or a missing --model / --base-url."""
        if self.backend not in BACKEND_NAMES:
            raise BadInput(f"--backend must be one of {', '.join(BACKEND_NAMES)}, not {self.backend!r}")
        defaults = LmEvalOptions(tasks="")
        for name, backends in BACKEND_FLAGS.items():
            if self.backend not in backends and getattr(self, name) != getattr(defaults, name):
                raise BadInput(f"--{name.replace('_', '-')} applies to --backend {' or '.join(backends)}, "
                               f"not {self.backend}")
        if self.backend == "server":
            self.server.check()
        elif not self.model:
            raise BadInput(f"--backend {self.backend} needs --model")
        elif self.server.base_url:
            raise BadInput(f"--base-url applies to --backend server, not {self.backend}")
        if self.num_fewshot is not None and self.num_fewshot < 0:
            raise BadInput("--num_fewshot must be 0 or more")
        if self.limit is not None and self.limit <= 0:
            raise BadInput("--limit must be positive (a count, or a fraction below 1)")
        self.task_names()


def open_scorer(opts: LmEvalOptions) -> Backend:
    """The backend that computes log-likelihoods; hf normalises with `torch.log_softmax` as HFLM does, so its
    numbers are HFLM's (see `models.backends.hf_loglik`)."""
    return open_backend(opts, torch_log_softmax=True)


def generator(opts: LmEvalOptions, scorer: Backend):
    """How `generate_until` tasks generate: the hf model itself, the server's completions; none for gguf."""
    if opts.backend == "hf":
        return lambda: scorer
    if opts.backend == "server":
        def connect() -> Backend:
            from evaluators.models.backends.server import ServerBackend

            return ServerBackend(opts.server.discover(opts.name), api_key=opts.server.key(),
                                 concurrency=opts.server.concurrency)
        return connect
    return None
