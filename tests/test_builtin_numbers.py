"""The built-in benchmarks give the same numbers as before they became spec files.

`tests/fixtures/builtin_numbers.json` was recorded by `tests/helpers/builtin_numbers.py` from the code
just before the conversion: every score row, item verdict and choice log-likelihood of the loglik
benchmarks on the tiny model and the sample data, and the tiny model's answers to every chat sample
question with the request that produced each.
"""

from __future__ import annotations

import json
import math

import pytest

from tests.helpers.builtin_numbers import FIXTURE, chat_runs, loglik_runs, numbers, scripted_runs
from tests.mock_openai import MockOpenAI, Reply, Rule

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def same(expected, got, where: str = "") -> list[str]:
    """Differences between two recorded structures: floats to 1e-5 (relative or absolute: log-likelihoods may
    differ in their last bits between CPUs; every pick is at least 0.02 nats from its runner-up, so no
    verdict can), everything else exactly."""
    if isinstance(expected, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        ok = math.isclose(expected, got, rel_tol=1e-5, abs_tol=1e-6)
        return [] if ok else [f"{where}: {got!r} != {expected!r}"]
    if isinstance(expected, dict) and isinstance(got, dict):
        diffs = [f"{where}.{k}: missing" for k in expected if k not in got]
        diffs += [f"{where}.{k}: unexpected" for k in got if k not in expected]
        for k in expected.keys() & got.keys():
            diffs += same(expected[k], got[k], f"{where}.{k}")
        return diffs
    if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        return [d for i, (e, g) in enumerate(zip(expected, got, strict=True)) for d in same(e, g, f"{where}[{i}]")]
    return [] if expected == got else [f"{where}: {got!r} != {expected!r}"]


def test_loglik_benchmarks_give_the_recorded_numbers(tiny_model, tmp_path, recorded):
    loglik_runs(tiny_model, tmp_path / "results")
    expected = {k: v for k, v in recorded["numbers"].items() if v["evaluator"] == "loglik"}
    assert same(expected, numbers(tmp_path / "results")) == []


def test_chat_benchmarks_give_the_recorded_numbers_for_the_recorded_answers(tmp_path, recorded):
    replies = recorded["chat_replies"]
    rules = [Rule(match=lambda body, m=r["messages"]: body.get("messages") == m,
                  reply=Reply(content=r["content"], finish_reason=r["finish_reason"])) for r in replies]
    fold = {r["fold_system"] for r in replies}
    assert len(fold) == 1
    caps = {"chat_template_caps": {"supports_system_role": not fold.pop()}}
    with MockOpenAI(rules=rules, props_extra=caps) as mock:
        chat_runs(mock.base_url, tmp_path / "results")
        asked = [r.body["messages"] for r in mock.generation_requests()]
    key = lambda messages: json.dumps(messages, sort_keys=True)  # noqa: E731
    assert sorted(map(key, asked)) == sorted(key(r["messages"]) for r in replies)  # the same prompts, byte for byte
    got = numbers(tmp_path / "results")
    expected = {k: v for k, v in recorded["numbers"].items() if v["evaluator"] == "chat"}
    assert same(expected, got) == []


def test_chat_benchmarks_grade_the_scripted_answer_shapes_as_recorded(tmp_path, recorded):
    scripted_runs(tmp_path / "results")
    assert same(recorded["chat_scripted"], numbers(tmp_path / "results")) == []
