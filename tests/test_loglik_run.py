"""`bananabench loglik run` end to end on the tiny model: real processes, a real DuckDB store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaluators.runs.runs import sha256_file
from evaluators.store.store import Store
from tests.conftest import REPO, cli_env, run_cli, run_cli_process
from tests.test_loglik_data import official_shaped, write

pytestmark = pytest.mark.slow
SAMPLES = REPO / "tasks" / "samples"
N_BIG = 120
VOLATILE = {"run_id", "model_name", "config", "model", "dataset", "timing"}  # differ between two runs of the same thing


def load_report(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text())


def stable(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in VOLATILE}


@pytest.fixture(scope="module")
def hf(tiny_model):
    torch = pytest.importorskip("torch")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return (AutoModelForCausalLM.from_pretrained(tiny_model["path"], dtype=torch.float32).eval(),
            AutoTokenizer.from_pretrained(tiny_model["path"]), torch)


def plain_mean(hf, context_ids: list[int], cont_ids: list[int]) -> float:
    model, _tok, torch = hf
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([context_ids + cont_ids])).logits[0].float()
    lp = torch.log_softmax(logits, dim=-1)
    n = len(context_ids)
    return sum(float(lp[n - 1 + j, t]) for j, t in enumerate(cont_ids)) / len(cont_ids)


def test_base_bench_sample_run(tiny_model, tmp_path, hf):
    results, out = tmp_path / "results", tmp_path / "run"
    proc = run_cli("loglik", "run", "--bench", "base-bench", "--model", tiny_model["path"], "--name", "tiny",
                   "--local-data", str(SAMPLES / "base-bench"), "--results", str(results), "--out-dir", str(out),
                   "--device", "cpu", "--threads", "1")
    assert proc.returncode == 0, proc.stderr
    assert "NON-OFFICIAL" in proc.stdout and "Overall Elo" in proc.stdout
    rep = load_report(out)
    for key in ("official", "overall_elo", "category_elo", "accuracy", "weighted_accuracy", "items"):
        assert key in rep
    assert rep["official"] is False and any("350" in r for r in rep["official_reasons"])
    assert len(rep["category_elo"]) == 7 and rep["overall_elo_ci"][0] < rep["overall_elo"] < rep["overall_elo_ci"][1]
    records = [json.loads(line) for line in (SAMPLES / "base-bench" / "data" / "test.jsonl").read_text().splitlines()]
    assert [i["id"] for i in rep["items"]] == [r["id"] for r in records]
    _, tok, _ = hf
    for item, record in zip(rep["items"], records, strict=True):
        assert set(item) >= {"id", "category", "label", "prediction", "correct", "choices"}
        ctx = tok(record["context"], add_special_tokens=False)["input_ids"]
        means = []
        for choice, cont in zip(item["choices"], record["continuations"], strict=True):
            cont_ids = tok(cont, add_special_tokens=False)["input_ids"]
            assert choice["n_tokens"] == len(cont_ids)
            assert abs(choice["mean_logprob"] - plain_mean(hf, ctx, cont_ids)) <= 1e-4
            means.append(choice["mean_logprob"])
        assert item["prediction"] == means.index(max(means))
        assert item["correct"] == (item["prediction"] == record["label"])
    assert rep["accuracy"] == sum(i["correct"] for i in rep["items"]) / 21

    assert "NON-OFFICIAL RUN" in (out / "predictions.md").read_text()
    partial = [json.loads(line) for line in (out / "partial_results.jsonl").read_text().splitlines()]
    assert sorted(p["id"] for p in partial) == sorted(r["id"] for r in records)
    assert all(p["official"] is False for p in partial)
    config = json.loads((out / "run_config.json").read_text())
    assert config["signature"]["scoring"]["add_bos"] is False and config["spec"]["official"] is False

    store = Store(results)
    run = store.runs()[0]
    assert (run.benchmark, run.status, run.official, run.model_name) == ("base-bench", "finished", False, "tiny")
    assert store.query("SELECT policy, headline_metric FROM benchmarks WHERE benchmark = 'base-bench'").rows == [
        ("ids-only", "elo")]
    assert store.query("SELECT count(*), count(DISTINCT item_id) FROM attempts").rows == [(21, 21)]
    assert store.query("SELECT count(*) FROM choices").rows == [(84,)]
    scores = {(s.scope, s.key, s.metric): s for s in store.scores(run.run_id)}
    elo = scores[("overall", "", "elo")]
    assert elo.value == pytest.approx(rep["overall_elo"]) and elo.extra["ci_method"].startswith("wald")
    assert ("category", "quantitative", "elo") in scores and ("overall", "", "weighted_accuracy") in scores
    # Item text of the gated benchmark stays out of the store.
    texts = json.dumps(store.query("SELECT * FROM attempts").dicts(), default=str)
    assert "bed without dinner" not in texts and records[0]["context"] not in texts


def _big_dataset(tmp_path: Path) -> Path:
    return write(tmp_path / "bb" / "data" / "test.jsonl", official_shaped()[:N_BIG])


def test_kill_minus_9_then_resume_equals_uninterrupted(tiny_model, tmp_path):
    """Rows reach the store every 0.5 s, so the kill leaves some items only in the run's journal."""
    data = _big_dataset(tmp_path)
    env = {"BANANABENCH_FLUSH_S": "0.5"}
    common = ["loglik", "run", "--bench", "base-bench", "--model", tiny_model["path"], "--local-data", str(data),
              "--device", "cpu", "--threads", "1", "--batch-size", "1"]
    ref_dir = tmp_path / "ref"
    proc = run_cli(*common, "--name", "ref", "--results", str(tmp_path / "r-ref"), "--out-dir", str(ref_dir), env=env)
    assert proc.returncode == 0, proc.stderr
    reference = load_report(ref_dir)
    assert reference["official"] is False and reference["n_scored"] == N_BIG

    results, out = tmp_path / "results", tmp_path / "run"
    args = [sys.executable, "-m", "evaluators", *common, "--name", "m", "--results", str(results), "--out-dir", str(out)]
    killed = False
    child = subprocess.Popen(args, env=cli_env(env), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        partial = out / "partial_results.jsonl"
        while time.monotonic() < deadline and child.poll() is None:
            if partial.exists() and partial.read_text().count("\n") >= 40:
                os.kill(child.pid, signal.SIGKILL)
                killed = True
                break
            time.sleep(0.02)
    finally:
        if child.poll() is None and not killed:
            child.kill()
        child.wait()
    assert killed and child.returncode == -signal.SIGKILL, child.stderr.read().decode()[-2000:]
    journaled = (out / "attempts.jsonl").read_text().count("\n")
    assert 40 <= journaled < N_BIG
    # A resume under another scoring configuration is refused, naming the field; nothing changes.
    proc = run_cli(*common, "--name", "m", "--results", str(results), "--resume", "--add-bos", env=env)
    assert proc.returncode == 2 and "scoring.add_bos" in proc.stderr, proc.stderr

    proc = run_cli(*common, "--name", "m", "--results", str(results), "--resume", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "resuming run" in proc.stderr
    resumed = load_report(out)
    assert stable(resumed) == stable(reference)
    store = Store(results)
    assert len(store.runs()) == 1 and store.runs()[0].status == "finished"
    assert store.query("SELECT count(*), count(DISTINCT item_id) FROM attempts").rows == [(N_BIG, N_BIG)]
    assert store.query("SELECT count(*) FROM choices").rows == [(4 * N_BIG,)]
    lines = (out / "partial_results.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["id"] for line in lines) == sorted(i["id"] for i in reference["items"])

    # Batch size is not part of the scoring: 32 examples per step picks the same continuations.
    wide = tmp_path / "wide"
    proc = run_cli(*common[:-2], "--batch-size", "32", "--name", "wide", "--results", str(tmp_path / "r-wide"),
                   "--out-dir", str(wide), env=env)
    assert proc.returncode == 0, proc.stderr
    batched = load_report(wide)
    assert [i["prediction"] for i in batched["items"]] == [i["prediction"] for i in reference["items"]]
    assert max(abs(a["mean_logprob"] - b["mean_logprob"]) for x, y in zip(batched["items"], reference["items"], strict=True)
               for a, b in zip(x["choices"], y["choices"], strict=True)) <= 1e-4


def _evals_folder(tmp_path: Path, rows: list[dict]) -> Path:
    folder = tmp_path / "evals"
    path = folder / "data" / "tiny_custom-00000-of-00001.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    manifest = {"format": "bananabench.base-evals.manifest/1", "splits": {"tiny_custom": {
        "path": "data/tiny_custom-00000-of-00001.parquet", "sha256": sha256_file(path), "rows": len(rows)}}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def test_base_evals_rejects_ambiguous_and_overlength(tiny_model, tmp_path, hf):
    _, tok, _ = hf
    rows = [
        {"id": "ok-1", "context": "The cat sat on the", "choices": [" mat", " sky", " idea", " of"], "label": 0},
        {"id": "ok-2", "context": "One, two,", "choices": [" three", " blue", " seven hundred", " cat"], "label": 0},
        {"id": "glued", "context": "Go to th", "choices": [" x", "e", " y", " z"], "label": 1},
        {"id": "long", "context": "word " * 2500 + "end", "choices": [" a", " b", " c", " d"], "label": 1},
    ]
    ctx = tok("Go to th", add_special_tokens=False)["input_ids"]
    assert tok("Go to the", add_special_tokens=False)["input_ids"][:len(ctx)] != ctx  # the premise of the test
    folder = _evals_folder(tmp_path, rows)
    results, out = tmp_path / "results", tmp_path / "out"
    proc = run_cli("loglik", "run", "--bench", "base-evals:tiny_custom", "--model", tiny_model["path"], "--name", "t",
                   "--data", str(folder), "--results", str(results), "--out-dir", str(out), "--device", "cpu",
                   "--threads", "1")
    assert proc.returncode == 0, proc.stderr
    rep = load_report(out / "tiny_custom")
    split = rep["splits"]["tiny_custom"]
    assert (split["n"], split["rejected"]) == (2, 2) and rep["official"] is False
    assert rep["official_reasons"] == ["tiny_custom is not one of the 7 base-evals splits"]
    reasons = {r["id"]: r["reason"] for r in rep["rejected"]}
    assert "ambiguous token boundary" in reasons["glued"] and "longer than the model's context" in reasons["long"]
    scored = [i for i in rep["items"] if i["status"] == "ok"]
    for item, row in zip(scored, rows[:2], strict=True):
        sums = [c["logprob_sum"] for c in item["choices"]]
        means = [c["mean_logprob"] for c in item["choices"]]
        assert item["prediction_acc"] == sums.index(max(sums)) and item["prediction"] == means.index(max(means))
        per_char = [lp / len(text) for lp, text in zip(sums, row["choices"], strict=True)]  # lm-eval's acc_norm
        assert item["prediction_acc_chars"] == per_char.index(max(per_char))
        ctx_ids = tok(row["context"], add_special_tokens=False)["input_ids"]
        for choice, text in zip(item["choices"], row["choices"], strict=True):
            cont = tok(row["context"] + text, add_special_tokens=False)["input_ids"][len(ctx_ids):]
            assert abs(choice["mean_logprob"] - plain_mean(hf, ctx_ids, cont)) <= 1e-4
    assert split["acc"] == sum(i["correct_acc"] for i in scored) / 2
    assert load_report(out)["splits"]["tiny_custom"]["acc_norm"] == split["acc_norm"]
    store = Store(results)
    run = store.runs()[0]
    assert (run.benchmark, run.split, run.official) == ("base-evals", "tiny_custom", False)
    statuses = dict(store.query("SELECT item_id, status FROM attempts").rows)
    assert statuses == {"ok-1": "ok", "ok-2": "ok", "glued": "rejected", "long": "rejected"}
    scores = {(s.scope, s.key, s.metric): s.value for s in store.scores(run.run_id)}
    assert scores[("overall", "", "n_rejected")] == 2 and scores[("split", "tiny_custom", "acc_norm")] == split["acc_norm"]
    assert scores[("overall", "", "acc_chars")] == split["acc_chars"] == sum(i["correct_acc_chars"] for i in scored) / 2
    assert store.query("SELECT headline_metric, policy FROM benchmarks WHERE benchmark = 'base-evals'").rows == [
        ("acc_norm", "public")]
    # --resume after the split finished keeps that run (a multi-split resume skips finished splits).
    proc = run_cli("loglik", "run", "--bench", "base-evals:tiny_custom", "--model", tiny_model["path"], "--name", "t",
                   "--data", str(folder), "--results", str(results), "--out-dir", str(out), "--device", "cpu",
                   "--threads", "1", "--resume")
    assert proc.returncode == 0, proc.stderr
    assert "already finished" in proc.stderr and len(Store(results).runs()) == 1


def test_hub_data_gated_base_bench_and_public_base_evals(tiny_model, tmp_path):
    from tests.fakehub import FakeHub

    token = "hf_testtoken_0123456789abcdef"
    with FakeHub() as hub:
        commit = hub.add_repo("BananaMind/BananaMind-Base-Bench-1.1", {
            "data/test.jsonl": (SAMPLES / "base-bench" / "data" / "test.jsonl").read_bytes()}, repo_type="dataset",
            gated=True)
        hub.add_token(token)
        hub.add_repo("someone/base-evals", SAMPLES / "base-evals", repo_type="dataset")
        env = hub.env(tmp_path)  # read by huggingface_hub when imported: a fresh process per call
        base = ["loglik", "run", "--model", tiny_model["path"], "--name", "t", "--results", str(tmp_path / "results"),
                "--device", "cpu", "--threads", "1"]
        proc = run_cli_process(*base, "--bench", "base-bench", env={**env, "HF_TOKEN": ""})
        assert proc.returncode == 2 and "gated" in proc.stderr and "HF_TOKEN" in proc.stderr
        assert not (tmp_path / "results" / "runs").exists()
        proc = run_cli_process(*base, "--bench", "base-bench", "--out-dir", str(tmp_path / "bb"),
                               env={**env, "HF_TOKEN": token})
        assert proc.returncode == 0, proc.stderr
        rep = load_report(tmp_path / "bb")
        assert rep["dataset"]["source"] == f"BananaMind/BananaMind-Base-Bench-1.1@{commit}"
        proc = run_cli_process(*base, "--bench", "base-evals:tiny_pythonio,tiny_openbookqa", "--data", "someone/base-evals",
                       "--out-dir", str(tmp_path / "ev"), "--add-bos", "--limit", "2", env={**env, "HF_TOKEN": ""})
        assert proc.returncode == 0, proc.stderr
        combined = load_report(tmp_path / "ev")
        assert set(combined["splits"]) == {"tiny_pythonio", "tiny_openbookqa"} and combined["official"] is False
        split = load_report(tmp_path / "ev" / "tiny_pythonio")
        assert split["official_reasons"] == ["3 rows, not the 500 of the official tiny_pythonio split", "--limit 2",
                                             "--add-bos (the benchmark's scoring adds no BOS)"]
        assert split["dataset"]["source"].startswith("someone/base-evals@") and len(split["items"]) == 2
        assert all(line["official"] is False for line in map(
            json.loads, (tmp_path / "ev" / "tiny_pythonio" / "partial_results.jsonl").read_text().splitlines()))
        assert "NON-OFFICIAL" in (tmp_path / "ev" / "tiny_pythonio" / "predictions.md").read_text()
    leaked = [p for p in tmp_path.rglob("*") if p.is_file() and "hf-cache" not in p.parts and "hf-home" not in p.parts
              and token.encode() in p.read_bytes()]
    assert leaked == []


def test_bad_flags_exit_2(tiny_model, tmp_path):
    proc = run_cli("loglik", "run", "--bench", "base-bench", "--model", tiny_model["path"], "--backend", "nope",
                   "--local-data", str(SAMPLES / "base-bench"), "--results", str(tmp_path / "r"))
    assert proc.returncode == 2 and "--backend must be one of hf" in proc.stderr
    proc = run_cli("loglik", "run", "--bench", "base-evals", "--model", tiny_model["path"],
                   "--results", str(tmp_path / "r"))
    assert proc.returncode == 2 and "base-evals needs --data" in proc.stderr
    proc = run_cli("loglik", "run", "--bench", "base-evals:tiny_nope", "--model", tiny_model["path"],
                   "--data", str(SAMPLES / "base-evals"), "--results", str(tmp_path / "r"))
    assert proc.returncode == 2 and "no split 'tiny_nope'" in proc.stderr
    assert not (tmp_path / "r" / "runs").exists()


def test_two_runs_share_one_results_directory(tiny_model, tmp_path):
    """Base Bench and a base-evals split scored at the same time into one store: both finish, nothing lost."""
    results = tmp_path / "results"
    base = [sys.executable, "-m", "evaluators", "loglik", "run", "--model", tiny_model["path"], "--name", "t",
            "--results", str(results), "--device", "cpu", "--threads", "1"]
    jobs = [
        subprocess.Popen([*base, "--bench", "base-bench", "--local-data", str(SAMPLES / "base-bench")],
                         env=cli_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
        subprocess.Popen([*base, "--bench", "base-evals:tiny_hellaswag,tiny_truthfulqa", "--data",
                          str(SAMPLES / "base-evals")],
                         env=cli_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
    ]
    for job in jobs:
        _out, err = job.communicate(timeout=600)
        assert job.returncode == 0, err
    store = Store(results)
    runs = {(r.benchmark, r.split): r.status for r in store.runs()}
    assert runs == {("base-bench", None): "finished", ("base-evals", "tiny_hellaswag"): "finished",
                    ("base-evals", "tiny_truthfulqa"): "finished"}
    assert store.query("SELECT count(*) FROM attempts").rows == [(21 + 3 + 3,)]
    assert len(store.current_runs(model="t")) == 3
