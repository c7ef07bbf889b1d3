"""The numbers every built-in benchmark reports on the tiny model and the bundled sample data.

They were recorded once, from the code just before the built-in benchmarks became spec files, into
`tests/fixtures/builtin_numbers.json`; `tests/test_builtin_numbers.py` checks that the specs reproduce
them. Loglik: the tiny transformers model (float32, CPU, one thread) on the Base Bench-format sample
and every base-evals sample split: every score row, every item's verdicts and every choice's
log-likelihood. Chat: the tiny model's own answers (llama.cpp, one slot, greedy, 48 tokens), recorded
with the exact request that produced each; the test replays them from the scripted server, so the
prompts are checked byte for byte and the grading and metrics exactly, on any machine. The tiny model's
answers are all cut by the budget, so a second set answers in the shapes real models use
(`scripted_reply`), for the grading of finished answers too.

Record (needs the tiny model, its GGUF and llama.cpp): `python -m tests.helpers.builtin_numbers loglik|chat --write`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from evaluators.store.store import Store
from tests.conftest import REPO, TINY_MODELS, run_cli

FIXTURE = REPO / "tests" / "fixtures" / "builtin_numbers.json"
SAMPLES = REPO / "tasks" / "samples"
CHAT_TASKS = "arc,mmlu,gsm8k"
MAX_TOKENS = "48"


def loglik_runs(tiny_model: dict, results: Path) -> None:
    """The tiny model on the Base Bench-format sample and the base-evals sample splits."""
    common = ["--model", tiny_model["path"], "--name", "tiny", "--results", str(results), "--device", "cpu",
              "--dtype", "float32", "--threads", "1"]
    for bench, data in (("base-bench", SAMPLES / "base-bench"), ("base-evals", SAMPLES / "base-evals")):
        proc = run_cli("loglik", "run", "--bench", bench, "--data", str(data), *common)
        assert proc.returncode == 0, proc.stderr


def chat_runs(base_url: str, results: Path, *extra: str) -> None:
    proc = run_cli("chat", "run", "--task", CHAT_TASKS, "--base-url", base_url, "--name", "tiny", "--data",
                   str(SAMPLES / "chat"), "--max-tokens", MAX_TOKENS, "--concurrency", "1", "--results",
                   str(results), *extra)
    assert proc.returncode == 0, proc.stderr


def scripted_reply(body: dict[str, Any]):
    """A deterministic answer in one of the forms models really write (a marked letter, a lower-case one in
    brackets, an answer after thinking, `#### N`, currency, no answer at all, an answer cut by the budget),
    chosen by a hash of the question: the grading and the metrics on a spread of answer shapes."""
    from tests.mock_openai import Reply

    user = body["messages"][-1]["content"]
    k = int(hashlib.sha256(user.encode()).hexdigest(), 16)
    letters = re.findall(r"^([A-H])\) ", user, re.M)
    if letters:
        pick = letters[k % len(letters)]
        forms = [f"The answer is {pick}", f"Let me think.\n\nAnswer: ({pick.lower()})",
                 f"<think>{letters[0]} looks wrong</think>{pick}", "I am not sure.", f"It could be {pick} or"]
    else:
        numbers_ = re.findall(r"\d+", user) or ["7"]
        pick = numbers_[k % len(numbers_)]
        forms = [f"So the total is {pick}.\n#### {pick}", f"The answer is ${pick}.00", f"<think>{pick}</think>",
                 "Let me see...", f"First {pick}, then"]
    form = (k // 7) % len(forms)
    return Reply(content=forms[form], finish_reason="length" if form == len(forms) - 1 else "stop")


def scripted_runs(results: Path) -> None:
    """The chat benchmarks on the sample data, answered by `scripted_reply`."""
    from tests.mock_openai import MockOpenAI, Rule

    with MockOpenAI(rules=[Rule(match=lambda body: True, reply=scripted_reply)]) as mock:
        chat_runs(mock.base_url, results)


def numbers(results: Path) -> dict[str, Any]:
    """Per run (benchmark, split): official flag, score rows, item outcomes, choice log-likelihoods."""
    store = Store(results)
    out: dict[str, Any] = {}
    for run in store.runs():
        key = run.benchmark + (f"/{run.split}" if run.split else "")
        choices: dict[str, list] = {}
        for item, lp, n in store.query("SELECT item_id, logprob_sum, n_tokens FROM choices WHERE run_id = ? "
                                       "ORDER BY item_id, idx", [run.run_id]).rows:
            choices.setdefault(item, []).append([lp, n])
        out[key] = {
            "evaluator": run.evaluator,
            "official": run.official,
            "scores": {f"{s.scope}|{s.key}|{s.metric}": [s.value, s.ci_low, s.ci_high, s.n]
                       for s in store.scores(run.run_id)},
            "items": {a.item_id: [a.status, a.prediction, a.correct,
                                     {k: v for k, v in (a.extra or {}).items() if k.startswith("correct_")}]
                      for a in store.attempts(run.run_id)},
            "choices": choices,
        }
    return out


def chat_replies(results: Path) -> list[dict[str, Any]]:
    """Each chat request as the model saw it, with the model's answer."""
    store = Store(results)
    out = []
    for run in store.runs(evaluator="chat"):
        fold = run.config["signature"]["scoring"].get("fold_system")
        for a in store.attempts(run.run_id):
            extra = a.extra or {}
            out.append({"messages": extra["messages"], "content": extra.get("raw"),
                        "reasoning": extra.get("reasoning"), "finish_reason": extra.get("finish_reason"),
                        "fold_system": fold})
    return out


def record(tiny_model: dict, evaluator: str) -> dict[str, Any]:
    """A fresh recording of one evaluator's built-in benchmarks ("loglik" or "chat")."""
    from evaluators.models.llamacpp import LlamaServer

    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results"
        if evaluator == "loglik":
            loglik_runs(tiny_model, results)
            return {"numbers": numbers(results)}
        with LlamaServer(tiny_model["gguf"], n_ctx=2048, parallel=1, alias="tiny", threads=1) as server:
            chat_runs(server.base_url, results)
        scripted_runs(Path(tmp) / "scripted")
        return {"numbers": numbers(results), "chat_replies": chat_replies(results),
                "chat_scripted": numbers(Path(tmp) / "scripted")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("evaluator", choices=("loglik", "chat"), help="whose built-in benchmarks to record")
    parser.add_argument("--write", action="store_true", help=f"record into {FIXTURE} (the other evaluator's "
                                                             "numbers there are kept)")
    args = parser.parse_args()
    from evaluators.models.tinymodel import cached_tiny

    fresh = record(cached_tiny(TINY_MODELS, gguf=True), args.evaluator)
    recorded = json.loads(FIXTURE.read_text(encoding="utf-8")) if FIXTURE.exists() else {"numbers": {}}
    recorded["numbers"] = {k: v for k, v in recorded["numbers"].items()
                           if (v["evaluator"] != args.evaluator)} | fresh["numbers"]
    for key in ("chat_replies", "chat_scripted"):
        if key in fresh:
            recorded[key] = fresh[key]
    text = json.dumps(recorded, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if args.write:
        FIXTURE.write_text(text, encoding="utf-8")
        print(f"wrote {FIXTURE}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
