"""The backend interface: whole request lists in, results out as they finish.

Like lm-eval's `loglikelihood(requests)` / `generate_until(requests)`, a backend sees the
complete list so it can batch, reorder and share work (e.g. score a context once for
all its continuations); it yields `(index, result)` pairs in whatever order it finishes
them, so callers can commit results progressively.
"""

from __future__ import annotations

import abc
import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class ModelIdentity:
    """What exactly was evaluated: recorded on every run, and part of its signature."""

    kind: str  # "hf", "gguf" or "server"
    source: str  # local path, hub repo id, or server base URL
    revision: str | None = None  # hub commit sha, when loaded from the hub
    files_sha256: dict[str, str] = field(default_factory=dict)  # weight/tokenizer file -> SHA-256
    n_params: int | None = None
    dtype: str | None = None
    quantization: str | None = None
    server_fingerprint: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def weights_sha256(self) -> str | None:
        """One hash over every file hash, so two copies of the same weights compare equal."""
        if not self.files_sha256:
            return None
        joined = "\n".join(f"{name}:{digest}" for name, digest in sorted(self.files_sha256.items()))
        return hashlib.sha256(joined.encode()).hexdigest()

    def signature(self) -> dict[str, Any]:
        """The stable part: hashes and settings, not paths (a moved folder is the same model)."""
        sig: dict[str, Any] = {"kind": self.kind, "dtype": self.dtype, "quantization": self.quantization}
        if self.weights_sha256:
            sig["weights_sha256"] = self.weights_sha256
        else:
            sig["source"] = self.source
            sig["revision"] = self.revision
        if self.server_fingerprint:
            sig["server_fingerprint"] = self.server_fingerprint
        return sig

    def as_artifact(self) -> dict[str, Any]:
        """The `runs.artifact` JSON: everything, plus the signature part under `identity`."""
        return {**asdict(self), "weights_sha256": self.weights_sha256, "identity": self.signature()}


@dataclass(frozen=True)
class LoglikRequest:
    """Score `continuation` given `context` (token ids, already tokenized by the caller's rules)."""

    context: tuple[int, ...]
    continuation: tuple[int, ...]


def distinct_requests(requests: Sequence[LoglikRequest]) -> tuple[list[LoglikRequest], list[list[int]]]:
    """Each distinct (context, continuation) once, with the indices of the requests that asked for it.

    Backends score a pair once and hand every asker the same result: identical continuations then get
    identical scores (computed twice in one packed batch they can differ in the last bits, and the later
    one could win a tie the seeds give to the first), and nothing is computed twice.
    """
    index: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    distinct: list[LoglikRequest] = []
    owners: list[list[int]] = []
    for i, req in enumerate(requests):
        key = (tuple(req.context), tuple(req.continuation))
        k = index.setdefault(key, len(distinct))
        if k == len(distinct):
            distinct.append(LoglikRequest(*key))
            owners.append([])
        owners[k].append(i)
    return distinct, owners


@dataclass
class LoglikResult:
    logprob_sum: float
    n_tokens: int
    token_logprobs: list[float] | None = None
    is_greedy: bool | None = None


@dataclass(frozen=True)
class GenerationRequest:
    """One generation: chat `messages` (server applies its template) or a raw `prompt`."""

    messages: tuple[dict[str, Any], ...] | None = None
    prompt: str | None = None
    max_tokens: int = 1024
    temperature: float = 0.0
    top_p: float = 1.0
    stop: tuple[str, ...] = ()
    seed: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class GenerationResult:
    text: str | None  # final answer content (reasoning removed)
    reasoning: str | None = None  # thinking trace, kept for the log, never graded
    finish_reason: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    error: str | None = None  # infrastructure failure: the attempt is an error, not a wrong answer
    raw: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)


class Backend(abc.ABC):
    """A loaded model. Subclasses implement what they support; the rest raise NotImplementedError."""

    identity: ModelIdentity

    def tokenize(self, text: str) -> list[int]:
        """Token ids of `text` without special tokens (the seed's `add_special_tokens=False`)."""
        raise NotImplementedError(f"{type(self).__name__} cannot tokenize")

    @property
    def bos_token_id(self) -> int | None:
        return None

    @property
    def adds_bos(self) -> bool:
        """Whether the model's own tokenizer prepends BOS when asked for special tokens (what lm-eval's HFLM
        does by default, so a run that follows it tokenizes as HFLM does)."""
        return False

    @property
    def official_reasons(self) -> list[str]:
        """Why this backend's numbers cannot count as official (e.g. a server not known to be exact)."""
        return []

    @property
    def max_length(self) -> int | None:
        """The model's context window in tokens, when known."""
        return None

    def loglikelihood(self, requests: Sequence[LoglikRequest]) -> Iterator[tuple[int, LoglikResult]]:
        raise NotImplementedError(f"{type(self).__name__} cannot score log-likelihoods")

    def loglik_units(self, requests: Sequence[LoglikRequest]) -> list[list[int]]:
        """Request indices `loglikelihood` computes together: scored as a separate call, a unit gets the numbers
        it gets within the whole list (how data-parallel ranks share work). Default: one context and all its
        continuations."""
        by_context: dict[tuple[int, ...], list[int]] = {}
        for i, req in enumerate(requests):
            by_context.setdefault(tuple(req.context), []).append(i)
        return list(by_context.values())

    def generate(self, requests: Sequence[GenerationRequest]) -> Iterator[tuple[int, GenerationResult]]:
        raise NotImplementedError(f"{type(self).__name__} cannot generate")

    def close(self) -> None:  # noqa: B027 - optional hook, most backends hold nothing to release
        """Release the model (GPU memory, server connections)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
