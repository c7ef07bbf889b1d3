"""transformers backend: load a local folder or a Hub id, on CPU or CUDA, and say exactly what was loaded.

Scoring (`loglikelihood`) and sampling (`generate`) are added by the evaluators that need them
(`backends/hf_loglik.py`, ...); this module owns loading, tokenization and identity. torch and transformers
are imported inside the constructor, so importing this module stays cheap.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from evaluators.core import data
from evaluators.core.errors import BadInput
from evaluators.models.backends.base import (
    Backend,
    GenerationRequest,
    GenerationResult,
    LoglikRequest,
    LoglikResult,
    ModelIdentity,
)

log = logging.getLogger("bananabench")

DTYPES = ("float32", "bfloat16", "float16")
DEVICES = ("auto", "cpu", "cuda")
# What a causal LM needs from a Hub repo (no other frameworks' weights, no remote code).
HUB_PATTERNS = ("*.json", "*.safetensors", "*.jinja", "*.model", "*.tiktoken", "*.txt")
HUB_FALLBACK_WEIGHTS = ("pytorch_model*.bin",)
# Files whose bytes define the model's behaviour: hashed into its identity.
IDENTITY_PATTERNS = (
    "*.safetensors", "pytorch_model*.bin", "config.json", "generation_config.json", "tokenizer.json",
    "tokenizer_config.json", "tokenizer.model", "special_tokens_map.json", "added_tokens.json", "vocab.json",
    "vocab.txt", "merges.txt", "*.tiktoken", "chat_template.jinja", "chat_template.json",
)
_MAX_LENGTH_KEYS = ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length", "n_ctx")


class HFBackend(Backend):
    """A causal LM loaded with transformers. `model` is a local folder or a Hub repo id (`owner/name`).

    `revision` (Hub ids only) is a branch, tag or commit; the commit it resolved to is recorded in the
    identity. `device` is `cpu`, `cuda` (or `cuda:N`) or `auto` (CUDA when available); `dtype` one of
    float32, bfloat16, float16; `threads` sets torch's CPU threads. `device_map="auto"` lets accelerate
    spread the layers over every visible GPU (a model too large for one), in this one process.
    """

    def __init__(self, model: str | os.PathLike, *, revision: str | None = None, device: str = "auto",
                 dtype: str = "float32", threads: int | None = None, device_map: str | None = None):
        if dtype not in DTYPES:
            raise BadInput(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
        if device.split(":")[0] not in DEVICES:
            raise BadInput(f"device must be cpu, cuda, cuda:N or auto, got {device!r}")
        if threads is not None and threads < 1:
            raise BadInput(f"threads must be at least 1, got {threads}")
        self.folder, source, resolved = _locate(str(model), revision)
        if not (self.folder / "config.json").is_file():
            raise BadInput(f"{model}: no config.json, so not a transformers model folder")

        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if threads is not None:
            torch.set_num_threads(threads)
        if device_map is not None and device not in ("auto", "cuda"):
            raise BadInput(f"device_map={device_map!r} places the layers itself; give device auto or cuda, not {device}")
        self.device = _pick_device(device, torch)
        self.dtype = dtype
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(self.folder)
            self.model = AutoModelForCausalLM.from_pretrained(
                self.folder, dtype=getattr(torch, dtype), **({"device_map": device_map} if device_map else {}))
        except (OSError, ValueError, KeyError) as exc:
            raise BadInput(f"{model}: transformers cannot load it: {str(exc).splitlines()[0]}") from None
        if device_map:
            self.device = self.model.get_input_embeddings().weight.device
        else:
            self.model.to(self.device)
        self.model.eval()
        self.config = self.model.config
        placed = sorted({str(d) for d in (getattr(self.model, "hf_device_map", None) or {}).values()})
        self.identity = ModelIdentity(
            kind="hf", source=source, revision=resolved,
            files_sha256=data.files_sha256(self.folder, IDENTITY_PATTERNS),
            n_params=sum(p.numel() for p in self.model.parameters()), dtype=dtype,
            extra={"device": ",".join(placed) or str(self.device),
                   "architecture": (self.config.architectures or [None])[0], "folder": str(self.folder)},
        )
        log.debug("loaded %s (%s, %s, %d parameters)", source, self.device, dtype, self.identity.n_params)

    def tokenize(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    @property
    def bos_token_id(self) -> int | None:
        return self.tokenizer.bos_token_id

    @property
    def adds_bos(self) -> bool:
        """Whether `tokenizer(text)` (special tokens on, as HFLM calls it) starts with BOS where the bare text does not."""
        bos = self.tokenizer.bos_token_id
        with_special, bare = list(self.tokenizer("a")["input_ids"]), self.tokenize("a")
        return bos is not None and with_special[:1] == [bos] and bare[:1] != [bos]

    @property
    def max_length(self) -> int | None:
        for key in _MAX_LENGTH_KEYS:
            value = getattr(self.config, key, None)
            if isinstance(value, int) and value > 0:
                return value
        limit = getattr(self.tokenizer, "model_max_length", None)
        return limit if isinstance(limit, int) and 0 < limit < 10**9 else None

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[tuple[int, GenerationResult]]:
        """Seeded sampling, one request at a time (see `hf_generate`)."""
        from evaluators.models.backends.hf_generate import sample

        return sample(self.model, self.tokenizer, requests, device=str(self.device), max_length=self.max_length)

    # -- log-likelihood scoring (backends/hf_loglik.py) -------------------------------------------

    def configure_loglik(self, *, max_contexts: int | None = 8, token_budget: int | None = None,
                         torch_log_softmax: bool = False) -> None:
        """Batching for `loglikelihood`: at most `max_contexts` contexts and `token_budget` tokens per step;
        `torch_log_softmax` normalises as lm-eval's HFLM does (see `hf_loglik`)."""
        from evaluators.models.backends.hf_loglik import PackedScorer

        self._loglik = PackedScorer(self.model, max_contexts=max_contexts, token_budget=token_budget,
                                    torch_log_softmax=torch_log_softmax)

    def loglikelihood(self, requests: Sequence[LoglikRequest]) -> Iterator[tuple[int, LoglikResult]]:
        """Exact continuation log-probs, each context computed once (see `hf_loglik.PackedScorer`)."""
        if getattr(self, "_loglik", None) is None:
            self.configure_loglik()
        return self._loglik.score(requests)

    def loglik_units(self, requests: Sequence[LoglikRequest]) -> list[list[int]]:
        """The batches `loglikelihood` would run (see `hf_loglik.PackedScorer.plan`)."""
        if getattr(self, "_loglik", None) is None:
            self.configure_loglik()
        return self._loglik.plan(requests)

    def describe_loglik(self) -> dict[str, Any]:
        """How `loglikelihood` computed its scores (path taken, budget after any out-of-memory backoff)."""
        scorer = getattr(self, "_loglik", None)
        return scorer.describe() if scorer is not None else {}

    def close(self) -> None:
        self._loglik = None
        model = self.__dict__.pop("model", None)
        if model is not None and str(self.device).startswith("cuda"):
            import torch

            del model
            torch.cuda.empty_cache()


def _locate(model: str, revision: str | None) -> tuple[Path, str, str | None]:
    """(local folder, source to record, resolved commit) for a folder or a Hub id."""
    path = Path(model).expanduser()
    if path.is_dir():
        if revision:
            raise BadInput(f"{model}: --revision applies to Hub repo ids, not to a local folder")
        return path.resolve(), str(path.resolve()), None
    if path.exists():
        raise BadInput(f"{model}: is a file; give the model's folder (or a Hub repo id)")
    if not data.is_repo_id(model):
        raise BadInput(f"{model}: no such model folder, and not a Hub repo id (owner/name)")
    try:
        folder, commit = data.snapshot(model, revision=revision, allow_patterns=HUB_PATTERNS)
    except BadInput as exc:
        raise BadInput(f"{exc} (and there is no local folder {model!r})") from None
    if not any(folder.glob("*.safetensors")):
        folder, commit = data.snapshot(model, revision=commit, allow_patterns=HUB_FALLBACK_WEIGHTS)
    return folder, model, commit


def _pick_device(device: str, torch: Any) -> Any:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise BadInput(f"device {device!r} asked for, but torch sees no CUDA device here")
    return torch.device(device)
