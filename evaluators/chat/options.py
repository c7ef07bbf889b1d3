"""What `bananabench chat run` (and `evaluators.api.run_chat`) takes: which tasks, which server, how to ask."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evaluators.core.http import RetryPolicy
from evaluators.models.backends.discovery import ServerOptions


@dataclass
class ChatOptions:
    """Everything `bananabench chat run` accepts (see its --help)."""

    tasks: list[str]
    name: str | None = None
    results: str | None = None
    data: str | None = None
    limit: int | None = None
    resume: bool = False
    server: ServerOptions = field(default_factory=ServerOptions)
    fold_system: bool | None = None  # None: fold when the server's chat template has no system role
    max_tokens: dict[str, int] = field(default_factory=dict)  # task -> budget; missing: the task default
    extra_body: dict[str, Any] = field(default_factory=dict)
    stream: bool = True
    retries: int = 5  # attempts per request on transient failures
    retry_wait: float = 1.0  # first backoff, doubling
    timeout: float = 600.0  # give up on a request after this many seconds without data

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(attempts=self.retries, base_s=self.retry_wait, max_s=max(30.0, self.retry_wait))
