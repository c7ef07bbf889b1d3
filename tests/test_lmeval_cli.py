"""`bananabench lm-eval` end to end on the tiny model: lm-eval's tasks (local fixtures in each task's upstream
layout, tests/fixtures/lmeval) scored by our gguf and server backends, lm-eval's output folder, the store, the site;
bad input refused with exit 2 before anything is written; a run killed with SIGKILL resumed to the same numbers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluators.lmeval.journal import FILE as JOURNAL
from evaluators.models.llamacpp import LlamaServer
from evaluators.publish.queries.itemdata import unpack
from evaluators.store.store import Store
from tests.conftest import REPO, cli_env, run_cli, run_cli_process

FIXTURES = REPO / "tests" / "fixtures" / "lmeval"
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def lm_eval_args(results: Path, *args: str) -> list[str]:
    return ["lm-eval", "--include_path", str(FIXTURES), "--results", str(results), "--json", *args]


def run(results: Path, *args: str, cwd: Path | None = None, tmp: Path | None = None):
    env = {**OFFLINE, "HF_DATASETS_CACHE": str((tmp or results.parent) / "datasets")}
    return run_cli_process(*lm_eval_args(results, *args), env=env, cwd=cwd)


def choice_rows(store: Store, run_id: str) -> list[tuple]:
    return store.query("SELECT item_id, idx, logprob_sum, n_tokens FROM choices WHERE run_id = ? "
                       "ORDER BY item_id, idx", [run_id]).rows


@pytest.mark.slow
def test_arc_easy_on_a_gguf_file_lands_in_lm_evals_folder_the_store_and_the_site(tiny_model, tmp_path):
    results = tmp_path / "results"
    proc = run(results, "--tasks", "arc_easy", "--backend", "gguf", "--model", tiny_model["gguf"], "--name", "N",
               "--threads", "1", cwd=tmp_path)  # another working directory: data paths are the task file's
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    [stored] = out["runs"]
    assert out["official_reasons"] == [] and out["add_bos"] is True  # the tiny tokenizer adds BOS, as HFLM would
    [results_file] = Path(out["output_path"]).rglob("results_*.json")
    [samples_file] = Path(out["output_path"]).rglob("samples_arc_easy_*.jsonl")
    printed = json.loads(results_file.read_text())["results"]["arc_easy"]
    samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
    assert len(samples) == 12 and not list(Path(out["output_path"]).rglob(JOURNAL))

    store = Store(results)
    [row] = store.runs(model="N")
    assert (row.benchmark, row.evaluator, row.benchmark_version, row.backend) == \
        ("arc_easy", "loglik", "lm-eval 1.0", "gguf")
    signature = row.config["signature"]
    assert signature["scoring"]["task"] == "arc_easy" and signature["scoring"]["task_version"] == 1.0
    scores = {s.metric: s.value for s in store.scores(row.run_id)}
    assert scores["acc"] == pytest.approx(printed["acc,none"]) and scores["acc_norm"] == \
        pytest.approx(printed["acc_norm,none"])
    choices = choice_rows(store, row.run_id)
    assert len(choices) == 48 and all(n >= 1 for *_, n in choices)
    by_doc = {str(s["doc"]["id"]): [float(r[0][0]) for r in s["resps"]] for s in samples}
    assert all(by_doc[item][idx] == pytest.approx(lp, abs=1e-9) for item, idx, lp, _ in choices)
    attempts = store.query("SELECT item_id, correct FROM attempts WHERE run_id = ?", [row.run_id]).rows
    assert {i: bool(c) for i, c in attempts} == {str(s["doc"]["id"]): bool(s["acc"]) for s in samples}

    again = run(results, "--tasks", "arc_easy", "--backend", "gguf", "--model", tiny_model["gguf"], "--name", "N",
                "--threads", "1")
    assert again.returncode == 0 and json.loads(again.stdout)["runs"][0]["status"] == "unchanged"
    assert len(store.runs(model="N")) == 1

    site = tmp_path / "site"
    published = run_cli("publish", "--results", str(results), "--out", str(site))
    assert published.returncode == 0, published.stderr
    page = (site / "runs" / f"{row.run_id}.html").read_text()
    chunks = [*(site / "items").glob("*.js"), *(site / "runs").glob(f"{row.run_id}.items.*.js")]
    assert "arc_easy (lm-eval)" in page and "Mercury_test-4" in "".join(unpack(p.read_text()) for p in chunks)
    board = (site / "index.html").read_text()
    assert "arc_easy (lm-eval)" in board and f"{100 * printed['acc,none']:.1f}" in board


@pytest.mark.slow
def test_every_kind_of_lm_eval_task_is_stored_with_our_token_counts(tiny_model, tmp_path):
    results = tmp_path / "results"
    proc = run(results, "--tasks", "winogrande,lambada_openai,wikitext", "--backend", "gguf", "--model",
               tiny_model["gguf"], "--name", "t", "--threads", "1", "--n-ctx", "64", "--limit", "4",
               "--num_fewshot", "1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert sorted(r["task"] for r in out["runs"]) == ["lambada_openai", "wikitext", "winogrande"]
    assert out["official_reasons"] == ["--limit 4", "--num_fewshot 1 (the task's own few-shot setting overridden)"]
    store = Store(results)
    runs = {r.benchmark: r for r in store.runs(model="t")}
    assert all(not r.official for r in runs.values())

    # winogrande: one continuation after two contexts; the reference is the context lm-eval counted right
    wino = store.query("SELECT a.item_id, a.correct, a.prediction, a.reference, c.idx, c.extra FROM attempts a "
                       "JOIN choices c USING (run_id, item_id) WHERE run_id = ? ORDER BY a.item_id, c.idx",
                       [runs["winogrande"].run_id]).rows
    assert len(wino) == 8
    for _item, correct, prediction, reference, _idx, extra in wino:
        assert (prediction == reference) == bool(correct)
        assert json.loads(extra)["context"]

    # lambada: lm-eval's acc is whether the target was the greedy continuation
    lam = store.query("SELECT a.correct, c.extra FROM attempts a JOIN choices c USING (run_id, item_id) "
                      "WHERE run_id = ?", [runs["lambada_openai"].run_id]).rows
    assert all(bool(c) == json.loads(e)["is_greedy"] for c, e in lam)

    # wikitext: one rolling document per attempt, scored in windows of the 64-token context, every token counted
    [samples_file] = Path(out["output_path"]).rglob("samples_wikitext_*.jsonl")
    docs = {str(json.loads(line)["doc_id"]): json.loads(line) for line in samples_file.read_text().splitlines()}
    rows = store.query("SELECT a.item_id, a.score, c.logprob_sum, c.n_tokens FROM attempts a JOIN choices c "
                       "USING (run_id, item_id) WHERE run_id = ?", [runs["wikitext"].run_id]).rows
    assert len(rows) == 4
    for item_id, score, logprob, n_tokens in rows:
        assert score == logprob == pytest.approx(float(docs[item_id]["resps"][0][0]))
        assert n_tokens > 64  # longer than one window
    scores = {s.metric for s in store.scores(runs["wikitext"].run_id)}
    assert {"word_perplexity", "byte_perplexity", "bits_per_byte"} <= scores


@pytest.mark.parametrize(("args", "message"), [
    pytest.param(["--tasks", "arc_eazy", "--backend", "gguf", "--model", "{gguf}"], "did you mean arc_easy",
                 marks=pytest.mark.slow),  # the hint reads lm-eval's whole catalogue: seconds
    (["--tasks", "arc_easy", "--backend", "gguf", "--model", "{gguf}", "--device", "cpu"],
     "--device applies to --backend hf"),
    (["--tasks", "arc_easy", "--backend", "gguf"], "--backend gguf needs --model"),
    (["--tasks", "arc_easy", "--backend", "server"], "--base-url is required"),
    (["--tasks", "arc_easy", "--backend", "gguf", "--model", "{gguf}", "--limit", "1.5"], "--limit"),
])
def test_bad_input_is_refused_before_anything_is_written(tiny_model, tmp_path, args, message):
    results = tmp_path / "results"
    proc = run(results, *[a.format(gguf=tiny_model["gguf"]) for a in args])
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert message in proc.stderr
    assert not results.exists()


@pytest.mark.slow
@pytest.mark.timeout(1800)  # three lm-eval runs against a real server
def test_a_run_killed_mid_way_resumes_to_the_numbers_of_an_uninterrupted_one(tiny_model, tmp_path):
    with LlamaServer(tiny_model["gguf"], n_ctx=1024, parallel=1, exact=True, threads=1) as server:
        def args(results: Path) -> list[str]:
            return [*lm_eval_args(results, "--tasks", "arc_easy,wikitext", "--backend", "server", "--base-url",
                                  server.base_url, "--name", "t", "--limit", "2")]

        killed = tmp_path / "killed"
        env = cli_env({**OFFLINE, "HF_DATASETS_CACHE": str(tmp_path / "datasets")})
        proc = subprocess.Popen([sys.executable, "-m", "evaluators", *args(killed)], env=env, cwd=REPO,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        journal = killed / "lm-eval" / "t" / JOURNAL
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists() and journal.read_text().count("\n") >= 4:
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.05)
        assert proc.wait() == -signal.SIGKILL, "the run ended before it could be killed"
        answered = journal.read_text().count("\n") - 1

        refused = run_cli_process(*args(killed), env={**OFFLINE, "HF_DATASETS_CACHE": str(tmp_path / "datasets")})
        assert refused.returncode == 2 and "--resume" in refused.stderr

        resumed = run_cli_process(*args(killed), "--resume", env={**OFFLINE, "HF_DATASETS_CACHE": str(tmp_path / "datasets")})
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        whole = tmp_path / "whole"
        fresh = run_cli_process(*args(whole), env={**OFFLINE, "HF_DATASETS_CACHE": str(tmp_path / "datasets")})
        assert fresh.returncode == 0, fresh.stderr[-3000:]
    assert answered >= 3 and not journal.exists()
    a, b = Store(killed), Store(whole)
    for task in ("arc_easy", "wikitext"):
        [ra] = [r for r in a.runs(model="t") if r.benchmark == task]
        [rb] = [r for r in b.runs(model="t") if r.benchmark == task]
        # llama.cpp's server reproduces a log-prob to ~1e-6 relative, not to the bit, across request histories
        rows_a, rows_b = choice_rows(a, ra.run_id), choice_rows(b, rb.run_id)
        assert [(i, k, n) for i, k, _, n in rows_a] == [(i, k, n) for i, k, _, n in rows_b]
        assert [lp for _, _, lp, _ in rows_a] == pytest.approx([lp for _, _, lp, _ in rows_b], rel=1e-6)
        verdicts = "SELECT item_id, correct, prediction FROM attempts WHERE run_id = ? ORDER BY item_id"
        assert a.query(verdicts, [ra.run_id]).rows == b.query(verdicts, [rb.run_id]).rows
