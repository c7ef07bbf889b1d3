"""The packed scorer against plain unbatched forwards of a random Llama, on real torch kernels."""

from __future__ import annotations

import random

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from evaluators.core.errors import EvaluationFailure  # noqa: E402
from evaluators.models.backends.base import LoglikRequest  # noqa: E402
from evaluators.models.backends.hf_loglik import PackedScorer  # noqa: E402

VOCAB = 301


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                                      tie_word_embeddings=False)
    m = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():
        m.lm_head.weight.mul_(8.0)  # spread the choices so rankings mean something
    return m


def items(n: int, seed: int = 1, choices: int = 4) -> list[list[LoglikRequest]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        ctx = tuple(rng.randrange(VOCAB) for _ in range(rng.randint(1, 60)))
        out.append([LoglikRequest(ctx, tuple(rng.randrange(VOCAB) for _ in range(rng.randint(1, 9))))
                    for _ in range(choices)])
    return out


def plain(model, req: LoglikRequest) -> float:
    ids = torch.tensor([list(req.context) + list(req.continuation)])
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0].float()
    lp = torch.log_softmax(logits, dim=-1)
    n = len(req.context)
    return sum(float(lp[n - 1 + j, tok]) for j, tok in enumerate(req.continuation))


def flat(batch: list[list[LoglikRequest]]) -> list[LoglikRequest]:
    return [r for item in batch for r in item]


def argmax_mean(results, n_choices: int) -> list[int]:
    preds = []
    for start in range(0, len(results), n_choices):
        means = [results[start + k].logprob_sum / results[start + k].n_tokens for k in range(n_choices)]
        preds.append(max(range(n_choices), key=lambda k: (means[k], -k)))
    return preds


def score(model, requests, **kw):
    scorer = PackedScorer(model, **kw)
    out = dict(scorer.score(requests))
    assert sorted(out) == list(range(len(requests)))
    return [out[i] for i in range(len(requests))], scorer


def test_mean_logprobs_equal_plain_forward(model):
    requests = flat(items(12))
    results, scorer = score(model, requests)
    assert scorer.describe()["scorer"] == "packed-tree"
    assert scorer.describe()["projection"] == "needed-positions"
    for req, res in zip(requests, results, strict=True):
        ref = plain(model, req)
        assert res.n_tokens == len(req.continuation)
        assert abs(res.logprob_sum / res.n_tokens - ref / len(req.continuation)) <= 1e-4
        assert len(res.token_logprobs) == res.n_tokens
        assert abs(sum(res.token_logprobs) - res.logprob_sum) < 1e-4


@pytest.mark.slow
def test_predictions_identical_for_batch_sizes(model):
    requests = flat(items(40, seed=2))
    preds = {}
    sums = {}
    for bs in (1, 8, 32):
        results, _ = score(model, requests, max_contexts=bs)
        preds[bs] = argmax_mean(results, 4)
        sums[bs] = [r.logprob_sum for r in results]
    assert preds[1] == preds[8] == preds[32]
    assert max(abs(a - b) for a, b in zip(sums[1], sums[32], strict=True)) < 1e-4
    assert len(set(preds[1])) > 1  # the random model does not answer one index everywhere


def test_shared_contexts_are_packed_once_and_budget_respected(model):
    requests = flat(items(10, seed=3))
    scorer = PackedScorer(model, max_contexts=None, token_budget=200)
    groups = scorer._groups(requests)
    assert len(groups) == 10
    start = 0
    while start < len(groups):
        batch = scorer._take(groups, start)
        assert len(batch) == 1 or len(batch) * batch[0].length <= 200
        start += len(batch)
    assert [g.length for g in groups] == sorted((g.length for g in groups), reverse=True)


def test_many_continuations_split_under_budget(model):
    rng = random.Random(4)
    ctx = tuple(rng.randrange(VOCAB) for _ in range(30))
    requests = [LoglikRequest(ctx, tuple(rng.randrange(VOCAB) for _ in range(8))) for _ in range(30)]
    results, scorer = score(model, requests, token_budget=100)
    assert all(g.length <= 100 for g in scorer._groups(requests))
    for req, res in zip(requests[:5], results[:5], strict=True):
        assert abs(res.logprob_sum - plain(model, req)) < 1e-3


def test_out_of_memory_shrinks_budget_and_retries(model):
    """An allocator failure above a size: the scorer halves its budget and keeps the size that worked."""
    requests = flat(items(16, seed=5))
    reference, _ = score(model, requests)
    decoder = model.get_decoder()
    original = decoder.forward
    calls = []

    def limited(*args, **kwargs):
        ids = kwargs["input_ids"]
        calls.append(ids.numel())
        if ids.numel() > 150:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return original(*args, **kwargs)

    decoder.forward = limited
    try:
        results, scorer = score(model, requests, max_contexts=None, token_budget=4096, verify=False)
    finally:
        del decoder.forward
    assert scorer.backoffs >= 1
    assert scorer.token_budget <= 150 or max(calls) <= 150
    for a, b in zip(reference, results, strict=True):
        assert abs(a.logprob_sum - b.logprob_sum) < 1e-4
    # Once the budget has shrunk, no batch is tried beyond it again: the size that worked is kept.
    last_oom = max(i for i, c in enumerate(calls) if c > 150)
    assert calls[last_oom + 1:] and all(c <= scorer.token_budget for c in calls[last_oom + 1:])


def test_single_row_out_of_memory_is_an_evaluation_failure(model):
    decoder = model.get_decoder()

    def always(*args, **kwargs):
        raise torch.OutOfMemoryError("CUDA out of memory")

    decoder.forward = always
    try:
        with pytest.raises(EvaluationFailure, match="single row"):
            list(PackedScorer(model, verify=False).score(flat(items(1))))
    finally:
        del decoder.forward


def test_model_ignoring_custom_masks_falls_back_to_rows(model):
    """A model that drops the 4D mask (treats everything as plain causal) is detected by the probe."""
    decoder = model.get_decoder()
    original = decoder.forward

    def causal_only(*args, **kwargs):
        mask = kwargs.get("attention_mask")
        if mask is not None and mask.dim() == 4:
            kwargs["attention_mask"] = None
            kwargs.pop("position_ids", None)
        return original(*args, **kwargs)

    decoder.forward = causal_only
    try:
        requests = flat(items(4, seed=6))
        results, scorer = score(model, requests)
    finally:
        del decoder.forward
    assert scorer.describe()["scorer"] == "per-row"
    for req, res in zip(requests, results, strict=True):
        assert abs(res.logprob_sum - plain(model, req)) < 1e-3


def test_empty_context_is_refused(model):
    with pytest.raises(EvaluationFailure, match="empty context"):
        list(PackedScorer(model).score([LoglikRequest((), (1, 2))]))


def test_identical_continuations_get_identical_scores_and_the_first_wins_the_tie(model):
    """Packed in one row, two copies of a continuation sit at different offsets and used to come out a
    rounding apart (~1e-6), so the later copy could win a tie the seeds give to the first."""
    scorer = PackedScorer(model)
    worst = 0.0
    for item in items(20, seed=7, choices=3):
        a, b, c = item
        reqs = [a, b, a, c, a]  # the same continuation three times, at three offsets in the packed row
        got = dict(scorer.score(reqs))
        worst = max(worst, abs(got[0].logprob_sum - got[2].logprob_sum), abs(got[0].logprob_sum - got[4].logprob_sum))
        assert got[0].logprob_sum == got[2].logprob_sum == got[4].logprob_sum
        assert got[0].token_logprobs == got[2].token_logprobs
    assert worst == 0.0


def test_shuffling_the_requests_changes_no_score(model):
    """A continuation's offset in its packed row and its batch-mates follow from the set of requests, so a
    reorder gives the same floats (it used to move them by float rounding, enough to flip a near-tie)."""
    scorer = PackedScorer(model, max_contexts=3)
    reqs = flat(items(12, seed=9))
    expected = dict(scorer.score(reqs))
    order = list(range(len(reqs)))
    random.Random(3).shuffle(order)
    got = {order[j]: r for j, r in scorer.score([reqs[i] for i in order])}
    assert all(got[i].token_logprobs == expected[i].token_logprobs for i in expected)


@pytest.mark.slow
def test_torch_log_softmax_reproduces_hflm_and_the_default_a_float64_normalisation():
    """With a 49k vocabulary, float32 `torch.log_softmax` on CPU drifts from a float64 normalisation of the same
    logits; `torch_log_softmax=True` gives HFLM's numbers, the default the float64 ones."""
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=49152, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=512)
    big = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():
        big.lm_head.weight.mul_(40.0)
    rng = random.Random(3)
    requests = [LoglikRequest(tuple(rng.randrange(49152) for _ in range(4)),
                              tuple(rng.randrange(49152) for _ in range(300))) for _ in range(2)]
    with torch.no_grad():
        logits = [big(input_ids=torch.tensor([list(r.context) + list(r.continuation)])).logits[0, 3:-1].float()
                  for r in requests]
    targets = [torch.tensor(r.continuation)[:, None] for r in requests]
    as_torch = [float(torch.log_softmax(lg, -1).gather(1, t).double().sum()) for lg, t in zip(logits, targets, strict=True)]
    in_f64 = [float(torch.log_softmax(lg.double(), -1).gather(1, t).sum()) for lg, t in zip(logits, targets, strict=True)]
    drift = max(abs(a - b) for a, b in zip(as_torch, in_f64, strict=True))
    hflm, scorer = score(big, requests, torch_log_softmax=True)
    exact, _ = score(big, requests)
    assert scorer.describe()["log_softmax"] == "torch"
    assert max(abs(r.logprob_sum - a) for r, a in zip(hflm, as_torch, strict=True)) <= drift / 10
    assert max(abs(r.logprob_sum - b) for r, b in zip(exact, in_f64, strict=True)) <= drift / 10
