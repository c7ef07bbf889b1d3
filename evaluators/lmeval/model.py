"""Our backends as an lm-eval model: lm-eval builds the requests, our engine computes every number.

`BackendLM` is an lm-eval `TemplateLM`, so the text → tokens step is lm-eval's own (`_encode_pair` moves
a context's trailing spaces into the continuation and splits the joint encoding, an empty context is
conditioned on the prefix token) and only `tok_encode` is ours: the backend's tokenizer, with BOS first
when `add_bos` says so. The default follows HFLM, which calls the tokenizer with its special tokens on:
BOS when the model's tokenizer adds one (`Backend.adds_bos`). Rolling log-likelihoods use lm-eval's own
window functions with HFLM's arguments, so the windows are HFLM's. Contexts too long for the model are cut
from the left, as HFLM cuts them.

Every answer goes through the journal (see `journal`), and the token count of each scored continuation
is kept (`token_counts`) for the store, which lm-eval's samples do not carry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from lm_eval import utils
from lm_eval.api.model import TemplateLM

from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.lmeval.journal import Journal, request_key
from evaluators.models.backends.base import Backend, GenerationRequest, LoglikRequest, LoglikResult
from evaluators.runs.progress import Progress

DEFAULT_MAX_LENGTH = 2048  # HFLM's fallback when the model says nothing
DEFAULT_MAX_GEN_TOKS = 256  # HFLM's max_gen_toks


class BackendLM(TemplateLM):
    """lm-eval's LM over a loaded `Backend`; `generator` opens a backend for `generate_until` on demand."""

    def __init__(self, backend: Backend, journal: Journal, *, add_bos: bool | None = None, label: str = "",
                 generator: Callable[[], Backend] | None = None):
        super().__init__()
        self.backend = backend
        self.journal = journal
        self.add_bos = backend.adds_bos if add_bos is None else add_bos
        self.label = label
        self._generator = generator
        self._gen_backend: Backend | None = None
        bos = backend.bos_token_id
        if self.add_bos and bos is None:
            raise BadInput("--add-bos: the model has no BOS token")
        self._bos = bos
        self.token_counts: dict[tuple[str, ...], int] = {}  # (context, continuation) or (document,) -> tokens

    # -- tokenization (what HFLM does, on our tokenizer) ----------------------------------------------

    @property
    def eot_token_id(self) -> int:
        eos = getattr(self.backend, "eos_token_id", None)
        return eos if eos is not None else self.prefix_token_id

    @property
    def prefix_token_id(self) -> int:
        """HFLM's: BOS, else EOS; the context of an empty context."""
        if self._bos is not None:
            return self._bos
        eos = getattr(self.backend, "eos_token_id", None)
        if eos is None:
            raise EvaluationFailure("the model has neither a BOS nor an EOS token to condition an empty context on")
        return eos

    @property
    def max_length(self) -> int:
        return self.backend.max_length or DEFAULT_MAX_LENGTH

    def tok_encode(self, string: str, add_special_tokens: bool | None = None, **kwargs: Any) -> list[int]:
        bos = self.add_bos if add_special_tokens is None else add_special_tokens
        return ([self._bos] if bos and self._bos is not None else []) + self.backend.tokenize(string)

    # -- scoring -------------------------------------------------------------------------------------

    def _loglikelihood_tokens(self, requests: Sequence[tuple[tuple[str, ...], list[int], list[int]]],
                              disable_tqdm: bool = False, **kwargs: Any) -> list[tuple[float, bool]]:
        scored = [self._fit(context, continuation) for _, context, continuation in requests]
        answers = self._score(scored, "loglikelihood requests")
        for (strings, _, continuation), _answer in zip(requests, answers, strict=True):
            if strings is not None:
                self.token_counts[tuple(strings)] = len(continuation)
        return [(a[0], a[1]) for a in answers]

    def _fit(self, context: list[int], continuation: list[int]) -> LoglikRequest:
        """HFLM's left truncation: at most `max_length` tokens go into the model."""
        if not continuation:
            raise EvaluationFailure("lm-eval asked for the log-likelihood of an empty continuation")
        if len(continuation) > self.max_length:
            raise BadInput(f"a continuation of {len(continuation)} tokens does not fit the model's "
                           f"{self.max_length}-token context")
        whole = (list(context) + list(continuation))[-(self.max_length + 1):]
        return LoglikRequest(tuple(whole[:-len(continuation)]), tuple(continuation))

    def _score(self, requests: Sequence[LoglikRequest], what: str, *,
               alone: bool = False) -> list[tuple[float, bool, int]]:
        """(log-likelihood, is greedy, tokens) per request: journalled answers first, the rest from the backend
        (one request per call when `alone`)."""
        keys = [request_key("loglik", r.context, r.continuation) for r in requests]
        answers: list[tuple[float, bool, int] | None] = [
            tuple(self.journal.answers[k]) if k in self.journal.answers else None for k in keys]  # type: ignore[misc]
        todo = [i for i, a in enumerate(answers) if a is None]
        with Progress(len(requests), f"{self.label} {what}".strip(), initial=len(requests) - len(todo)) as bar:
            for j, result in self._results([requests[i] for i in todo], alone):
                i = todo[j]
                greedy = bool(result.is_greedy) if result.is_greedy is not None else False
                answers[i] = (float(result.logprob_sum), greedy, int(result.n_tokens))
                self.journal.add(keys[i], list(answers[i]))
                bar.update()
        missing = [i for i, a in enumerate(answers) if a is None]
        if missing:
            raise EvaluationFailure(f"the backend returned no log-likelihood for {len(missing)} request(s)")
        return answers  # type: ignore[return-value]

    def _results(self, requests: Sequence[LoglikRequest], alone: bool) -> Iterator[tuple[int, LoglikResult]]:
        if not alone:
            yield from self.backend.loglikelihood(requests)
            return
        for j, request in enumerate(requests):
            for _, result in self.backend.loglikelihood([request]):
                yield j, result

    def loglikelihood_rolling(self, requests: Sequence[Any], disable_tqdm: bool = False) -> list[float]:
        """HFLM's windows (lm-eval's `get_rolling_token_windows` + `make_disjoint_window`), summed per document.

        Each window is scored alone, in its own forward as in HFLM: windows share their one-token context, so
        the hf scorer would pack several documents into one row, whose float32 attention over hundreds of
        tokens lands ~1e-4 from HFLM's on a document's total (alone, every token log-prob is HFLM's bit for bit)."""
        windows: list[LoglikRequest] = []
        owners: list[int] = []
        for n, (string,) in enumerate(req.args for req in requests):
            tokens = self.tok_encode(string)
            for context, continuation in map(utils.make_disjoint_window, utils.get_rolling_token_windows(
                    token_list=tokens, prefix_token=self.prefix_token_id, max_seq_len=self.max_length,
                    context_len=1)):
                windows.append(self._fit(context, continuation))
                owners.append(n)
            self.token_counts[(string,)] = len(tokens)
        totals = [0.0] * len(requests)
        for owner, (ll, _, _) in zip(owners, self._score(windows, "rolling windows", alone=True), strict=True):
            totals[owner] += ll
        return totals

    # -- generation ----------------------------------------------------------------------------------

    def generate_until(self, requests: Sequence[Any], disable_tqdm: bool = False) -> list[str]:
        """Greedy (or the task's settings) up to the task's stop strings, cut at the first one as HFLM does."""
        if self._generator is None:
            raise BadInput("generate_until tasks need a backend that generates: --backend hf or server "
                           "(the gguf backend only scores)")
        if self._gen_backend is None:
            self._gen_backend = self._generator()
        gens, keys, stops = [], [], []
        for context, settings in (req.args for req in requests):
            settings = dict(settings or {})
            until = settings.get("until") or []
            until = [until] if isinstance(until, str) else list(until)
            gen = GenerationRequest(prompt=context, max_tokens=int(settings.get("max_gen_toks", DEFAULT_MAX_GEN_TOKS)),
                                    temperature=float(settings.get("temperature", 0.0)) if settings.get("do_sample")
                                    else 0.0, stop=tuple(until))
            gens.append(gen)
            stops.append(until)
            keys.append(request_key("generate", context, gen.max_tokens, gen.temperature, list(gen.stop)))
        texts: list[str | None] = [self.journal.answers.get(k) for k in keys]
        todo = [i for i, t in enumerate(texts) if t is None]
        with Progress(len(requests), f"{self.label} generations".strip(), initial=len(requests) - len(todo)) as bar:
            for j, result in self._gen_backend.generate([gens[i] for i in todo]):
                i = todo[j]
                if result.error:
                    raise EvaluationFailure(f"generation failed: {result.error}")
                texts[i] = _cut(result.text or "", stops[i])
                self.journal.add(keys[i], texts[i])
                bar.update()
        return [t or "" for t in texts]

    def close(self) -> None:
        if self._gen_backend is not None and self._gen_backend is not self.backend:
            self._gen_backend.close()


def _cut(text: str, stops: Sequence[str]) -> str:
    for stop in stops:
        if stop:
            text = text.split(stop, 1)[0]
    return text
