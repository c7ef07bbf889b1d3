"""Exact log-likelihoods from an OpenAI-compatible server, or a refusal that says why.

Two ways to get a continuation's conditional log-probs over HTTP, tried in this order:

* **echo**: `/v1/completions` with `echo: true, logprobs: 1` and the prompt as token ids; servers such as
  vLLM return one log-prob per prompt token (`logprobs.token_logprobs`). Every response passes a hard
  sanity gate (one finite log-prob <= 0 per prompt token, not all equal, not all zero) or the run stops.
  Such a server batches requests as it likes: its numbers may depend on what else it was computing.
* **teacher forcing** (llama.cpp's server, which ignores `echo`): for each continuation position one
  `/completion` request asking for the next-token distribution (`n_probs`), planned by
  `teacher_forcing.TeacherForcing` so the server computes each position exactly as `--backend gguf`
  does (see there); each worker pins one server slot. Tokens that are incomplete UTF-8 on their own are
  banned from *sampling* via `logit_bias` (the server otherwise merges or drops their probability
  entries); a calibration request proves the reported distribution is the model's own (banned tokens
  keep their finite log-probs, the whole vocabulary sums to 1), and each step checks the target's entry
  is present and finite.

A server offering neither is refused (exit 3). No score is ever computed from a missing or
placeholder log-prob.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any

from evaluators.core.errors import EvaluationFailure
from evaluators.core.http import TRANSIENT_ERRORS, HttpError, RetryPolicy, describe_error
from evaluators.models.backends import exactness
from evaluators.models.backends.base import Backend, LoglikRequest, LoglikResult, distinct_requests
from evaluators.models.backends.discovery import ServerInfo, ServerUnavailable, discover, model_entries
from evaluators.models.backends.replicas import Replica, ReplicaSet
from evaluators.models.backends.teacher_forcing import (
    N_PROBS_STEPS,
    POSITIVE_SLACK,
    Distribution,
    Memo,
    Refused,
    Reply,
    ServerStats,
    Slot,
    TeacherForcing,
    call,
    check_prompt_kept,
    entry,
    top_logprobs,
)

__all__ = ["Refused", "ServerLoglikBackend", "check_prompt_logprobs"]

log = logging.getLogger("bananabench.server")

PROBE_TEXT = "The quick brown fox jumps over the lazy dog. 1, 2, 3"
SUM_TOLERANCE = 1e-3


class _Stopped(Exception):
    """A worker noticed the caller stopped reading results; its partial item is discarded."""


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


class ServerLoglikBackend(Backend):
    """Log-likelihood scoring against one model on a server or its replicas (see `discover`); `method` says how.

    With replicas, echo requests go to the least loaded one (and to another when one stays unreachable);
    teacher-forcing slots are pinned to a replica each, and a unit (a context's continuations) whose
    replica fails on the connection starts again on a slot of another one."""

    def __init__(self, info: ServerInfo, *, api_key: str | None = None, concurrency: int | None = None,
                 timeout: float = 300.0, retry: RetryPolicy | None = None):
        self.info = info
        self.base_url = info.base_url
        self.replicas = ReplicaSet(info.urls, slots=info.n_slots, api_key=api_key)
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        listed = next((e for e in model_entries(info.models) if e["id"] == info.model_id), {})
        meta = listed.get("meta") if isinstance(listed.get("meta"), dict) else {}
        self.n_vocab: int | None = meta.get("n_vocab") if isinstance(meta.get("n_vocab"), int) else None
        self._tokenize_style = self._detect_tokenizer()
        self.stats = ServerStats()
        self.banned: list[int] = []
        self.method = self._detect_method()
        n_replicas = len(self.replicas.replicas)
        per_replica = max(1, min(concurrency or info.n_slots, info.n_slots)) if self.method == "teacher_forcing" \
            else None
        self.workers = per_replica * n_replicas if per_replica else max(1, concurrency or info.n_slots * n_replicas)
        self.forcing = TeacherForcing(self._post, self._forcing_payload, base_url=", ".join(info.urls),
                                      n_vocab=self.n_vocab or 0, n_slots=per_replica, stats=self.stats,
                                      servers=self.replicas.replicas, usable=self.replicas.is_up) \
            if per_replica else None
        self.exactness = exactness.record(info)
        identity = info.identity()
        self.identity = dataclasses.replace(identity, extra={**identity.extra, "loglik_method": self.method,
                                                             "n_vocab": self.n_vocab, "exactness": self.exactness})
        for reason in self.exactness["reasons"]:
            log.warning("%s: runs on it are non-official; %s", reason, exactness.HINT)

    @classmethod
    def connect(cls, base_url: str, *, model_id: str | None = None, name: str | None = None,
                ctx: int | None = None, api_key: str | None = None, **kwargs: Any) -> ServerLoglikBackend:
        info = discover(base_url, model_id=model_id, name=name, ctx=ctx, api_key=api_key)
        return cls(info, api_key=api_key, **kwargs)

    def _post(self, path: str, body: dict[str, Any], replica: Replica | None = None) -> Reply:
        """One request on `replica` (a pinned slot's), else on the least loaded replica. While another
        replica is up, one whose connection fails gets no retries: ServerUnavailable at once, and the
        request (or, pinned, its unit: see `loglikelihood`) moves to another; the last one standing gets
        the retry policy, as a single server does."""
        payload = {"model": self.info.model_id, **body}
        while True:
            target = replica or self.replicas.acquire(block=False)
            try:
                return self._send_to(target, path, payload)
            except ServerUnavailable as exc:
                if replica is not None or not self.replicas.others_up(target):
                    raise
                log.warning("%s; the request moves to another replica", exc)
            finally:
                if replica is None:
                    self.replicas.release(target)

    def _send_to(self, target: Replica, path: str, payload: dict[str, Any]) -> Reply:
        if self.replicas.others_up(target):
            try:
                body = target.client.request_json("POST", path, payload, timeout=self.timeout)
            except HttpError as exc:
                if not exc.transient:
                    self.replicas.note(target, ok=True)
                    return Reply(exc.status, exc.message)
            except TRANSIENT_ERRORS as exc:
                self.replicas.note(target, ok=False, failure=describe_error(exc))
                raise ServerUnavailable(f"{target.url}{path}: {describe_error(exc)}") from exc
            else:
                self.replicas.note(target, ok=True)
                return Reply(200, body)
        try:
            reply = call(target.client, "POST", path, payload, timeout=self.timeout, retry=self.retry)
        except ServerUnavailable as exc:
            self.replicas.note(target, ok=False, failure=str(exc))
            raise
        self.replicas.note(target, ok=True)
        return reply

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

    def tokenize_prompt(self, text: str) -> list[int]:
        """`text` as llama.cpp's server tokenizes a completion prompt: BOS if the model wants one, special
        tokens parsed."""
        res = self._post("/tokenize", {"content": text, "add_special": True, "parse_special": True})
        tokens = res.body.get("tokens") if res.ok else None
        if not isinstance(tokens, list) or not tokens:
            raise EvaluationFailure(f"server at {self.base_url} failed to tokenize a prompt: {res.describe()}")
        return tokens

    def detokenize(self, tokens: Sequence[int]) -> str:
        res = self._post("/detokenize", {"tokens": list(tokens)})
        content = res.body.get("content") if res.ok else None
        if not isinstance(content, str):
            raise EvaluationFailure(f"server at {self.base_url} failed to detokenize: {res.describe()}")
        return content

    @property
    def bos_token_id(self) -> int | None:
        bos = (self.info.props or {}).get("bos_token")
        if not bos or self._tokenize_style != "llama.cpp":
            return None
        res = self._post("/tokenize", {"content": bos, "add_special": False, "parse_special": True})
        tokens = res.body.get("tokens") if res.ok else None
        return tokens[0] if isinstance(tokens, list) and len(tokens) == 1 else None

    @property
    def official_reasons(self) -> list[str]:
        return list(self.exactness["reasons"])

    @property
    def adds_bos(self) -> bool:
        """llama.cpp's server: whether `/tokenize` with special tokens puts the model's BOS first."""
        bos = self.bos_token_id
        return bos is not None and self.tokenize_prompt("a")[:1] == [bos] and self.tokenize("a")[:1] != [bos]

    @property
    def max_length(self) -> int | None:
        return self.info.ctx

    def describe_loglik(self) -> dict[str, Any]:
        """How the log-probs were obtained, and what it cost the server (for reports)."""
        out: dict[str, Any] = {"engine": f"server {self.base_url} ({self.info.mode})", "method": self.method,
                               "server_fingerprint": self.info.fingerprint, **self.stats.as_dict()}
        if len(self.replicas.replicas) > 1:
            out["replicas"] = self.replicas.summary()
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
        top = top_logprobs(forcing.body) if forcing.ok else None
        if top is None or not any(entry(e) for e in top):
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
            top = top_logprobs(first.body) if first.ok else None
            self.n_vocab = len(top) if top else None
        if not self.n_vocab:
            raise Refused(f"server at {self.base_url}: cannot learn the vocabulary size for teacher forcing")
        full = self._post("/completion", self._forcing_payload(probe, n_probs=self.n_vocab, slot=None))
        dist = self._distribution(full, "calibration")
        self.banned = sorted(_partial_utf8_ids(top_logprobs(full.body)))
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
        top = top_logprobs(res.body) if res.ok else None
        entries = [entry(e) for e in top or []]
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

    def _forcing_payload(self, prompt: list[int], *, n_probs: int, slot: int | None,
                         cache_prompt: bool = True) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "prompt": prompt, "n_predict": 1, "n_probs": n_probs, "temperature": 0.0, "cache_prompt": cache_prompt,
            "post_sampling_probs": False, "stream": False}
        if slot is not None:
            payload["id_slot"] = slot
        if self.banned:
            payload["logit_bias"] = [[t, False] for t in self.banned]
        return payload

    # -- scoring -----------------------------------------------------------------------------------

    def loglikelihood(self, requests: Sequence[LoglikRequest]) -> Iterator[tuple[int, LoglikResult]]:
        """Each distinct (context, continuation) scored once; a context's continuations on one worker."""
        for i, req in enumerate(requests):
            if not req.context or not req.continuation:
                raise ValueError(f"request {i}: empty context or continuation")
        distinct, owners = distinct_requests(requests)
        groups: dict[tuple[int, ...], list[int]] = {}
        for k, req in enumerate(distinct):
            groups.setdefault(req.context, []).append(k)
        # continuations in token order: one that shares a prefix with the previous reuses its positions
        units = [sorted(members, key=lambda k: distinct[k].continuation) for members in groups.values()]
        stop = threading.Event()  # set when the caller stops reading (error, Ctrl-C): workers quit between steps

        def run(unit: list[int]) -> list[tuple[int, LoglikResult]]:
            if self.forcing is None:
                return [(k, self._score_echo(distinct[k])) for k in unit]
            while True:
                memo: dict[tuple[int, ...], Distribution] = {}  # one unit's choices share prompts (the context...)
                with self.forcing.slot() as slot:
                    try:
                        return [(k, self._score_forcing(distinct[k], slot, stop, memo)) for k in unit]
                    except ServerUnavailable as exc:
                        if not self.replicas.others_up(slot.server):
                            raise
                        log.warning("%s; the unit starts again on another replica", exc)

        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="loglik-http") as pool:
            pending = {pool.submit(run, u) for u in units[: self.workers * 2]}
            queued = iter(units[self.workers * 2:])
            try:
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in done:
                        for k, result in fut.result():
                            for i in owners[k]:
                                yield i, result
                        nxt = next(queued, None)
                        if nxt is not None:
                            pending.add(pool.submit(run, nxt))
            finally:
                stop.set()
                for fut in pending:
                    fut.cancel()

    def prompt_logprobs(self, prompt: Sequence[int], memo: Memo, *, top: int = 1,
                        generate: bool = False) -> list[Distribution]:
        """Teacher-forced distributions after prompt[:j], j = 1..len-1 (and the whole prompt with `generate`):
        what an OpenAI `echo` request asks for. Each one holds its target token and at least `top` entries."""
        if self.forcing is None:
            raise Refused(f"server at {self.base_url} echoes prompt log-probs itself; ask it directly")
        prompt = tuple(prompt)
        last = len(prompt) + 1 if generate else len(prompt)
        out: dict[int, Distribution] = {}
        with self.forcing.slot() as slot:
            for j in (*range(1, last, 2), *range(2, last, 2)):  # odd then even: two new tokens per request
                need = prompt[j] if j < len(prompt) else None
                out[j] = self.forcing.distribution(slot, prompt[:j], memo, need=need, width=top)
        return [out[j] for j in range(1, last)]

    def _checked_echo(self, res: Reply, n_prompt: int) -> list[float]:
        """The prompt's log-probs from an echo reply that passed every check, else Refused."""
        values = _echo_values(res)
        if values is None:
            raise Refused(f"server at {self.base_url} stopped returning prompt log-probs: {_describe_echo(res)}")
        usage = res.body.get("usage") if isinstance(res.body.get("usage"), dict) else {}
        check_prompt_kept({"tokens_evaluated": usage.get("prompt_tokens")}, n_prompt, self.base_url)
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

    def _score_forcing(self, req: LoglikRequest, slot: Slot, stop: threading.Event,
                       memo: dict[tuple[int, ...], Distribution]) -> LoglikResult:
        """One request per position, odd positions first, then even ones: consecutive requests on the slot
        then differ by two tokens, the two the server evaluates (see `teacher_forcing`)."""
        assert self.forcing is not None
        cont = req.continuation
        lps = [0.0] * len(cont)
        greedy = True
        for j in (0, *range(1, len(cont), 2), *range(2, len(cont), 2)):
            if stop.is_set():
                raise _Stopped
            lps[j], top = self.forcing.logprob(slot, req.context + cont[:j], cont[j], memo)
            greedy = greedy and top == cont[j]
        return LoglikResult(logprob_sum=math.fsum(lps), n_tokens=len(lps), token_logprobs=lps, is_greedy=greedy)


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
