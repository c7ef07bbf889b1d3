"""loglik on a real model (SmolLM2-135M-Instruct, Q4_1, 30 layers), where the toy model hid three bugs.

* llama.cpp logs ~1,000 lines creating a 30-layer context; the exact-settings check used to read a
  400-line tail and refused every real model (exit 3).
* On quantised weights a continuation's score moved by up to ~0.5 nats with its batch-mates and by
  ~0.25 nats between in-process scoring and a server: now each score is a function of the item alone,
  and the two backends compute the same logits.
* transformers on the same weights (dequantised, float32) agrees with llama.cpp on a float32 GGUF.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from evaluators.loglik.prepare import prepare
from evaluators.loglik.spec import load_items
from evaluators.models.backends.base import LoglikRequest
from evaluators.models.backends.gguf import GGUFBackend
from tests.conftest import REPO, run_cli

pytestmark = pytest.mark.real
SAMPLES = REPO / "tasks" / "samples"
SPLITS = ["tiny_hellaswag", "tiny_pythonio", "tiny_truthfulqa"]
# The tests of `q4_scores` run on one xdist worker, so the scores (and the model) are computed once.
Q4_SCORES = pytest.mark.xdist_group("smollm2-q4-scores")


def sample_requests(backend) -> tuple[list[LoglikRequest], list[int]]:
    """Base Bench-format and base-evals sample items as requests, and how many choices each item has."""
    prepared = prepare(backend, load_items("base-bench", str(SAMPLES / "base-bench")), "separate", add_bos=False)
    prepared += prepare(backend, load_items("base-evals", str(SAMPLES / "base-evals"), SPLITS), "joint", add_bos=False)
    prepared = [p for p in prepared if p.reject is None]
    return [r for p in prepared for r in p.requests], \
        [len(p.continuations) for p in prepared]


def predictions(results: dict, sizes: list[int]) -> list[int]:
    out, i = [], 0
    for n in sizes:
        means = [results[i + k].logprob_sum / results[i + k].n_tokens for k in range(n)]
        out.append(int(np.argmax(means)))
        i += n
    return out


@pytest.fixture(scope="module")
def q4(real_model):
    with GGUFBackend(real_model["gguf"], threads=1) as backend:
        yield backend


@pytest.fixture(scope="module")
def q4_scores(q4):
    reqs, sizes = sample_requests(q4)
    return reqs, sizes, dict(q4.loglikelihood(reqs))


@Q4_SCORES
def test_a_real_30_layer_model_loads_with_the_exact_settings_verified(q4, real_model):
    assert q4.model.n_vocab == 49152 and q4.identity.quantization == "Q4_1"
    assert q4.identity.files_sha256 == {Path(real_model["gguf"]).name: real_model["gguf_sha256"]}
    assert q4.identity.extra["exact"] == {"flash_attn": False, "kv_cache": "f32", "log_softmax": "float32"}


@pytest.mark.parametrize("bench", ["base-bench", "base-evals:" + ",".join(SPLITS)])
def test_loglik_run_with_the_gguf_backend_on_a_real_model(real_model, tmp_path, bench):
    data = SAMPLES / ("base-bench" if bench == "base-bench" else "base-evals")
    proc = run_cli("loglik", "run", "--bench", bench, "--data", str(data), "--backend", "gguf",
                   "--model", real_model["gguf"], "--name", "smol", "--threads", "1", "--results", str(tmp_path),
                   "--json", timeout=900)
    assert proc.returncode == 0, proc.stderr
    runs = json.loads(proc.stdout)["runs"]
    assert len(runs) == (1 if bench == "base-bench" else len(SPLITS))
    for run in runs:
        report = json.loads((Path(run["dir"]) / "report.json").read_text())
        assert report["model"]["kind"] == "gguf" and report["config"]["scorer"]["flash_attn"] is False
        scored = [i for i in report["items"] if i["status"] == "ok"]
        assert scored and all(c["mean_logprob"] < 0 for i in scored for c in i["choices"])


@Q4_SCORES
def test_scores_do_not_depend_on_order_batch_mates_threads_or_call_size(real_model, q4, q4_scores):
    reqs, _, expected = q4_scores
    # Every other request, shuffled: each is scored after other contexts than before and, where its context has
    # several continuations, beside fewer of them. Half the set is as strict as all of it: a score that depended
    # on its neighbours would differ in its last bits on most items (30 layers carry a one-bit change through).
    order = list(range(0, len(reqs), 2))
    random.Random(0).shuffle(order)
    shuffled = {order[j]: r for j, r in q4.loglikelihood([reqs[i] for i in order])}
    alone = {i: dict(q4.loglikelihood([reqs[i]]))[0] for i in range(0, len(reqs), 9)}
    with GGUFBackend(real_model["gguf"], threads=2, n_batch=7, n_ctx=1024) as other:
        other_layout = dict(other.loglikelihood(reqs[::3]))
    for i, result in shuffled.items():  # bitwise: the same floats, not merely close ones
        assert result.token_logprobs == expected[i].token_logprobs
    for i, result in alone.items():
        assert result.token_logprobs == expected[i].token_logprobs
    for j, result in other_layout.items():
        assert result.token_logprobs == expected[3 * j].token_logprobs


@Q4_SCORES
@pytest.mark.slow
def test_gguf_and_server_teacher_forcing_agree_and_the_server_ignores_concurrency(real_model, q4_scores):
    from evaluators.models.backends.server_loglik import ServerLoglikBackend
    from evaluators.models.llamacpp import LlamaServer

    reqs, sizes, expected = q4_scores
    n = sum(sizes[:8])  # the first eight items: Base Bench-format ones (long continuations)
    subset = reqs[:n]
    with LlamaServer(real_model["gguf"], n_ctx=4 * 1024, parallel=4, exact=True, threads=1) as server:
        four = ServerLoglikBackend.connect(server.base_url)
        assert four.method == "teacher_forcing" and four.workers == 4
        got = dict(four.loglikelihood(subset))
        one = dict(ServerLoglikBackend.connect(server.base_url, concurrency=1).loglikelihood(subset[::-1]))
        # the logits are the same: renormalised over the server's whole distribution, a log-prob matches to
        # float32 rounding; the server's own float32 softmax sum is what puts ~1e-4 on each token
        with four.forcing.slot() as slot:
            for i in (0, 5, 17):
                req, j = subset[i], len(subset[i].continuation) - 1
                dist = four.forcing.distribution(slot, req.context + req.continuation[:j], {}, width=four.n_vocab)
                values = np.array(list(dist.found.values()), dtype=np.float64)
                renormalised = dist.found[req.continuation[j]] - (values.max() + np.log(np.exp(values - values.max()).sum()))
                assert abs(renormalised - expected[i].token_logprobs[j]) <= 1e-5
    sums = np.array([got[i].logprob_sum - expected[i].logprob_sum for i in range(n)])
    means = np.array([sums[i] / expected[i].n_tokens for i in range(n)])
    assert np.abs(means).max() <= 1e-3 and np.abs(sums).max() <= 3e-3, (np.abs(means).max(), np.abs(sums).max())
    assert predictions(got, sizes[:8]) == predictions(expected, sizes[:8])
    # the server's own numbers do not move with order or concurrency, but for the final projection's float32
    # rounding when several slots' output rows share one batch (a last operation: nothing amplifies it). Which
    # rows share a batch depends on timing; the worst seen is 1.72e-5 (a few ulps of a logit near 20, through
    # the log-softmax). A real dependence (a wrong context, a swapped row) changes whole rows, far past rounding.
    worst = max(np.abs(np.subtract(one[n - 1 - i].token_logprobs, got[i].token_logprobs)).max() for i in range(n))
    assert worst <= 1e-4, worst


@pytest.mark.slow
def test_transformers_on_the_dequantised_weights_equals_llama_cpp_on_a_float32_gguf(real_hf_model):
    from evaluators.models.backends.hf import HFBackend
    from evaluators.models.realmodel import real_gguf_f32

    f32 = real_gguf_f32(Path(real_hf_model["gguf"]).parent)["gguf_f32"]
    with GGUFBackend(f32, threads=1) as gguf:
        reqs, sizes = sample_requests(gguf)
        reqs = reqs[:sum(sizes[:10])]
        expected = dict(gguf.loglikelihood(reqs))
        probe = gguf.tokenize(" The café, 日本 🍌")
    with HFBackend(real_hf_model["hf"], device="cpu", dtype="float32", threads=1) as hf:
        assert hf.tokenize(" The café, 日本 🍌") == probe
        got = dict(hf.loglikelihood(reqs))
        shuffled = {len(reqs) - 1 - i: r for i, r in hf.loglikelihood(reqs[::-1])}
    worst = max(np.abs(np.subtract(got[i].token_logprobs, expected[i].token_logprobs)).max() for i in expected)
    assert worst <= 1e-4, worst
    assert predictions(got, sizes[:10]) == predictions(expected, sizes[:10])
    # rows and batches follow from the set of requests, not their order: a reorder changes no bit
    assert all(shuffled[i].token_logprobs == got[i].token_logprobs for i in got)
