"""`bananabench chat import-lm-eval`: an lm-eval output folder into the store, re-extracted with our rules."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from evaluators.store.store import Store
from tests.conftest import REPO, run_cli
from tests.mock_openai import MockOpenAI

SAMPLES_DIR = REPO / "tasks" / "samples" / "chat"

TS = "2026-05-01T10-00-00.000000"


def records(name: str) -> list[dict]:
    return [json.loads(line) for line in (SAMPLES_DIR / f"{name}.jsonl").read_text().splitlines()]


def sample(doc_id: int, doc: dict, response: str, target: str) -> dict:
    """One line of lm-eval's samples_*.jsonl (generate_until task, local-chat-completions)."""
    return {"doc_id": doc_id, "doc": doc, "target": target, "arguments": {"gen_args_0": {"arg_0": "...", "arg_1": {}}},
            "resps": [[response]], "filtered_resps": [response], "filter": "none", "metrics": ["exact_match"],
            "doc_hash": "x", "prompt_hash": "y", "target_hash": "z", "exact_match": 0.0}


def write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def lm_eval_folder(root: Path) -> Path:
    out = root / "lm-eval-out" / "file-a"
    arc = records("arc")[:5]
    write(out / f"samples_arc_challenge_chat_{TS}.jsonl", [
        sample(0, arc[0], "<think>roots drink... the answer is B? no.</think>The answer is A", "A"),
        sample(1, arc[1], "Answer: B", "C"),
        sample(2, arc[2], "", "4"),
        sample(3, arc[3], "The answer is (B)", "B"),
        sample(4, arc[4], "I pick C) a balance", "C"),
    ])
    gsm = records("gsm8k")[:4]
    write(out / f"samples_tinyGSM8k_{TS}.jsonl", [  # lm-eval sampled every doc twice
        sample(0, gsm[0], "3*4+2\n#### 14", gsm[0]["answer"]), sample(0, gsm[0], "", gsm[0]["answer"]),
        sample(1, gsm[1], "", gsm[1]["answer"]), sample(1, gsm[1], "So 42 passengers.", gsm[1]["answer"]),
        sample(2, gsm[2], "", gsm[2]["answer"]), sample(2, gsm[2], "", gsm[2]["answer"]),
        sample(3, gsm[3], "#### 10", gsm[3]["answer"]), sample(3, gsm[3], "#### 11", gsm[3]["answer"]),
    ])
    mmlu = records("mmlu")
    write(out / f"samples_mmlu_generative_astronomy_{TS}.jsonl",
          [sample(0, mmlu[0], "The answer is B", "B"), sample(1, mmlu[1], "The answer is A", "C")])
    write(out / f"samples_mmlu_generative_world_religions_{TS}.jsonl",
          [sample(0, mmlu[9], "Answer: A", "A")])
    write(out / f"samples_hellaswag_{TS}.jsonl", [sample(0, {"ctx": "x"}, "y", "0")])
    (out / f"results_{TS}.json").write_text(json.dumps({
        "results": {"arc_challenge_chat": {"exact_match,none": 0.4}}, "lm_eval_version": "0.4.13",
        "date": 1746093600.0, "model_name": "file-a",
        "config": {"model": "local-chat-completions",
                   "model_args": "base_url=http://127.0.0.1:8081/v1/chat/completions,model=x,api_key=sk-live-SECRET123"},
    }))
    return root / "lm-eval-out"


@pytest.mark.slow
def test_import_re_extracts_merges_duplicates_and_is_idempotent(tmp_path):
    folder = lm_eval_folder(tmp_path)
    results = tmp_path / "results"
    proc = run_cli("chat", "import-lm-eval", str(folder), "--name", "file-a", "--results", str(results))
    assert proc.returncode == 0, proc.stderr
    assert "hellaswag" in proc.stderr and "skipped" in proc.stderr
    store = Store(results)
    runs = {r.benchmark: r for r in store.runs(model="file-a")}
    assert sorted(runs) == ["arc_challenge_chat", "mmlu_generative", "tinyGSM8k"]
    assert all(r.backend == "lm-eval" and not r.official and r.status == "finished" for r in runs.values())

    arc = {a.item_id: a for a in store.attempts(runs["arc_challenge_chat"].run_id)}
    assert set(arc) == {f"Sample_ARC_00{i}" for i in range(1, 6)}
    assert (arc["Sample_ARC_001"].status, arc["Sample_ARC_001"].prediction) == ("correct", "A")
    assert arc["Sample_ARC_001"].extra["reasoning"] == "roots drink... the answer is B? no."
    assert arc["Sample_ARC_002"].status == "wrong"
    assert arc["Sample_ARC_003"].status == "unanswered"
    assert arc["Sample_ARC_005"].status == "correct"

    gsm = sorted(store.attempts(runs["tinyGSM8k"].run_id), key=lambda a: a.extra["index"])
    assert [a.status for a in gsm] == ["correct", "correct", "unanswered", "correct"]
    assert [a.extra["lm_eval"]["copies"] for a in gsm] == [2, 2, 2, 2]
    assert gsm[3].extra["lm_eval"]["conflict"] is True and gsm[3].prediction == "10"
    assert runs["tinyGSM8k"].extra["duplicates_merged"] == 4
    scores = {s.metric: s.value for s in store.scores(runs["tinyGSM8k"].run_id) if s.scope == "overall"}
    assert scores["accuracy"] == 0.75 and scores["n_unanswered"] == 1

    mmlu = store.attempts(runs["mmlu_generative"].run_id)
    assert sorted(a.category for a in mmlu) == ["astronomy", "astronomy", "world_religions"]
    assert sorted(a.status for a in mmlu) == ["correct", "correct", "wrong"]
    blob = json.dumps(dataclasses.asdict(runs["arc_challenge_chat"]), default=str)
    assert "sk-live-SECRET123" not in blob and "0.4.13" in blob

    again = run_cli("chat", "import-lm-eval", str(folder), "--name", "file-a", "--results", str(results))
    assert again.returncode == 0 and again.stdout.count("(already imported)") == 3
    assert len(store.runs(model="file-a")) == 3


@pytest.mark.slow
def test_imported_runs_pair_with_native_runs(tmp_path):
    folder = lm_eval_folder(tmp_path)
    results = tmp_path / "results"
    assert run_cli("chat", "import-lm-eval", str(folder), "--name", "file-a", "--results", str(results)).returncode == 0
    with MockOpenAI(default="The answer is A") as mock:
        proc = run_cli("chat", "run", "--task", "arc", "--base-url", mock.base_url, "--name", "file-b",
                       "--data", str(SAMPLES_DIR), "--results", str(results), "--limit", "5")
    assert proc.returncode == 0, proc.stderr
    report = run_cli("chat", "compare", "file-a", "file-b", "--results", str(results), "--format", "json")
    [task] = json.loads(report.stdout)["tasks"]
    assert task["benchmark"] == "arc_challenge_chat" and task["n"] == 5
    assert json.loads(report.stdout)["only_a"] == ["mmlu_generative", "tinyGSM8k"]


def test_bad_folders_are_refused(tmp_path):
    results = tmp_path / "results"
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run_cli("chat", "import-lm-eval", str(empty), "--name", "x", "--results", str(results))
    assert proc.returncode == 2 and "no samples_*.jsonl" in proc.stderr
    bad = tmp_path / "bad"
    write(bad / f"samples_arc_challenge_chat_{TS}.jsonl", [sample(0, records("arc")[0], "A", "A")])
    with open(bad / f"samples_arc_challenge_chat_{TS}.jsonl", "a") as fh:
        fh.write("{broken\n")
    proc = run_cli("chat", "import-lm-eval", str(bad), "--name", "x", "--results", str(results))
    assert proc.returncode == 2 and f"samples_arc_challenge_chat_{TS}.jsonl:2: invalid JSON" in proc.stderr
    assert not (results / "bananabench.duckdb").exists() or not Store(results).runs()
