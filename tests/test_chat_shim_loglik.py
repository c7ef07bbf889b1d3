"""The shim answers lm-eval's log-likelihood requests exactly, or refuses with an HTTP error.

lm-eval's `local-completions` scores a choice by sending `echo: true, logprobs: 1, max_tokens: 1` and
summing `token_logprobs[ctxlen:-1]`. llama.cpp's server ignores `echo`; passed through, lm-eval got the
generated token's log-prob only, summed an empty slice, scored every choice 0 and printed an accuracy.
The shim now computes every prompt position by teacher forcing.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from evaluators.chat.shim import Shim
from evaluators.models.backends.base import LoglikRequest
from evaluators.models.backends.gguf import GGUFBackend
from evaluators.models.llamacpp import LlamaServer
from tests.loglik_standin import StandIn

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tiny_model):
    with LlamaServer(tiny_model["gguf"], n_ctx=2048, parallel=2, alias="tiny", exact=True, threads=1) as srv:
        yield srv


@pytest.fixture(scope="module")
def gguf(tiny_model):
    with GGUFBackend(tiny_model["gguf"], threads=1) as backend:
        yield backend


def post(url: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def expected_logprobs(gguf, prompt: list[int]) -> list[float]:
    (_, res), = gguf.loglikelihood([LoglikRequest(tuple(prompt[:1]), tuple(prompt[1:]))])
    return res.token_logprobs


def test_echo_requests_get_every_prompt_logprob_as_lm_eval_reads_them(server, gguf):
    context = gguf.tokenize("The river starts in the hills and")
    choices = [gguf.tokenize(" flows to the sea"), gguf.tokenize(" sings"), gguf.tokenize(" flows to the sea")]
    prompts = [context + c for c in choices]
    body = {"model": "tiny", "prompt": prompts, "temperature": 0, "max_tokens": 1, "logprobs": 1, "seed": 1234,
            "echo": True}  # exactly what lm-eval's local-completions sends for a batch of loglikelihood requests
    with Shim(server.base_url) as shim:
        status, answer = post(shim.base_url + "/v1/completions", body)
        assert status == 200, answer
        assert [c["index"] for c in answer["choices"]] == [0, 1, 2]
        for prompt, choice in zip(prompts, answer["choices"], strict=True):
            lp = choice["logprobs"]
            assert len(lp["token_logprobs"]) == len(prompt) + 1  # the prompt, then the one generated token
            assert lp["token_logprobs"][0] is None and lp["top_logprobs"][0] is None
            assert lp["token_logprobs"][1:-1] == pytest.approx(expected_logprobs(gguf, prompt), abs=1e-4)
            assert len(lp["tokens"]) == len(lp["text_offset"]) == len(prompt) + 1
            for value, top in zip(lp["token_logprobs"][1:], lp["top_logprobs"][1:], strict=True):
                assert len(top) == 1 and max(top.values()) >= value - 1e-6
            # lm-eval's own arithmetic (sum of token_logprobs[ctxlen:-1]) gives the continuation's log-prob
            ctxlen = len(context)
            continuation = sum(lp["token_logprobs"][ctxlen:-1])
            assert continuation == pytest.approx(sum(expected_logprobs(gguf, prompt)[ctxlen - 1:]), abs=1e-3)
            assert continuation < 0
        assert answer["choices"][0]["logprobs"] == answer["choices"][2]["logprobs"]

        # max_tokens 0 echoes the prompt alone; a text prompt is tokenized as the server would
        status, answer = post(shim.base_url + "/v1/completions", {**body, "prompt": "The river", "max_tokens": 0})
        assert status == 200, answer
        lp = answer["choices"][0]["logprobs"]
        assert answer["choices"][0]["text"] == "The river" and "".join(lp["tokens"]).endswith("The river")
        assert len(lp["token_logprobs"]) == answer["usage"]["prompt_tokens"]


@pytest.mark.parametrize(("change", "why"), [
    ({"max_tokens": 4}, "max_tokens"),
    ({"n": 2}, "n"),
    ({"temperature": 0.8}, "temperature"),
    ({"stream": True}, "stream"),
    ({"logprobs": 40}, "logprobs"),
    ({"logit_bias": {"5": 3}}, "logit_bias"),
    ({"prompt": []}, "prompt"),
])
def test_echo_requests_it_cannot_answer_exactly_are_refused(server, change, why):
    body = {"model": "tiny", "prompt": [[5, 6, 7]], "max_tokens": 1, "logprobs": 1, "echo": True, "temperature": 0,
            **change}
    with Shim(server.base_url) as shim:
        status, answer = post(shim.base_url + "/v1/completions", body)
    assert status == 400, answer
    assert why in answer["error"]["message"]


def test_an_upstream_without_next_token_distributions_is_refused_not_zeroed(tiny_model):
    body = {"model": "tiny", "prompt": [[5, 6, 7]], "max_tokens": 1, "logprobs": 1, "echo": True, "temperature": 0}
    with StandIn(tiny_model["gguf"], "llama-no-forcing") as upstream, Shim(upstream.base_url) as shim:
        status, answer = post(shim.base_url + "/v1/completions", body)
    assert status == 502, answer
    assert "exact" in answer["error"]["message"] and "choices" not in answer


def test_an_upstream_that_echoes_itself_is_proxied(tiny_model, gguf):
    prompt = gguf.tokenize("The river starts")
    body = {"model": "tiny", "prompt": prompt, "max_tokens": 1, "logprobs": 1, "echo": True, "temperature": 0}
    with StandIn(tiny_model["gguf"], "vllm") as upstream, Shim(upstream.base_url) as shim:
        status, answer = post(shim.base_url + "/v1/completions", body)
    assert status == 200
    assert answer["choices"][0]["logprobs"]["token_logprobs"][1:-1] == pytest.approx(expected_logprobs(gguf, prompt))
