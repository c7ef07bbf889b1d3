"""Teacher forcing on llama.cpp's server: next-token log-probs computed the way in-process scoring does.

llama.cpp's server returns no prompt log-probs, only the distribution of the token after a prompt
(`/completion` with `n_probs`). Scoring a continuation therefore takes one request per position.
How the server computes that position matters more than it seems: on quantised weights llama.cpp
quantises activations on the fly, and a last-bit float difference flips roundings that add up to
tenths of a nat after 30 layers. Two things move those bits:

* a token evaluated alone takes another kernel path than tokens evaluated two or more at a time
  (and a server with several busy slots splits each request's tokens into equal pieces per slot,
  so a three-token request next to a two-token one leaves one token alone);
* where a token's KV cells sit (the cache must hold only this prompt, cell = position);
* what else the server restores into a slot: llama.cpp's prompt cache in host memory (`--cache-ram`, on by
  default) saves each slot's prompt and loads a saved one into whichever slot gets a closer prompt, cells
  perhaps computed with a lone token. A load the plan did not expect changes how many tokens the server
  evaluates, which is caught and costs a recomputation; one that does not cannot be seen (under load, one
  round in six of the shim's 40 real-model prompts moved a log-prob by 0.02 nats). An exact server has it off (`exactness`).

So every request here is planned to make the server evaluate exactly the prompt's last two tokens
on a pinned slot whose cache holds the rest of the prompt: `Plan` keeps track of what each slot
caches (the last prompt sent to it) and, when the slot already holds the next-to-last token, first
sends a two-token *detour* that cuts the cache back. Requests that must evaluate more (a context,
a slot whose cache is unknown) run alone on the server (`Gate`), and never leave a lone token at
the end of a 512-token micro-batch. Each reply's `timings.prompt_n` must equal the tokens planned;
a slot whose cache turned out different is recomputed from scratch. The in-process backend
(`gguf.py`) computes every position with the same kernel path at the same cells, so both reach the
same hidden states; the final projection, which the server runs on one output row per request (or on
several slots' rows at once), may round differently (~1e-6 to 1e-5, a last step nothing amplifies), and
the server's float32 softmax sum adds up to ~3e-4 per token (49k vocabulary).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluators.core.errors import EvaluationFailure
from evaluators.core.http import TRANSIENT_ERRORS, HttpClient, HttpError, RetryPolicy, describe_error
from evaluators.models.backends.discovery import ServerUnavailable

log = logging.getLogger("bananabench.server")

N_PROBS_STEPS = (32, 1024)  # most targets are among the top few; then widen, finally the whole vocabulary
POSITIVE_SLACK = 1e-6  # float rounding can put a log-prob of ~1.0 probability a hair above 0
UBATCH = 512  # llama-server's default micro-batch (-ub): a request must not leave one token alone in one


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


def top_logprobs(body: Any) -> list[dict[str, Any]] | None:
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


def entry(e: Any) -> tuple[int, float] | None:
    """(token id, log-prob) from one distribution entry, or None when malformed."""
    if not isinstance(e, dict) or isinstance(e.get("id"), bool) or not isinstance(e.get("id"), int):
        return None
    lp = e.get("logprob")
    if isinstance(lp, bool) or not isinstance(lp, int | float) or not math.isfinite(lp) or lp > POSITIVE_SLACK:
        return None
    return e["id"], float(lp)


def check_prompt_kept(body: dict[str, Any], n_prompt: int, base_url: str) -> None:
    """Refuse replies for a prompt the server changed: truncated, or with tokens added (a BOS) or dropped."""
    if body.get("truncated") is True:
        raise Refused(f"server at {base_url} truncated a {n_prompt}-token prompt; its context is too small")
    evaluated = body.get("tokens_evaluated")
    if isinstance(evaluated, int) and not isinstance(evaluated, bool) and evaluated != n_prompt:
        raise Refused(f"server at {base_url} evaluated {evaluated} tokens for a {n_prompt}-token prompt "
                      "(it added or dropped tokens, e.g. a BOS); the log-probs would not be the requested ones")


@dataclass
class Distribution:
    """A next-token distribution already fetched: how wide (n_probs), its entries, token texts, its argmax."""

    n_probs: int
    found: dict[int, float]
    pieces: dict[int, str]
    best: int

    def top(self, k: int) -> list[tuple[int, float]]:
        return sorted(self.found.items(), key=lambda e: -e[1])[:k]


@dataclass
class ServerStats:
    """What the scoring cost on the server: requests, prompt tokens it evaluated, full-vocabulary retries."""

    requests: int = 0
    prompt_tokens_evaluated: int = 0
    full_vocab_requests: int = 0
    detours: int = 0
    recomputed: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, prompt_n: int | None, full: bool, detour: bool = False, recomputed: bool = False) -> None:
        with self.lock:
            self.requests += 1
            self.prompt_tokens_evaluated += prompt_n or 0
            self.full_vocab_requests += int(full)
            self.detours += int(detour)
            self.recomputed += int(recomputed)

    def as_dict(self) -> dict[str, int]:
        return {"requests": self.requests, "prompt_tokens_evaluated": self.prompt_tokens_evaluated,
                "full_vocab_requests": self.full_vocab_requests, "detour_requests": self.detours,
                "recomputed_requests": self.recomputed}


class DistributionCache:
    """A bounded, thread-safe memo of distributions by prompt (least recently used dropped first)."""

    def __init__(self, size: int = 100_000):
        self.size = size
        self._items: OrderedDict[tuple[int, ...], Distribution] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, prompt: tuple[int, ...]) -> Distribution | None:
        with self._lock:
            dist = self._items.get(prompt)
            if dist is not None:
                self._items.move_to_end(prompt)
            return dist

    def __setitem__(self, prompt: tuple[int, ...], dist: Distribution) -> None:
        with self._lock:
            self._items[prompt] = dist
            self._items.move_to_end(prompt)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


Memo = MutableMapping[tuple[int, ...], Distribution] | DistributionCache


class Gate:
    """Two-token requests run side by side; any other request has the server to itself (writers first)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._shared = 0
        self._exclusive = False
        self._waiting = 0

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._exclusive and not self._waiting)
            self._shared += 1
        try:
            yield
        finally:
            with self._cond:
                self._shared -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._waiting += 1
            self._cond.wait_for(lambda: not self._exclusive and not self._shared)
            self._waiting -= 1
            self._exclusive = True
        try:
            yield
        finally:
            with self._cond:
                self._exclusive = False
                self._cond.notify_all()


class Slot:
    """One pinned server slot and the prompt its cache holds (None: unknown, so the next request starts afresh).

    `server` is the replica the slot lives on (passed to `post`), `gate` that server's `Gate`."""

    def __init__(self, slot_id: int, server: Any = None, gate: Gate | None = None):
        self.id = slot_id
        self.server = server
        self.gate = gate or Gate()
        self.cached: tuple[int, ...] | None = None


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    k = 0
    while k < n and a[k] == b[k]:
        k += 1
    return k


class TeacherForcing:
    """Distributions after prompts, from `/completion`, each position computed as described above.

    `post(path, body, server)` sends one request to a slot's server (the backend's, with its retries);
    `payload(prompt, n_probs, slot_id, cache_prompt)` builds the `/completion` body; `n_vocab` bounds the
    widening. `servers` are the replicas, each with `n_slots` slots of its own; `usable(server)` says
    whether a server's slots may be handed out (while any server is usable, the others' slots are not).
    """

    def __init__(self, post: Callable[[str, dict[str, Any], Any], Reply], payload: Callable[..., dict[str, Any]], *,
                 base_url: str, n_vocab: int, n_slots: int, stats: ServerStats, servers: Sequence[Any] = (None,),
                 usable: Callable[[Any], bool] = lambda server: True):
        self.post = post
        self.payload = payload
        self.base_url = base_url
        self.n_vocab = n_vocab
        self.stats = stats
        gates = [Gate() for _ in servers]
        # interleaved, so that work spreads over the replicas before it fills one
        self._free = [Slot(i, server, gate) for i in reversed(range(n_slots)) for server, gate in zip(servers, gates,
                                                                                                      strict=True)]
        self.servers, self.usable = list(servers), usable
        self._slots = threading.Condition()
        self._unverified = False
        self._fetches = self._widened = 0  # how often a target missed the first width (racy counts suffice)

    @contextlib.contextmanager
    def slot(self) -> Iterator[Slot]:
        """A pinned slot for this thread's requests (waits for one to be free on a usable server)."""
        with self._slots:
            while (slot := self._pick()) is None:
                self._slots.wait(timeout=1.0)  # a server may turn unusable while we wait
            self._free.remove(slot)
        try:
            yield slot
        finally:
            with self._slots:
                self._free.append(slot)
                self._slots.notify()

    def _pick(self) -> Slot | None:
        live = [s for s in self._free if self.usable(s.server)]
        if live or any(self.usable(server) for server in self.servers):
            return live[-1] if live else None
        return self._free[-1] if self._free else None  # none is usable: let the request say why

    def logprob(self, slot: Slot, prompt: tuple[int, ...], target: int, memo: Memo) -> tuple[float, int]:
        """log p(target | prompt) and the argmax token; widens (32, 1024, all) until the target is in."""
        dist = self.distribution(slot, prompt, memo, need=target)
        return dist.found[target], dist.best

    def distribution(self, slot: Slot, prompt: tuple[int, ...], memo: Memo, *,
                     need: int | None = None, width: int = 1) -> Distribution:
        """The distribution after `prompt` holding token `need` and at least `width` entries (memoised)."""
        seen = memo.get(prompt)
        if seen is not None and (need is None or need in seen.found) and len(seen.found) >= min(width, self.n_vocab):
            return seen
        # each widening costs a detour too: when targets often miss the top 32, start at the next width
        start = N_PROBS_STEPS[1] if self._fetches >= 16 and self._widened * 4 > self._fetches else 0
        steps = sorted({min(max(n, width, start), self.n_vocab) for n in N_PROBS_STEPS} | {self.n_vocab})
        for n_probs in steps:
            if seen is not None and n_probs <= seen.n_probs:
                continue
            self._fetches += 1
            seen = memo[prompt] = self._fetch(slot, prompt, n_probs)
            if need is None or need in seen.found:
                return seen
            self._widened += 1
            if n_probs == self.n_vocab:
                raise Refused(f"server at {self.base_url} left token {need} out of the full {self.n_vocab}-token "
                              "distribution; refusing to score with a missing log-prob")
        raise AssertionError("unreachable")

    def _fetch(self, slot: Slot, prompt: tuple[int, ...], n_probs: int) -> Distribution:
        res = self._ask(slot, prompt, n_probs)
        top = top_logprobs(res.body) if res.ok else None
        if top is None:
            raise Refused(f"server at {self.base_url} returned no next-token distribution: {res.describe()}")
        entries = [entry(e) for e in top]
        if any(e is None for e in entries):
            bad = next(e for e, ok in zip(top, entries, strict=True) if ok is None)
            raise Refused(f"server at {self.base_url} returned a malformed log-prob entry {bad!r}")
        if len(entries) >= 2 and len({lp for _, lp in entries}) == 1:
            raise Refused(f"server at {self.base_url} returned {len(entries)} identical log-probs (placeholders)")
        pieces = {e["id"]: e.get("token") if isinstance(e.get("token"), str) else "" for e in top}
        found = dict(entries)
        return Distribution(n_probs, found, pieces, max(found, key=found.__getitem__))

    # -- the request plan ------------------------------------------------------------------------

    def _ask(self, slot: Slot, prompt: tuple[int, ...], n_probs: int) -> Reply:
        """Send `prompt` so the server evaluates its last two tokens (or, alone on the server, more)."""
        n = len(prompt)
        if slot.cached is not None and n >= 2 and common_prefix(slot.cached, prompt) >= n - 1:
            # the slot holds the next-to-last token: cut its cache back there with a two-token detour
            other = (prompt[n - 2] + 1) % self.n_vocab
            self._send(slot, (*prompt[:n - 2], other, other), 1, detour=True)
        fresh = 0 if slot.cached is None else common_prefix(slot.cached, prompt)
        if n - fresh > 2 and (n - fresh) % UBATCH == 1:
            self._send(slot, prompt[:n - 2], 1, detour=True)  # else one token would end a micro-batch alone
        return self._send(slot, prompt, n_probs)

    def _send(self, slot: Slot, prompt: tuple[int, ...], n_probs: int, *, detour: bool = False) -> Reply:
        fresh = slot.cached is None
        kept = 0 if fresh else min(common_prefix(slot.cached, prompt), len(prompt) - 1)
        planned = len(prompt) - kept
        guard = slot.gate.shared() if planned == 2 else slot.gate.exclusive()
        slot.cached = None
        with guard:
            res = self.post("/completion", self.payload(list(prompt), n_probs=n_probs, slot=slot.id,
                                                        cache_prompt=not fresh), slot.server)
        if not res.ok:
            raise Refused(f"server at {self.base_url} failed a teacher-forcing request: {res.describe()}")
        check_prompt_kept(res.body, len(prompt), self.base_url)
        timings = res.body.get("timings") if isinstance(res.body.get("timings"), dict) else {}
        evaluated = timings.get("prompt_n")
        off_plan = isinstance(evaluated, int) and not isinstance(evaluated, bool) and evaluated != planned
        self.stats.add(evaluated if isinstance(evaluated, int) else None, n_probs == self.n_vocab, detour, off_plan)
        if off_plan:
            if fresh:
                raise Refused(f"server at {self.base_url} evaluated {evaluated} tokens of a {len(prompt)}-token "
                              "prompt sent without its prompt cache; it does not evaluate prompts the way "
                              "llama.cpp's server does, so its log-probs cannot be made exact")
            return self._ask(slot, prompt, n_probs)  # its cache was not what we sent last: start afresh
        if evaluated is None and not self._unverified:
            self._unverified = True
            log.warning("server at %s reports no timings.prompt_n: cannot verify which tokens it evaluated",
                        self.base_url)
        # a token evaluated alone took the other kernel path: later requests must not build on its KV cells
        slot.cached = prompt if planned >= 2 else None
        return res
