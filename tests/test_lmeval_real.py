"""Real lm-eval (0.4.13) against our numbers: through `chat shim` on a real llama.cpp server, and HFLM.

* lm-eval's `local-completions` in front of `bananabench chat shim` (a llama.cpp server with the real
  SmolLM2-135M Q4_1) runs a local multiple-choice task and gets per-choice log-likelihoods equal to
  `bananabench loglik run --backend server` on the same server; its acc_norm (per character) equals our
  acc_chars; `loglik import-lm-eval` stores the run with the accuracies lm-eval printed, and `chat
  import-lm-eval` refuses it, naming that command.
* lm-eval's HFLM with `add_bos_token=False` scores what our hf backend scores (tiny model, float32).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evaluators.loglik.items import Item
from evaluators.loglik.spec import load_items
from evaluators.store.store import Store
from tests.conftest import REPO, cli_env, run_cli

SAMPLES = REPO / "tasks" / "samples" / "base-evals"
SPLITS = ["tiny_arithmark_3_0", "tiny_hellaswag", "tiny_openbookqa"]
TASK = """task: bananabench_mc
dataset_path: json
dataset_kwargs:
  data_files: {data}
test_split: train
output_type: multiple_choice
doc_to_text: "{{{{context}}}}"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: label
target_delimiter: ""
metric_list:
  - metric: acc
  - metric: acc_norm
"""


def lm_eval(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = cli_env({"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
                   "HF_HOME": str(cwd / "hf-home")})
    return subprocess.run([sys.executable, "-m", "lm_eval", "run", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)


def task_folder(tmp_path: Path) -> tuple[Path, list[Item]]:
    items = load_items("base-evals", str(SAMPLES), SPLITS)
    data = tmp_path / "task" / "data.jsonl"
    data.parent.mkdir(parents=True)
    data.write_text("".join(json.dumps({"id": i.id, "context": i.context, "choices": list(i.choices),
                                        "label": i.label}) + "\n" for i in items))
    (data.parent / "bananabench_mc.yaml").write_text(TASK.format(data=data))
    return data.parent, items


@pytest.mark.real
@pytest.mark.slow
def test_lm_eval_through_the_shim_gets_our_server_log_likelihoods(real_model, tmp_path):
    from evaluators.chat.shim import Shim
    from evaluators.models.llamacpp import LlamaServer

    tasks, items = task_folder(tmp_path)
    results, out = tmp_path / "results", tmp_path / "lm-eval-out"
    with LlamaServer(real_model["gguf"], n_ctx=4096, parallel=2, exact=True, threads=2, alias="smol") as server, \
            Shim(server.base_url) as shim:
        proc = lm_eval("--model", "local-completions", "--model_args",
                       f"base_url={shim.base_url}/v1/completions,model=smol,tokenizer_backend=remote,"
                       "tokenized_requests=True,num_concurrent=2,max_retries=1",
                       "--tasks", "bananabench_mc", "--include_path", str(tasks), "--output_path", str(out),
                       "--log_samples", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-3000:]
        native = run_cli("loglik", "run", "--bench", "base-evals:" + ",".join(SPLITS), "--data", str(SAMPLES),
                         "--backend", "server", "--base-url", server.base_url, "--name", "smol",
                         "--results", str(results), "--json", timeout=900)
        assert native.returncode == 0, native.stderr
    [samples_file] = out.rglob("samples_bananabench_mc_*.jsonl")
    samples = {json.loads(line)["doc"]["id"]: json.loads(line) for line in samples_file.read_text().splitlines()}
    assert sorted(samples) == sorted(i.id for i in items)
    store = Store(results)
    ours: dict[str, list[float]] = {}
    for item_id, _idx, lp in store.query("SELECT item_id, idx, logprob_sum FROM choices ORDER BY item_id, idx").rows:
        ours.setdefault(item_id, []).append(lp)
    worst = 0.0
    for item_id, sample in samples.items():
        theirs = [float(r[0][0]) for r in sample["resps"]]
        assert all(v < 0 for v in theirs), "lm-eval got placeholder log-probs"
        worst = max(worst, max(abs(a - b) for a, b in zip(theirs, ours[item_id], strict=True)))
    assert worst <= 1e-3, worst

    printed = json.loads(next(out.rglob("results_*.json")).read_text())["results"]["bananabench_mc"]
    # lm-eval's acc_norm (per character) is our acc_chars, document by document
    chars = {row[0]: row[1] for row in store.query(
        "SELECT item_id, CAST(json_extract(extra, '$.correct_acc_chars') AS BOOLEAN) FROM attempts").rows}
    assert {k: bool(s["acc_norm"]) for k, s in samples.items()} == chars

    refused = run_cli("chat", "import-lm-eval", str(out), "--name", "smol-lm-eval", "--results", str(results))
    assert refused.returncode == 2 and "bananabench loglik import-lm-eval" in refused.stderr
    imported = run_cli("loglik", "import-lm-eval", str(out), "--name", "smol-lm-eval", "--results", str(results))
    assert imported.returncode == 0, imported.stderr
    [run] = store.runs(model="smol-lm-eval")
    scores = {s.metric: s.value for s in store.scores(run.run_id) if s.scope == "overall"}
    assert scores["acc"] == pytest.approx(printed["acc,none"])
    assert scores["acc_chars"] == pytest.approx(printed["acc_norm,none"])
    assert "acc_norm" not in scores


@pytest.mark.slow
def test_lm_eval_hflm_scores_what_our_hf_backend_scores(tiny_model):
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    from evaluators.loglik.prepare import prepare
    from evaluators.models.backends.hf import HFBackend

    items = load_items("base-evals", str(SAMPLES))
    lm = HFLM(pretrained=tiny_model["path"], dtype="float32", add_bos_token=False, device="cpu", batch_size=4)
    requests = [Instance("loglikelihood", {}, (item.context, choice), k)
                for item in items for k, choice in enumerate(item.choices)]
    theirs = [ll for ll, _greedy in lm.loglikelihood(requests, disable_tqdm=True)]
    with HFBackend(tiny_model["path"], device="cpu", dtype="float32", threads=1) as hf:
        prepared = prepare(hf, items, "joint", add_bos=False)
        reqs = [r for p in prepared for r in p.requests]
        assert all(p.reject is None for p in prepared) and len(reqs) == len(theirs)
        ours = dict(hf.loglikelihood(reqs))
    worst = max(abs(ours[i].logprob_sum - theirs[i]) for i in range(len(reqs)))
    assert worst <= 2e-5, worst
