"""`bananabench lm-eval --backend hf` against lm-eval's own HFLM (benchmarks/lmeval_parity.py, on a subset small
enough for CI): every request's log-likelihood (each continuation, each rolling document's total) within 1e-4
absolute, every metric equal, BOS as HFLM puts it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO, cli_env

SCRIPT = REPO / "benchmarks" / "lmeval_parity.py"


def parity(tmp_path, *args: str) -> dict:
    env = cli_env({"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_DATASETS_CACHE": str(tmp_path / "ds")})
    proc = subprocess.run([sys.executable, str(SCRIPT), "--rounds", "1", "--no-warmup", "--backends", "hf",
                           "--threads", "1", *args], env=env, capture_output=True, text=True, timeout=1800, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def assert_parity(report: dict, tasks: list[str]) -> None:
    """|Δ| <= 1e-4 per request, metrics equal."""
    ours = report["hf"]
    assert sorted(ours["tasks"]) == sorted(tasks)
    for task, figures in ours["tasks"].items():
        assert figures["requests"] > 0 and figures["missing"] == 0, task
        assert figures["max_abs_delta"] <= 1e-4, (task, figures)
        assert figures["metrics_equal"], (task, figures)


@pytest.mark.real
@pytest.mark.slow
def test_smollm2_scores_as_hflm_scores_it(real_hf_model, tmp_path):
    tasks = ["arc_easy", "piqa", "winogrande", "lambada_openai", "wikitext"]
    report = parity(tmp_path, "--tasks", ",".join(tasks), "--limit", "3", "--hf", real_hf_model["hf"])
    assert_parity(report, tasks)
    assert report["hf"]["add_bos"] is False  # SmolLM2's tokenizer adds no BOS, so HFLM adds none


@pytest.mark.slow
def test_a_tokenizer_that_adds_bos_gets_it_as_in_hflm(tiny_model, tmp_path):
    tasks = ["piqa", "hellaswag"]
    report = parity(tmp_path, "--tasks", ",".join(tasks), "--limit", "4", "--hf", tiny_model["path"])
    assert_parity(report, tasks)
    assert report["hf"]["add_bos"] is True
