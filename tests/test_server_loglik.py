"""Server log-likelihoods: exact against the in-process backend on a real llama.cpp server, and refusals."""

from __future__ import annotations

import time

import numpy as np
import pytest

from evaluators.models.backends.base import LoglikRequest
from evaluators.models.backends.gguf import GGUFBackend
from evaluators.models.backends.server_loglik import Refused, ServerLoglikBackend
from tests.loglik_standin import StandIn
from tests.test_gguf_backend import make_requests


@pytest.fixture(scope="module")
def gguf(tiny_model):
    with GGUFBackend(tiny_model["gguf"], threads=1) as backend:
        yield backend


@pytest.fixture(scope="module")
def llama_server(tiny_model):
    from evaluators.models.llamacpp import LlamaServer

    with LlamaServer(tiny_model["gguf"], n_ctx=4096, parallel=2, exact=True, threads=1) as server:
        yield server


def mean_logprobs(results: dict, n: int) -> np.ndarray:
    return np.array([results[i].logprob_sum / results[i].n_tokens for i in range(n)])


def assert_same_scores(expected: dict, got: dict, n: int, choices: int = 4) -> None:
    a, b = mean_logprobs(expected, n), mean_logprobs(got, n)
    assert np.max(np.abs(a - b)) <= 1e-4
    assert (a.reshape(-1, choices).argmax(1) == b.reshape(-1, choices).argmax(1)).all()


def test_teacher_forcing_on_llama_cpp_matches_in_process_scoring(gguf, llama_server):
    backend = ServerLoglikBackend.connect(llama_server.base_url)
    assert backend.method == "teacher_forcing"
    assert backend.workers == 2  # one per server slot
    assert backend.banned, "the byte-level vocabulary has partial UTF-8 tokens to keep from being sampled"
    assert backend.tokenize(" café 日本 🍌 (x)") == gguf.tokenize(" café 日本 🍌 (x)")
    assert backend.max_length == 2048 and backend.bos_token_id == gguf.bos_token_id
    reqs = make_requests(gguf.tokenize, 6, seed=11)
    expected = dict(gguf.loglikelihood(reqs))
    got = dict(backend.loglikelihood(reqs))
    assert sorted(got) == list(range(len(reqs)))
    assert_same_scores(expected, got, len(reqs))
    assert all(got[i].is_greedy == expected[i].is_greedy for i in got)
    # the pinned slot's prompt cache makes a step cost two tokens, not the whole prefix again
    contexts = sum(len(r.context) for r in reqs[::4])
    assert backend.stats.prompt_tokens_evaluated <= 2 * contexts + 2 * backend.stats.requests
    assert backend.identity.extra["loglik_method"] == "teacher_forcing"
    assert backend.describe_loglik()["requests"] == backend.stats.requests


def test_choices_sharing_a_prompt_cost_one_request(gguf, llama_server):
    backend = ServerLoglikBackend.connect(llama_server.base_url)
    letters = [tuple(gguf.tokenize(f" {x}")) for x in "ABCD"]
    assert all(len(t) == 1 for t in letters)
    contexts = [tuple(gguf.tokenize(f"Question {k}: which letter? Answer:")) for k in range(3)]
    reqs = [LoglikRequest(c, t) for c in contexts for t in letters]
    got = dict(backend.loglikelihood(reqs))
    # one distribution per context, widened at most twice (32, 1024, all) to reach every letter
    assert backend.stats.requests <= 3 * len(contexts) < len(reqs)
    expected = dict(gguf.loglikelihood(reqs))
    assert_same_scores(expected, got, len(reqs))


def test_teacher_forcing_stops_when_the_reader_stops(gguf, llama_server):
    backend = ServerLoglikBackend.connect(llama_server.base_url, concurrency=1)
    reqs = make_requests(gguf.tokenize, 3, seed=15)
    results = backend.loglikelihood(reqs)
    next(results)  # the first item is done; the worker has moved on to the second
    at_first = backend.stats.requests
    results.close()  # what an error or Ctrl-C in the evaluator does
    second_item_steps = sum(len(r.continuation) for r in reqs[4:8])
    assert backend.stats.requests - at_first < second_item_steps / 4, "the worker finished the item anyway"
    sent = backend.stats.requests
    time.sleep(0.3)
    assert backend.stats.requests == sent


def test_echoed_prompt_logprobs_are_used(tiny_model, gguf):
    reqs = make_requests(gguf.tokenize, 4, seed=12)
    with StandIn(tiny_model["gguf"], "vllm") as server:
        backend = ServerLoglikBackend.connect(server.base_url)
        assert backend.method == "echo"
        got = dict(backend.loglikelihood(reqs))
    assert_same_scores(dict(gguf.loglikelihood(reqs)), got, len(reqs))


@pytest.mark.parametrize(("mode", "why"), [
    ("vllm-no-logprobs", "gives no prompt log-probs .* no next-token distribution .*HTTP 404"),
    ("vllm-zeros", "are exactly 0"),
    ("vllm-constant", "all .* prompt log-probs equal -1.0"),
    ("vllm-short", r"prompt log-probs for \d+ prompt tokens"),
    ("vllm-nulls", "is None, not a number"),
    ("vllm-positive", "not a finite value <= 0"),
    ("vllm-adds-bos", r"evaluated \d+ tokens for a \d+-token prompt"),
    ("llama-no-forcing", "echo is ignored.*no next-token distribution"),
    ("llama-placeholder", "not the model's full distribution"),
    ("llama-biased", "biased log-probs"),
])
def test_servers_without_exact_logprobs_are_refused(tiny_model, mode, why):
    with StandIn(tiny_model["gguf"], mode) as server, pytest.raises(Refused, match=why) as info:
        ServerLoglikBackend.connect(server.base_url)
    assert info.value.exit_code == 3


def test_a_server_that_breaks_mid_run_stops_the_run(tiny_model, gguf):
    reqs = make_requests(gguf.tokenize, 2, seed=13)
    with StandIn(tiny_model["gguf"], "vllm-breaks-later") as server:
        backend = ServerLoglikBackend.connect(server.base_url)  # its probe is answered correctly
        with pytest.raises(Refused, match="exactly 0"):
            list(backend.loglikelihood(reqs))


def test_a_truncated_prompt_is_refused(tiny_model, gguf):
    reqs = make_requests(gguf.tokenize, 1, seed=16, choices=1)
    with StandIn(tiny_model["gguf"], "llama-truncates") as server:
        backend = ServerLoglikBackend.connect(server.base_url)
        with pytest.raises(Refused, match="truncated a"):
            list(backend.loglikelihood(reqs))


def test_a_target_missing_from_the_distribution_is_refused(tiny_model, gguf):
    reqs = make_requests(gguf.tokenize, 1, seed=14, choices=1)
    first = reqs[0].continuation[0]
    with StandIn(tiny_model["gguf"], "llama-drops-target", drop=frozenset({first})) as server:
        backend = ServerLoglikBackend.connect(server.base_url)
        assert backend.method == "teacher_forcing" and backend.banned == [5, 6]
        with pytest.raises(Refused, match=f"left token {first} out"):
            list(backend.loglikelihood(reqs))


def test_no_reply_leaves_the_plan_on_an_exact_server_and_a_prompt_cache_in_memory_would_move_slots(
        tiny_model, gguf, llama_server):
    """llama.cpp's prompt cache in host memory loads saved prompts into slots behind the plan: replies that
    evaluated other tokens than planned, each recomputed (a load that keeps the count moves a score unseen).
    The exact server has it off, so no reply leaves the plan; with it on, replies leave it, and the first
    prompt's recomputed numbers equal the exact server's (on this model and prompt)."""
    from evaluators.models.backends.teacher_forcing import DistributionCache
    from evaluators.models.llamacpp import LlamaServer

    words = gguf.tokenize("The quick brown fox jumps over the lazy dog and then")
    prompts = [words, words[:4] + gguf.tokenize(" cat sat on the mat")]

    def score(server: LlamaServer) -> tuple[list[list[float]], ServerLoglikBackend]:
        backend = ServerLoglikBackend.connect(server.base_url, concurrency=1)
        memo = DistributionCache()
        dists = [backend.prompt_logprobs(p, memo) for p in prompts]
        return [[d.found[t] for d, t in zip(ds, p[1:], strict=True)] for ds, p in zip(dists, prompts, strict=True)], \
            backend

    exact, backend = score(llama_server)
    assert backend.stats.recomputed == 0 and backend.describe_loglik()["recomputed_requests"] == 0
    with LlamaServer(tiny_model["gguf"], n_ctx=4096, parallel=2, exact=True, threads=1,
                     extra_args=["cache_ram_mib=64"]) as cached:
        moved, backend = score(cached)
    assert backend.stats.recomputed > 0
    assert np.abs(np.subtract(exact[0], moved[0])).max() <= 1e-5  # recomputed: caught, not wrong
