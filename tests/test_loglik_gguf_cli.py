"""`bananabench loglik run --backend gguf|server`: same scores as --backend hf, refusals with exit 3."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evaluators.store.store import Store
from tests.conftest import REPO, run_cli
from tests.loglik_standin import StandIn

SAMPLE = REPO / "tasks" / "samples" / "base-bench" / "data" / "test.jsonl"


def loglik(results: Path, *args: str):
    return run_cli("loglik", "run", "--bench", "base-bench", "--data", str(SAMPLE), "--results", str(results),
                   "--threads", "1", "--json", *args)


def report(proc) -> dict:
    assert proc.returncode == 0, proc.stderr
    run_dir = Path(json.loads(proc.stdout)["runs"][0]["dir"])
    return json.loads((run_dir / "report.json").read_text())


def means(rep: dict) -> list[list[float]]:
    return [[c["mean_logprob"] for c in item["choices"]] for item in rep["items"]]


def assert_same(a: dict, b: dict) -> None:
    assert [i["id"] for i in a["items"]] == [i["id"] for i in b["items"]]
    for x, y in zip(means(a), means(b), strict=True):
        assert max(abs(p - q) for p, q in zip(x, y, strict=True)) <= 1e-3
    assert [i["prediction"] for i in a["items"]] == [i["prediction"] for i in b["items"]]


@pytest.fixture(scope="module")
def gguf_report(tiny_model, tmp_path_factory):
    return report(loglik(tmp_path_factory.mktemp("gguf"), "--backend", "gguf", "--model", tiny_model["gguf"]))


@pytest.mark.slow
def test_gguf_backend_matches_hf_float32(tiny_model, gguf_report, tmp_path):
    hf = report(loglik(tmp_path, "--backend", "hf", "--model", tiny_model["path"], "--dtype", "float32",
                       "--device", "cpu"))
    assert_same(hf, gguf_report)
    assert gguf_report["model"]["kind"] == "gguf"
    assert gguf_report["config"]["scorer"]["flash_attn"] is False


@pytest.mark.slow
def test_server_backend_on_llama_cpp_matches_gguf(tiny_model, gguf_report, tmp_path):
    from evaluators.models.llamacpp import LlamaServer

    with LlamaServer(tiny_model["gguf"], n_ctx=4096, parallel=2, exact=True, threads=1) as server:
        rep = report(loglik(tmp_path, "--backend", "server", "--base-url", server.base_url, "--name", "tiny"))
    assert_same(gguf_report, rep)
    assert rep["model_name"] == "tiny" and rep["config"]["scorer"]["method"] == "teacher_forcing"


@pytest.mark.parametrize(("mode", "why"), [
    ("vllm-no-logprobs", "gives no prompt log-probs"),
    ("vllm-zeros", "exactly 0"),
    ("llama-no-forcing", "echo is ignored"),
    ("vllm-breaks-later", "stopped returning prompt log-probs|exactly 0"),
])
def test_servers_without_exact_logprobs_are_refused_with_exit_3(tiny_model, tmp_path, mode, why):
    with StandIn(tiny_model["gguf"], mode) as server:
        proc = loglik(tmp_path, "--backend", "server", "--base-url", server.base_url)
    assert proc.returncode == 3, proc.stderr
    assert re.search(why, proc.stderr), proc.stderr
    store = Store(tmp_path)
    assert store.query("SELECT count(*) FROM scores").rows[0][0] == 0
    assert store.query("SELECT count(*) FROM runs WHERE status = 'finished'").rows[0][0] == 0


@pytest.mark.parametrize(("args", "why"), [
    (("--backend", "gguf"), "needs --model"),
    (("--backend", "gguf", "--model", "MODEL", "--dtype", "bfloat16"), "--dtype applies to --backend hf"),
    (("--backend", "server"), "needs --base-url"),
    (("--backend", "hf", "--model", "MODEL", "--n-gpu-layers", "4"), "--n-gpu-layers applies to --backend gguf"),
    (("--backend", "gguf", "--model", str(SAMPLE)), "not a GGUF file"),
])
def test_bad_backend_flags_exit_2(tiny_model, tmp_path, args, why):
    args = tuple(tiny_model["gguf"] if a == "MODEL" else a for a in args)
    proc = loglik(tmp_path, *args)
    assert proc.returncode == 2, proc.stderr
    assert why in proc.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
