"""Exact log-likelihoods from an OpenAI-compatible server, or a refusal that says why.

Two ways to get a continuation's conditional log-probs over HTTP, tried in this order:

* **echo**: `/v1/completions` with `echo: true, logprobs: 1` and the prompt as token ids; servers such as
  vLLM return one log-prob per prompt token (`logprobs.token_logprobs`). Every response passes a hard
  sanity gate (one finite log-prob <= 0 per prompt token, not all equal, not all zero) or the run stops.
* **teacher forcing** (llama.cpp's server, which ignores `echo`): for each continuation token one
  `/completion` request whose prompt is the token ids so far, asking for the next-token distribution
  (`n_probs`) and reading the target token's log-prob from it. Each worker pins one server slot
  (`id_slot`) with `cache_prompt`, so a step re-uses the cached prefix and costs about one token.
  Tokens that are incomplete UTF-8 on their own are banned from *sampling* via `logit_bias` (the server
  otherwise merges or drops their probability entries); a calibration request proves the reported
  distribution is the model's own (banned tokens keep their finite log-probs, the whole vocabulary
  sums to 1), and each step checks the target's entry is present and finite.

A server offering neither is refused (exit 3). No score is ever computed from a missing or
placeholder log-prob.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from evaluators.core.backends.base import Backend, LoglikRequest, LoglikResult
from evaluators.core.backends.discovery import ServerInfo, ServerUnavailable, discover, model_entries
from evaluators.core.errors import EvaluationFailure
from evaluators.core.http import TRANSIENT_ERRORS, HttpClient, HttpError, RetryPolicy, describe_error

log = logging.getLogger("bananabench.server")

PROBE_TEXT = "The quick brown fox jumps over the lazy dog. 1, 2, 3"
N_PROBS_STEPS = (32, 1024)  # most targets are among the top few; then widen, finally the whole vocabulary
POSITIVE_SLACK = 1e-6  # float rounding can put a log-prob of ~1.0 probability a hair above 0
SUM_TOLERANCE = 1e-3


@dataclass
class _Seen:
    """A next-token distribution already fetched: how wide (n_probs), its entries, its argmax."""

    n_probs: int
    found: dict[int, float]
    best: int


class _Stopped(Exception):
    """A worker noticed the caller stopped reading results; its partial item is discarded."""


class Refused(EvaluationFailure):
    """The server cannot give exact log-likelihoods (exit 3): the message says what it returned."""


@dataclass
class Reply:
    """One HTTP answer as data: refusals quote what the server actually said."""

    status: int
    body: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300 and isinstance(self.body, dict)

    def describe(self) -> str:
        text = self.body if isinstance(self.body, str) else json.dumps(self.body)
        return f"HTTP {self.status}: {text[:300]}"


def call(client: HttpClient, method: str, path: str, body: Any = None, *, timeout: float,
         retry: RetryPolicy) -> Reply:
    """A JSON request; transient failures are retried, a server that stays away raises ServerUnavailable."""
    try:
        return Reply(200, retry.call(lambda: client.request_json(method, path, body, timeout=timeout)))
    except HttpError as exc:
        return Reply(exc.status, exc.message)
    except TRANSIENT_ERRORS as exc:
        raise ServerUnavailable(f"{client.base_url}{path}: {describe_error(exc)}") from exc


def check_prompt_logprobs(values: Any, n_prompt: int) -> list[float]:
    """The sanity gate for echoed prompt log-probs; returns the n_prompt values (first is None) or raises.

    Refuses: a missing list, fewer entries than prompt tokens, a non-number, NaN/inf or positive value
    after the first token, all values equal (a constant placeholder), or all exactly zero.
    """
    if not isinstance(values, list):
        raise Refused(f"no prompt log-probs (logprobs.token_logprobs is {type(values).__name__})")
    if len(values) < n_prompt:
        raise Refused(f"{len(values)} prompt log-probs for {n_prompt} prompt tokens")
    body = values[1:n_prompt]
    for k, v in enumerate(body, start=1):
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise Refused(f"prompt log-prob {k} is {v!r}, not a number")
        if not math.isfinite(v) or v > POSITIVE_SLACK:
            raise Refused(f"prompt log-prob {k} is {v!r}: not a finite value <= 0")
    if body and all(v == 0 for v in body):
        raise Refused(f"all {len(body)} prompt log-probs are exactly 0 (placeholders)")
    if len(body) >= 2 and len(set(body)) == 1:
        raise Refused(f"all {len(body)} prompt log-probs equal {body[0]!r} (placeholders)")
    return [None, *map(float, body)]


def _top_logprobs(body: Any) -> list[dict[str, Any]] | None:
    """The next-token distribution from a llama.cpp `/completion` reply (or None if absent)."""
    if not isinstance(body, dict):
        return None
    probs = body.get("completion_probabilities")
    if not isinstance(probs, list) or not probs or not isinstance(probs[0], dict):
        return None
    top = probs[0].get("top_logprobs")
    if not isinstance(top, list) or not top:
        return None
    return top


def _entry(e: Any) -> tuple[int, float] | None:
    """(token id, log-prob) from one distribution entry, or None when malformed."""
    if not isinstance(e, dict) or isinstance(e.get("id"), bool) or not isinstance(e.get("id"), int):
        return None
    lp = e.get("logprob")
    if isinstance(lp, bool) or not isinstance(lp, int | float) or not math.isfinite(lp) or lp > POSITIVE_SLACK:
        return None
    return e["id"], float(lp)


@dataclass
class ServerStats:
    """What the scoring cost on the server: requests, prompt tokens it evaluated, full-vocabulary retries."""

    requests: int = 0
    prompt_tokens_evaluated: int = 0
    full_vocab_requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, prompt_n: int | None, full: bool) -> None:
        with self.lock:
            self.requests += 1
            self.prompt_tokens_evaluated += prompt_n or 0
            self.full_vocab_requests += int(full)

    def as_dict(self) -> dict[str, int]:
        return {"requests": self.requests, "prompt_tokens_evaluated": self.prompt_tokens_evaluated,
                "full_vocab_requests": self.full_vocab_requests}


class ServerLoglikBackend(Backend):
    """Log-likelihood scoring against one model on a server (see `discover`); `method` says how."""

    def __init__(self, info: ServerInfo, *, api_key: str | None = None, concurrency: int | None = None,
                 timeout: float = 300.0, retry: RetryPolicy | None = None):
        self.info = info
        self.base_url = info.base_url
        self.client = HttpClient(info.base_url, api_key=api_key)
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        entry = next((e for e in model_entries(info.models) if e["id"] == info.model_id), {})
        meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else {}
        self.n_vocab: int | None = meta.get("n_vocab") if isinstance(meta.get("n_vocab"), int) else None
        self._tokenize_style = self._detect_tokenizer()
        self.stats = ServerStats()
        self.banned: list[int] = []
        self.method = self._detect_method()
        self.workers = min(concurrency or info.n_slots, info.n_slots) if self.method == "teacher_forcing" \
            else concurrency or info.n_slots
        self.workers = max(1, self.workers)
        identity = info.identity()
        self.identity = dataclasses.replace(identity, extra={**identity.extra, "loglik_method": self.method,
                                                             "n_vocab": self.n_vocab})

    @classmethod
    def connect(cls, base_url: str, *, model_id: str | None = None, name: str | None = None,
                ctx: int | None = None, api_key: str | None = None, **kwargs: Any) -> ServerLoglikBackend:
        info = discover(base_url, model_id=model_id, name=name, ctx=ctx, api_key=api_key)
        return cls(info, api_key=api_key, **kwargs)

    def _post(self, path: str, body: dict[str, Any]) -> Reply:
        return call(self.client, "POST", path, {"model": self.info.model_id, **body}, timeout=self.timeout,
                    retry=self.retry)

    # -- discovery ---------------------------------------------------------------------------------

    def _detect_tokenizer(self) -> str:
        llama = self._post("/tokenize", {"content": PROBE_TEXT, "add_special": False, "parse_special": False})
        if llama.ok and isinstance(llama.body.get("tokens"), list):
            return "llama.cpp"
        openai = self._post("/tokenize", {"prompt": PROBE_TEXT, "add_special_tokens": False})
        if openai.ok and isinstance(openai.body.get("tokens"), list):
            return "vllm"
        raise Refused(
            f"server at {self.base_url} offers no tokenizer endpoint (/tokenize answered {llama.describe()}), "
            "so continuation token boundaries cannot be fixed; refusing to score log-likelihoods")

    def tokenize(self, text: str) -> list[int]:
        """The server's own tokenizer, without BOS/EOS and without parsing special-token text."""
        if self._tokenize_style == "llama.cpp":
            res = self._post("/tokenize", {"content": text, "add_special": False, "parse_special": False})
        else:
            res = self._post("/tokenize", {"prompt": text, "add_special_tokens": False})
        tokens = res.body.get("tokens") if res.ok else None
        if not isinstance(tokens, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in tokens):
            raise EvaluationFailure(f"server at {self.base_url} failed to tokenize: {res.describe()}")
        return tokens

    @property
    def bos_token_id(self) -> int | None:
        bos = (self.info.props or {}).get("bos_token")
        if not bos or self._tokenize_style != "llama.cpp":
            return None
        res = self._post("/tokenize", {"content": bos, "add_special": False, "parse_special": True})
        tokens = res.body.get("tokens") if res.ok else None
        return tokens[0] if isinstance(tokens, list) and len(tokens) == 1 else None

    @property
    def max_length(self) -> int | None:
        return self.info.ctx

    def describe_loglik(self) -> dict[str, Any]:
        """How the log-probs were obtained, and what it cost the server (for reports)."""
        out: dict[str, Any] = {"engine": f"server {self.base_url} ({self.info.mode})", "method": self.method,
                               "server_fingerprint": self.info.fingerprint, **self.stats.as_dict()}
        if self.method == "teacher_forcing":
            out.update(workers=self.workers, banned_partial_utf8_tokens=len(self.banned), n_vocab=self.n_vocab)
        return out

    def _detect_method(self) -> str:
        probe = self.tokenize(PROBE_TEXT)
        echo = self._echo_request(probe)
        if _echo_values(echo) is not None:
            self._checked_echo(echo, len(probe))  # a broken echo is refused, not worked around
            return "echo"
        forcing = self._post("/completion", self._forcing_payload(probe, n_probs=N_PROBS_STEPS[0], slot=None))
        top = _top_logprobs(forcing.body) if forcing.ok else None
        if top is None or not any(_entry(e) for e in top):
            raise Refused(
                f"server at {self.base_url} gives no prompt log-probs (/v1/completions with echo answered "
                f"{_describe_echo(echo)}) and no next-token distribution (/completion with n_probs answered "
                f"{_describe_forcing(forcing)}); exact log-likelihoods are impossible, refusing to score")
        self._calibrate(probe)
        return "teacher_forcing"

    def _calibrate(self, probe: list[int]) -> None:
        """Find partial-UTF-8 tokens to ban, then prove the banned request still reports raw log-probs."""
        if not self.n_vocab:
            first = self._post("/completion", self._forcing_payload(probe, n_probs=1 << 20, slot=None))
            top = _top_logprobs(first.body) if first.ok else None
            self.n_vocab = len(top) if top else None
        if not self.n_vocab:
            raise Refused(f"server at {self.base_url}: cannot learn the vocabulary size for teacher forcing")
        full = self._post("/completion", self._forcing_payload(probe, n_probs=self.n_vocab, slot=None))
        dist = self._distribution(full, "calibration")
        self.banned = sorted(_partial_utf8_ids(_top_logprobs(full.body)))
        if self.banned:
            what = "calibration with banned partial-UTF-8 tokens"
            biased = self._post("/completion", self._forcing_payload(probe, n_probs=self.n_vocab, slot=None))
            after = self._distribution(biased, what, complete=False)
            missing = [t for t in self.banned if t not in after]
            moved = [t for t in dist if t in after and abs(dist[t] - after[t]) > 1e-4]
            if missing or moved:
                raise Refused(
                    f"server at {self.base_url} reports biased log-probs when tokens are banned via logit_bias "
                    f"({len(missing)} banned tokens missing, {len(moved)} values changed); refusing to score")
            self._distribution(biased, what)

    def _distribution(self, res: Reply, what: str, complete: bool = True) -> dict[int, float]:
        """The reply's next-token distribution; with `complete`, it must be the whole vocabulary summing to 1."""
        top = _top_logprobs(res.body) if res.ok else None
        entries = [_entry(e) for e in top or []]
        if not top or any(e is None for e in entries):
            raise Refused(f"server at {self.base_url}: {what} returned a malformed distribution: {res.describe()}")
        dist = dict(entries)
        if not complete:
            return dist
        total = math.fsum(math.exp(v) for v in dist.values())
        if len(dist) != self.n_vocab or abs(total - 1.0) > SUM_TOLERANCE:
            raise Refused(f"server at {self.base_url}: {what} returned {len(dist)} of {self.n_vocab} tokens with "
                          f"probabilities summing to {total:.6f}, not the model's full distribution")
        return dist

    # -- requests ----------------------------------------------------------------------------------

    def _echo_request(self, prompt: list[int]) -> Reply:
        return self._post("/v1/completions", {"prompt": prompt, "max_tokens": 1, "temperature": 0.0, "echo": True,
                                              "logprobs": 1})

    def _forcing_payload(self, prompt: list[int], *, n_probs: int, slot: int | None) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "prompt": prompt, "n_predict": 1, "n_probs": n_probs, "temperature": 0.0, "cache_prompt": True,
            "post_sampling_probs": False, "stream": False}
        if slot is not None:
            payload["id_slot"] = slot
        if self.banned:
            payload["logit_bias"] = [[t, False] for t in self.banned]
        return payload

    # -- scoring -----------------------------------------------------------------------------------

    def loglikelihood(self, requests: Sequence[LoglikRequest]) -> Iterator[tuple[int, LoglikResult]]:
        for i, req in enumerate(requests):
            if not req.context or not req.continuation:
                raise ValueError(f"request {i}: empty context or continuation")
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, req in enumerate(requests):
            groups.setdefault(tuple(req.context), []).append(i)
        units = list(groups.values())
        free_slots = list(range(self.workers))
        slot_lock = threading.Lock()

        stop = threading.Event()  # set when the caller stops reading (error, Ctrl-C): workers quit between steps

        def run(unit: list[int]) -> list[tuple[int, LoglikResult]]:
            with slot_lock:
                slot = free_slots.pop()
            memo: dict[tuple[int, ...], _Seen] = {}  # one unit's choices often share prompts (the context...)
            try:
                return [(i, self._score(requests[i], slot, stop, memo)) for i in unit]
            finally:
                with slot_lock:
                    free_slots.append(slot)

        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="loglik-http") as pool:
            pending = {pool.submit(run, u) for u in units[: self.workers * 2]}
            queued = iter(units[self.workers * 2:])
            try:
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in done:
                        yield from fut.result()
                        nxt = next(queued, None)
                        if nxt is not None:
                            pending.add(pool.submit(run, nxt))
            finally:
                stop.set()
                for fut in pending:
                    fut.cancel()

    def _score(self, req: LoglikRequest, slot: int, stop: threading.Event,
               memo: dict[tuple[int, ...], _Seen]) -> LoglikResult:
        if self.method == "echo":
            return self._score_echo(req)
        return self._score_forcing(req, slot, stop, memo)

    def _checked_echo(self, res: Reply, n_prompt: int) -> list[float]:
        """The prompt's log-probs from an echo reply that passed every check, else Refused."""
        values = _echo_values(res)
        if values is None:
            raise Refused(f"server at {self.base_url} stopped returning prompt log-probs: {_describe_echo(res)}")
        usage = res.body.get("usage") if isinstance(res.body.get("usage"), dict) else {}
        _check_prompt_kept({"tokens_evaluated": usage.get("prompt_tokens")}, n_prompt, self.base_url)
        try:
            return check_prompt_logprobs(values, n_prompt)
        except Refused as exc:
            raise Refused(f"server at {self.base_url} returned unusable prompt log-probs: {exc}; "
                          "refusing to score") from None

    def _score_echo(self, req: LoglikRequest) -> LoglikResult:
        prompt = [*req.context, *req.continuation]
        lps = self._checked_echo(self._echo_request(prompt), len(prompt))[len(req.context):]
        self.stats.add(len(prompt), False)
        return LoglikResult(logprob_sum=math.fsum(lps), n_tokens=len(lps), token_logprobs=lps)

    def _score_forcing(self, req: LoglikRequest, slot: int, stop: threading.Event,
                       memo: dict[tuple[int, ...], _Seen]) -> LoglikResult:
        prefix = list(req.context)
        lps: list[float] = []
        greedy = True
        for target in req.continuation:
            if stop.is_set():
                raise _Stopped
            lp, top = self._next_logprob(prefix, target, slot, memo)
            lps.append(lp)
            greedy = greedy and top == target
            prefix.append(target)
        return LoglikResult(logprob_sum=math.fsum(lps), n_tokens=len(lps), token_logprobs=lps, is_greedy=greedy)

    def _next_logprob(self, prompt: list[int], target: int, slot: int,
                      memo: dict[tuple[int, ...], _Seen]) -> tuple[float, int]:
        """log p(target | prompt) and the argmax token, from the server's next-token distribution.

        Asks for the top 32, then 1024, then every token, until the target is among them; a prompt
        already asked about (another choice with the same prefix) is answered from `memo`.
        """
        assert self.n_vocab
        key = tuple(prompt)
        seen = memo.get(key)
        if seen is not None and target in seen.found:
            return seen.found[target], seen.best
        for n_probs in sorted({min(n, self.n_vocab) for n in N_PROBS_STEPS} | {self.n_vocab}):
            if seen is not None and n_probs <= seen.n_probs:
                continue
            res = self._post("/completion", self._forcing_payload(prompt, n_probs=n_probs, slot=slot))
            top = _top_logprobs(res.body) if res.ok else None
            if top is None:
                raise Refused(f"server at {self.base_url} returned no next-token distribution: {res.describe()}")
            entries = [_entry(e) for e in top]
            if any(e is None for e in entries):
                bad = next(e for e, ok in zip(top, entries, strict=True) if ok is None)
                raise Refused(f"server at {self.base_url} returned a malformed log-prob entry {bad!r}")
            _check_prompt_kept(res.body, len(prompt), self.base_url)
            timings = res.body.get("timings") if isinstance(res.body.get("timings"), dict) else {}
            self.stats.add(timings.get("prompt_n"), n_probs == self.n_vocab)
            if len(entries) >= 2 and len({lp for _, lp in entries}) == 1:
                raise Refused(f"server at {self.base_url} returned {len(entries)} identical log-probs (placeholders)")
            seen = memo[key] = _Seen(n_probs, dict(entries), max(entries, key=lambda e: e[1])[0])
            if target in seen.found:
                return seen.found[target], seen.best
            if n_probs == self.n_vocab:
                raise Refused(f"server at {self.base_url} left token {target} out of the full {self.n_vocab}-token "
                              "distribution; refusing to score with a missing log-prob")
        raise AssertionError("unreachable")


def _check_prompt_kept(body: dict[str, Any], n_prompt: int, base_url: str) -> None:
    """Refuse replies for a prompt the server changed: truncated, or with tokens added (a BOS) or dropped."""
    if body.get("truncated") is True:
        raise Refused(f"server at {base_url} truncated a {n_prompt}-token prompt; its context is too small")
    evaluated = body.get("tokens_evaluated")
    if isinstance(evaluated, int) and not isinstance(evaluated, bool) and evaluated != n_prompt:
        raise Refused(f"server at {base_url} evaluated {evaluated} tokens for a {n_prompt}-token prompt "
                      "(it added or dropped tokens, e.g. a BOS); the log-probs would not be the requested ones")


def _echo_values(res: Reply) -> list[Any] | None:
    """`choices[0].logprobs.token_logprobs` when the reply has the legacy completions echo shape."""
    if not res.ok or not isinstance(res.body, dict):
        return None
    choices = res.body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    lp = choices[0].get("logprobs")
    if not isinstance(lp, dict) or "token_logprobs" not in lp:
        return None
    return lp["token_logprobs"] if lp["token_logprobs"] is not None else []


def _describe_echo(res: Reply) -> str:
    if not res.ok:
        return res.describe()
    choices = res.body.get("choices") if isinstance(res.body, dict) else None
    lp = choices[0].get("logprobs") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    if lp is None:
        return "no logprobs at all"
    if isinstance(lp, dict) and "content" in lp:
        return "log-probs of generated tokens only (chat shape `logprobs.content`): echo is ignored"
    return f"logprobs without token_logprobs ({sorted(lp) if isinstance(lp, dict) else type(lp).__name__})"


def _describe_forcing(res: Reply) -> str:
    if not res.ok:
        return res.describe()
    return "no completion_probabilities with token ids and log-probs"


def _partial_utf8_ids(top: list[dict[str, Any]] | None) -> set[int]:
    """Token ids whose bytes are not valid UTF-8 on their own (a fragment of a multi-byte character)."""
    ids = set()
    for e in top or []:
        raw = e.get("bytes") if isinstance(e, dict) else None
        if isinstance(raw, list) and raw:
            try:
                bytes(raw).decode("utf-8")
            except (UnicodeDecodeError, ValueError):
                ids.add(e["id"])
    return ids
