"""lm-eval runs are imported by kind: multiple-choice ones by `loglik import-lm-eval`, generative ones by chat.

A multiple-choice run imported as the generative ARC benchmark used to get "0" as every answer and all
items unanswered. Now each importer refuses the other kind, naming the right command, and a
multiple-choice run keeps lm-eval's per-choice log-likelihoods and its two accuracies: `acc`, and its
`acc_norm` (by characters) as `acc_chars`; our per-token acc_norm stays empty (no token counts).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluators.store.store import Store
from tests.conftest import run_cli
from tests.test_chat_lmeval_import import TS, lm_eval_folder, write

DOCS = [  # context, choices (as doc_to_choice gives them, leading space included), label, log-likelihoods
    ("The capital of France is", [" Paris", " London", " Berlin", " a city in Europe"], 0, [-2.0, -5.0, -6.0, -7.5]),
    ("Two plus two is", [" four", " five", " three", " four"], 0, [-1.0, -3.0, -4.0, -1.0]),
    ("Water boils at", [" 100 degrees", " 10", " 0", " 50"], 0, [-9.0, -4.0, -5.0, -6.0]),
    ("The sky is", [" blue", " green", " made of cheese", " red"], 3, [-1.0, -2.0, -6.5, -3.0]),
]


def mc_sample(doc_id: int, context: str, choices: list[str], label: int, lls: list[float]) -> dict:
    """One line of lm-eval's samples_*.jsonl for a multiple_choice task (values as lm-eval writes them)."""
    acc = float(max(range(len(lls)), key=lambda k: (lls[k], -k)) == label)
    norm = [ll / len(c) for ll, c in zip(lls, choices, strict=True)]
    acc_norm = float(max(range(len(norm)), key=lambda k: (norm[k], -k)) == label)
    return {"doc_id": doc_id, "doc": {"id": f"q{doc_id}", "context": context, "choices": choices, "label": label},
            "target": str(label),
            "arguments": {f"gen_args_{k}": {"arg_0": context, "arg_1": c} for k, c in enumerate(choices)},
            "resps": [[[str(ll), "False"]] for ll in lls], "filtered_resps": [[str(ll), "False"] for ll in lls],
            "filter": "none", "metrics": ["acc", "acc_norm"], "doc_hash": "x", "prompt_hash": "y", "target_hash": "z",
            "acc": acc, "acc_norm": acc_norm}


def mc_folder(root: Path, task: str = "arc_easy") -> Path:
    out = root / "lm-eval-mc" / "model"
    samples = [mc_sample(i, *doc) for i, doc in enumerate(DOCS)]
    write(out / f"samples_{task}_{TS}.jsonl", samples)
    acc = sum(s["acc"] for s in samples) / len(samples)
    acc_norm = sum(s["acc_norm"] for s in samples) / len(samples)
    (out / f"results_{TS}.json").write_text(json.dumps({
        "results": {task: {"acc,none": acc, "acc_norm,none": acc_norm}}, "lm_eval_version": "0.4.13",
        "configs": {task: {"task": task, "output_type": "multiple_choice", "target_delimiter": ""}},
        "config": {"model": "local-completions", "model_args": {"base_url": "http://x/v1/completions",
                                                                  "api_key": "sk-live-SECRET456"}},
    }))
    return root / "lm-eval-mc"


@pytest.mark.parametrize("importer, folder, output_type, other", [
    ("chat", mc_folder, "multiple_choice", "loglik"),
    ("loglik", lm_eval_folder, "generate_until", "chat"),
])
def test_an_importer_refuses_the_other_output_type_and_names_the_right_importer(tmp_path, importer, folder,
                                                                                 output_type, other):
    results = tmp_path / "results"
    proc = run_cli(importer, "import-lm-eval", str(folder(tmp_path)), "--name", "m", "--results", str(results))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert output_type in proc.stderr and f"bananabench {other} import-lm-eval" in proc.stderr
    assert not (results / "bananabench.duckdb").exists() or not Store(results).runs()


def test_a_multiple_choice_run_keeps_lm_evals_log_likelihoods_and_accuracies(tmp_path):
    results = tmp_path / "results"
    folder = mc_folder(tmp_path)
    proc = run_cli("loglik", "import-lm-eval", str(folder), "--name", "m", "--results", str(results))
    assert proc.returncode == 0, proc.stderr
    assert "arc_easy" in proc.stdout and "acc 0.500" in proc.stdout and "lm-eval acc_norm (chars) 0.750" in proc.stdout
    store = Store(results)
    [run] = store.runs(model="m")
    assert (run.evaluator, run.benchmark, run.backend, run.official) == ("loglik", "arc_easy", "lm-eval",
                                                                                    False)
    assert "sk-live-SECRET456" not in json.dumps(run, default=str)
    attempts = {a.item_id: a for a in store.attempts(run.run_id)}
    assert sorted(attempts) == ["q0", "q1", "q2", "q3"]
    assert [attempts[f"q{i}"].prediction for i in range(4)] == ["0", "0", "1", "0"]  # ties go to the first
    assert [attempts[f"q{i}"].extra["prediction_acc_chars"] for i in range(4)] == [0, 0, 0, 0]
    choices = store.query("SELECT item_id, idx, logprob_sum, n_tokens, mean_logprob FROM choices WHERE run_id = ? "
                          "ORDER BY item_id, idx", [run.run_id]).rows
    assert choices[:2] == [("q0", 0, -2.0, None, None), ("q0", 1, -5.0, None, None)]
    scores = {s.metric: s.value for s in store.scores(run.run_id) if s.scope == "overall"}
    assert scores["acc"] == 0.5 and scores["acc_chars"] == 0.75 and "acc_norm" not in scores

    again = run_cli("loglik", "import-lm-eval", str(folder), "--name", "m", "--results", str(results))
    assert again.returncode == 0 and "(already imported)" in again.stdout
    assert len(store.runs(model="m")) == 1

    site = tmp_path / "site"
    assert run_cli("publish", "--results", str(results), "--out", str(site)).returncode == 0
    pages = "".join(p.read_text() for p in site.rglob("*.html"))
    assert "lm-eval acc_norm (chars)" in pages and "75.0%" in pages


def test_a_mixed_folder_imports_each_kind_with_its_command(tmp_path):
    results = tmp_path / "results"
    folder = lm_eval_folder(tmp_path)
    mc = mc_folder(tmp_path / "mc", task="arc_easy")
    for path in mc.rglob("samples_*.jsonl"):
        write(folder / "file-a" / path.name, [json.loads(line) for line in path.read_text().splitlines()])
    chat = run_cli("chat", "import-lm-eval", str(folder), "--name", "m", "--results", str(results))
    assert chat.returncode == 0, chat.stderr
    assert "arc_easy" in chat.stderr and "bananabench loglik import-lm-eval" in chat.stderr
    loglik = run_cli("loglik", "import-lm-eval", str(folder), "--name", "m", "--results", str(results))
    assert loglik.returncode == 0, loglik.stderr
    assert "bananabench chat import-lm-eval" in loglik.stderr
    runs = {r.benchmark: r.evaluator for r in Store(results).runs(model="m")}
    assert runs == {"arc_challenge_chat": "chat", "mmlu_generative": "chat", "tinyGSM8k": "chat", "arc_easy": "loglik"}
