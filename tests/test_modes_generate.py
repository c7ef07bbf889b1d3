"""`bananabench modes generate|run`: seeded draws from a server, raw responses kept, resumable, then graded.

The scripted stand-in plays a model that knows correct answers (so the numbers are predictable); the
real llama.cpp server with the tiny model tests the plumbing end to end (its answers are noise).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluators.store.store import Store
from tests.conftest import REPO, cli_env, run_cli
from tests.helpers.modes_check import check_run, read_jsonl, split_generated, write_jsonl
from tests.mock_openai import MockOpenAI, Reply, Rule

# Two correct answers per walkthrough task, picked by the draw's seed; draws with seed % 4 == 3 refuse.
CORRECT = {
    "countdown": ["(3+(6+9))", "((3+6)+9)"],
    "graph_coloring": ["211132", "213112"],
    "python_factors": ["lambda n: 2 if n==18 else 2 if n==82 else 7 if n==91 else 3",
                       "lambda n: 9 if n==18 else 41 if n==82 else 13 if n==91 else 31"],
    "mathir": ["C;F", "F;E"],
    "pantry_plan": ["110000", "100100"],
}
def surface(domain: str, answer: str) -> str:
    """What the scripted model writes: boxed answers, except Level-1 Pantry's bare six-bit support mask."""
    return answer if domain == "pantry_plan" else "\\boxed{" + answer + "}"


MARKERS = {"countdown": "arithmetic expression", "graph_coloring": "Color this graph",
           "python_factors": "lambda n: EXPR", "mathir": "MathIR", "pantry_plan": "pantry"}


@pytest.fixture(scope="module")
def walkthrough(tmp_path_factory) -> dict[str, Path]:
    from evaluators.modes.demo import walkthrough_files

    return walkthrough_files(tmp_path_factory.mktemp("modes-gen"))


def _domain_of(body: dict) -> str:
    text = body["messages"][-1]["content"]
    return next(d for d, marker in MARKERS.items() if marker in text)


def scripted(body: dict, *, delay_s: float = 0.0) -> Reply:
    """A model that answers correctly (two modes, alternating with the seed) and refuses every fourth draw."""
    seed = body["seed"]
    if seed % 4 == 3:
        return Reply(content="I can't help with that.", delay_s=delay_s)
    domain = _domain_of(body)
    answer = surface(domain, CORRECT[domain][seed % 2])
    return Reply(content=f"<think>seed {seed}: let me work it out</think>{answer}", delay_s=delay_s)


@pytest.mark.slow
def test_run_against_scripted_server(walkthrough, results, tmp_path):
    out = tmp_path / "gen" / "responses.jsonl"
    with MockOpenAI(rules=[Rule(match=lambda b: True, reply=scripted)]) as mock:
        proc = run_cli("modes", "run", "--input", str(walkthrough["tasks"]), "--base-url", mock.base_url,
                       "--name", "scripted", "--k", "4", "--groups", "2", "--seed", "100", "--concurrency", "3",
                       "--out", str(out), "--results", str(results), "--min-defined-prompts", "1")
        requests = mock.generation_requests()
    assert proc.returncode == 0, proc.stderr
    # Prompts come from modebench.make_prompt; the reference answer never reaches the model.
    from modebench.api import make_prompt

    from evaluators.modes.datasets import load_custom_tasks

    tasks = load_custom_tasks(walkthrough["tasks"])
    prompts = [make_prompt(t) for t in tasks]
    assert len(requests) == 5 * 2 * 4
    for request in requests:
        body = request.body
        assert body["messages"] in prompts
        assert "instance_id" not in json.dumps(body) and body["temperature"] == 1.0 and body["max_tokens"] == 192
    assert sorted(r.body["seed"] for r in requests) == sorted(list(range(100, 108)) * 5)

    lines = read_jsonl(out)
    assert [(r["id"], r["group"]) for r in lines] == [(t.id, g) for t in tasks for g in (1, 2)]
    for record in lines:
        assert [d["draw"] for d in record["draws"]] == [(record["group"] - 1) * 4 + n for n in range(1, 5)]
        assert [d["seed"] for d in record["draws"]] == [100 + d["draw"] - 1 for d in record["draws"]]
        for draw, response in zip(record["draws"], record["responses"], strict=True):
            if draw["seed"] % 4 == 3:
                assert response == "I can't help with that."
            else:
                assert draw["content"].startswith("<think>seed") and draw["reasoning"].startswith("seed")
                assert response == surface(record["domain"], CORRECT[record["domain"]][draw["seed"] % 2])
    meta = json.loads(out.with_suffix(".run.json").read_text())
    assert meta["model"]["id"] == "scripted" and meta["prompt_condition"] == "registered_hints_v1"
    assert meta["generation"]["draws_per_prompt"] == 4 and meta["generation"]["groups"] == 2
    assert meta["generation"]["seed"] == 100 and meta["generation"]["failed_draws"] == 0

    run = Store(results).runs()[0]
    assert run.status == "finished" and run.model_name == "scripted"
    checked = check_run(results, run.run_id, split_generated(out, tmp_path / "split"), meta, tmp_path / "ref",
                        threshold=1)
    for cell in checked["cells"].values():
        assert cell["accuracy"] == 0.75 and cell["pass_at_k"] == 1.0 and cell["distinct_at_k"] == 2.0
        assert cell["pcmd"]["d_mode"] == pytest.approx(1 - (4 * 3 + 2 * 1) / (6 * 5))
    attempts = Store(results).attempts(run.run_id)
    refusal = next(a for a in attempts if a.extra["seed"] == 103)
    assert refusal.status == "malformed" and refusal.prediction == "I can't help with that."
    graded = next(a for a in attempts if a.extra["seed"] == 100)
    assert graded.extra["raw"].startswith("<think>") and graded.extra["reasoning"]


@pytest.mark.slow
def test_failed_draws_stop_by_default_and_are_declared_when_kept(walkthrough, results, tmp_path):
    def flaky(body: dict) -> Reply:
        if body["seed"] == 2 and _domain_of(body) == "mathir":
            return Reply(status=400, error="prompt rejected")
        return scripted(body)

    out = tmp_path / "responses.jsonl"
    with MockOpenAI(rules=[Rule(match=lambda b: True, reply=flaky)]) as mock:
        args = ["modes", "generate", "--input", str(walkthrough["tasks"]), "--base-url", mock.base_url, "--name", "f",
                "--k", "2", "--groups", "2", "--out", str(out)]
        proc = run_cli(*args)
        assert proc.returncode == 3
        assert "level1_mathir/walkthrough/0 group 2" in proc.stderr and "--resume" in proc.stderr
        assert not out.exists()
        partial = read_jsonl(out.with_name(out.name + ".partial"))
        assert len(partial) == 1 + 9  # header + every group but the failed one
        proc = run_cli(*args, "--resume", "--on-draw-error", "empty")
        assert proc.returncode == 2 and "failed_draw_policy" in proc.stderr
        out.with_name(out.name + ".partial").unlink()
        proc = run_cli(*args, "--on-draw-error", "empty")
    assert proc.returncode == 0, proc.stderr
    record = next(r for r in read_jsonl(out) if r["domain"] == "mathir" and r["group"] == 2)
    assert record["responses"][0] == "" and "HTTP 400" in record["draws"][0]["error"]
    meta = json.loads(out.with_suffix(".run.json").read_text())
    assert meta["generation"]["failed_draws"] == 1
    assert meta["generation"]["failed_draw_policy"] == "failed-draw-kept-as-empty-response"


@pytest.mark.slow
def test_kill_9_during_generation_then_resume(walkthrough, tmp_path):
    """SIGKILL mid-generation; --resume asks only for the groups that were not saved; nothing twice, nothing lost."""
    out = tmp_path / "responses.jsonl"
    partial = out.with_name(out.name + ".partial")
    with MockOpenAI(rules=[Rule(match=lambda b: True, reply=lambda b: scripted(b, delay_s=0.15))]) as mock:
        args = [sys.executable, "-m", "evaluators", "modes", "generate", "--input", str(walkthrough["tasks"]),
                "--base-url", mock.base_url, "--name", "k9", "--k", "3", "--groups", "3", "--seed", "5",
                "--concurrency", "2", "--out", str(out)]
        proc = subprocess.Popen(args, env=cli_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if partial.exists() and len(partial.read_bytes().splitlines()) >= 1 + 4:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
        saved = {(r["id"], r["group"]) for r in read_jsonl(partial)[1:]}
        assert 4 <= len(saved) < 15 and not out.exists()
        before = len(mock.generation_requests())
        done = run_cli(*args[3:], "--resume")
        assert done.returncode == 0, done.stderr
        resumed = mock.generation_requests()[before:]
    assert len(resumed) == 3 * (15 - len(saved))
    lines = read_jsonl(out)
    assert sorted((r["id"], r["group"]) for r in lines) == sorted({(r["id"], g) for r in lines for g in (1, 2, 3)})
    assert len(lines) == 15 and not partial.exists()
    for record in lines:
        assert [d["seed"] for d in record["draws"]] == [5 + (record["group"] - 1) * 3 + n for n in range(3)]
    # The same command without interruption writes the same responses.
    clean = tmp_path / "clean.jsonl"
    with MockOpenAI(rules=[Rule(match=lambda b: True, reply=scripted)]) as mock:
        args[args.index("--base-url") + 1] = mock.base_url
        proc = run_cli(*args[3:-1], str(clean))
        assert proc.returncode == 0, proc.stderr
    assert [r["responses"] for r in read_jsonl(clean)] == [r["responses"] for r in lines]


def test_bad_task_line_exit_2_nothing_written(walkthrough, tmp_path):
    lines = walkthrough["tasks"].read_text().splitlines()
    record = json.loads(lines[1])
    del record["answer"]
    lines[1] = json.dumps(record)
    bad = tmp_path / "tasks.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    out = tmp_path / "responses.jsonl"
    proc = run_cli("modes", "generate", "--input", str(bad), "--base-url", "http://127.0.0.1:9", "--name", "x",
                   "--out", str(out))
    assert proc.returncode == 2
    assert f"{bad}:2: answer: missing field" in proc.stderr
    assert list(tmp_path.iterdir()) == [bad]


@pytest.mark.parametrize("line, change, needle", [
    (1, {"target": "eighteen"}, "invalid countdown reference: answer.target must contain integers"),
    (2, {"verifier": "countdown"}, "answer.verifier 'countdown' does not match domain 'graph_coloring'"),
])
def test_custom_references_are_checked_before_any_generation(walkthrough, tmp_path, line, change, needle):
    """A reference modebench would reject is found before the model is asked: the user's file and line,
    modebench's reason, and what each domain's reference needs."""
    lines = walkthrough["tasks"].read_text().splitlines()  # countdown, graph_coloring, python_factors, ...
    record = json.loads(lines[line - 1])
    record["answer"] = {**record["answer"], **change}
    lines[line - 1] = json.dumps(record)
    bad = tmp_path / "tasks.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    results = tmp_path / "results"
    proc = run_cli("modes", "run", "--input", str(bad), "--base-url", "http://127.0.0.1:9", "--name", "x",
                   "--results", str(results))
    assert proc.returncode == 2, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith(f"bananabench: error: {bad}:{line}: answer: ") and needle in first, proc.stderr
    for domain, verifier in (("countdown", '"countdown"'), ("graph_coloring", '"graph_coloring"'),
                             ("mathir", '"mathir_algebra"'), ("pantry_plan", '"pantry_plan"'),
                             ("python_factors", '"python_factor_function"')):
        assert domain in proc.stderr and verifier in proc.stderr
    assert "modebench walkthrough" in proc.stderr
    assert "cannot reach" not in proc.stderr and not results.exists()


@pytest.mark.slow
def test_run_tiny_model_on_llamacpp(walkthrough, tiny_model, results, tmp_path):
    """The real thing end to end: llama.cpp serves the tiny model, modebench grades, the store keeps it all."""
    from evaluators.models.llamacpp import LlamaServer

    out = tmp_path / "tiny.jsonl"
    with LlamaServer(tiny_model["gguf"], n_ctx=4096, parallel=2, alias="tiny") as server:
        proc = run_cli("modes", "run", "--input", str(walkthrough["tasks"]), "--base-url", server.base_url,
                       "--name", "tiny", "--k", "2", "--groups", "2", "--max-tokens", "12", "--seed", "3",
                       "--concurrency", "2", "--out", str(out), "--results", str(results))
    assert proc.returncode == 0, proc.stderr
    lines = read_jsonl(out)
    assert len(lines) == 10
    for record in lines:
        assert all(d.get("tokens_out") and d["finish_reason"] in ("length", "stop") for d in record["draws"])
    texts = [d["content"] for r in lines for d in r["draws"]]
    assert len(set(texts)) > 1  # seeds differ, so draws differ
    run = Store(results).runs()[0]
    meta = json.loads(out.with_suffix(".run.json").read_text())
    assert meta["model"]["revision"].startswith("server-config-")
    checked = check_run(results, run.run_id, split_generated(out, tmp_path / "split"), meta, tmp_path / "ref")
    assert checked["attempts"] == 20
    assert all(cell["pass_at_k"] == 0.0 for cell in checked["cells"].values())


@pytest.mark.slow
def test_generate_with_local_transformers_model(walkthrough, tiny_model, tmp_path):
    """--model samples with transformers, one seed per draw: the same prompt under the same seeds repeats itself."""
    first = read_jsonl(walkthrough["tasks"])[0]
    tasks = write_jsonl(tmp_path / "two.jsonl", [first, {**first, "id": "same-problem-again"}])
    out = tmp_path / "hf.jsonl"
    proc = run_cli("modes", "generate", "--input", str(tasks), "--model", tiny_model["path"], "--name", "tiny-hf",
                   "--k", "3", "--groups", "1", "--max-tokens", "8", "--seed", "11", "--out", str(out),
                   "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    one, again = read_jsonl(out)
    assert one["responses"] == again["responses"]
    assert [d["seed"] for d in one["draws"]] == [11, 12, 13] and len({d["content"] for d in one["draws"]}) > 1
    assert all(d["tokens_out"] >= 1 and d["finish_reason"] in ("stop", "length") for d in one["draws"])
    meta = json.loads((tmp_path / "hf.run.json").read_text())
    assert meta["generation"]["backend"] == "hf" and meta["model"]["revision"].startswith("sha256-")
