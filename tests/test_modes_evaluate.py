"""`bananabench modes evaluate`: modebench grades, the store holds exactly what modebench decided."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluators.store.records import RunRow
from evaluators.store.store import Store
from tests.conftest import REPO, cli_env, run_cli
from tests.helpers.modes_check import check_run, read_jsonl, split_generated, write_jsonl

DOMAINS = ("countdown", "graph_coloring", "python_factors", "mathir", "pantry_plan")


@pytest.fixture(scope="session")
def walkthrough(tmp_path_factory) -> Path:
    """`modebench walkthrough`: five tasks (one per domain), four saved responses each, run.json."""
    directory = tmp_path_factory.mktemp("modebench") / "demo"
    subprocess.run([sys.executable, "-m", "modebench.cli", "walkthrough", "--directory", str(directory)],
                   check=True, capture_output=True)
    return directory


def _only_run(results: Path) -> RunRow:
    runs = Store(results).runs()
    assert len(runs) == 1
    return runs[0]


@pytest.mark.slow
def test_walkthrough_evaluated_and_ingested(walkthrough, results, tmp_path):
    proc = run_cli("modes", "evaluate", str(walkthrough / "responses.jsonl"), "--run", str(walkthrough / "run.json"),
                   "--results", str(results))
    assert proc.returncode == 0, proc.stderr
    assert "20 attempts stored" in proc.stdout
    run = _only_run(results)
    assert run.status == "finished" and run.evaluator == "modes" and run.model_name == "recorded-walkthrough"
    # A custom task set reads as its file's stem; its hash stays in dataset_sha256 (and the signature).
    assert not run.official and run.split == "responses" and len(run.dataset_sha256) == 64
    checked = check_run(results, run.run_id, [walkthrough / "responses.jsonl"],
                        json.loads((walkthrough / "run.json").read_text()), tmp_path / "ref")
    assert checked["attempts"] == 20
    # modebench's own CLI receipt (what a user of modebench would see) equals what the store holds.
    own = tmp_path / "own.json"
    subprocess.run([sys.executable, "-m", "modebench.cli", "evaluate", str(walkthrough / "responses.jsonl"), "--run",
                    str(walkthrough / "run.json"), "--output", str(own), "--progress-every", "0"],
                   check=True, capture_output=True)
    expected = json.loads((walkthrough / "expected.json").read_text())
    store = Store(results)
    scores = {(s.key, s.metric): s for s in store.scores(run.run_id)}
    for cell in json.loads(own.read_text())["cells"]:
        key = f"level{cell['level']}_{cell['domain']}/k{cell['k']}"
        assert scores[(key, "accuracy")].value == cell["accuracy"] == expected["per_cell"]["accuracy"]
        assert scores[(key, "pass_at_k")].value == cell["pass_at_k"]
        assert scores[(key, "distinct_at_k")].value == cell["distinct_at_k"]
        assert scores[(key, "pcmd")].value == cell["pcmd"]["d_mode"]
        assert scores[(key, "pcmd")].extra["reportable"] is False
    assert scores[("", "pass_at_k")].scope == "overall" and scores[("", "pass_at_k")].value == 1.0
    assert scores[("", "pass_at_k")].extra["reportable"] is False
    bench = store.query("SELECT policy, headline_metric FROM benchmarks WHERE benchmark = 'modebench-custom'").rows
    assert bench == [("public", "pass_at_k")]
    statuses = store.query("SELECT status, count(*) FROM attempts GROUP BY 1 ORDER BY 1").rows
    assert dict(statuses) == expected["status_counts"]
    # The receipt and its journal travel with the run (paths relative to the results root).
    unit = run.extra["units"][0]
    assert (results / unit["receipt"]).is_file() and unit["status"] == "completed"
    assert not (results / "modes-staging").exists()


@pytest.mark.parametrize("domain", DOMAINS)
def test_custom_reference_file_per_domain(walkthrough, results, tmp_path, domain):
    """One custom-reference file per domain, three groups of different responses, checked against modebench."""
    record = next(r for r in read_jsonl(walkthrough / "responses.jsonl") if r["domain"] == domain)
    correct, wrong = record["responses"][:2], record["responses"][2:]
    group_responses = [record["responses"], [correct[0], correct[0], wrong[0], correct[1]], [wrong[1]] * 4]
    second = {**record, "id": f"{domain}-copy", "responses": [correct[1]] * 4}
    groups = [[{**record, "responses": g}, {**second, "responses": list(reversed(g))}] for g in group_responses]
    inputs = [write_jsonl(tmp_path / f"{domain}.group{n}.jsonl", g) for n, g in enumerate(groups, 1)]
    proc = run_cli("modes", "evaluate", *map(str, inputs), "--name", f"hand-{domain}", "--results", str(results),
                   "--min-defined-prompts", "2")
    assert proc.returncode == 0, proc.stderr
    run = _only_run(results)
    checked = check_run(results, run.run_id, inputs, None, tmp_path / "ref", threshold=2)
    assert checked["attempts"] == 2 * 3 * 4
    attempts = Store(results).attempts(run.run_id)
    assert sorted({a.attempt for a in attempts}) == list(range(1, 13))
    assert {a.extra["group"] for a in attempts} == {1, 2, 3}


def test_generated_file_groups_and_raw_draws(walkthrough, results, tmp_path):
    """A `generate`-format file: groups split into modebench inputs, raw draws kept on the attempts."""
    records = read_jsonl(walkthrough / "responses.jsonl")
    lines = []
    for group in (1, 2):
        for r in records:
            responses = r["responses"] if group == 1 else [r["responses"][1]] * 4
            draws = [{"draw": (group - 1) * 4 + n + 1, "seed": 7 + (group - 1) * 4 + n,
                      "content": f"<think>try {n}</think>{text}", "reasoning": None, "finish_reason": "stop"}
                     for n, text in enumerate(responses)]
            lines.append({**r, "group": group, "responses": responses, "draws": draws})
    source = write_jsonl(tmp_path / "generated.jsonl", lines)
    proc = run_cli("modes", "evaluate", str(source), "--run", str(walkthrough / "run.json"), "--results", str(results))
    assert proc.returncode == 0, proc.stderr
    run = _only_run(results)
    check_run(results, run.run_id, split_generated(source, tmp_path / "split"),
              json.loads((walkthrough / "run.json").read_text()), tmp_path / "ref")
    attempts = Store(results).attempts(run.run_id)
    assert len(attempts) == 40
    sixth = next(a for a in attempts if a.item_id == records[0]["id"] and a.attempt == 6)
    assert sixth.extra["group"] == 2 and sixth.extra["draw"] == 2 and sixth.extra["seed"] == 12
    assert sixth.extra["raw"].startswith("<think>try 1</think>")


def _no_trace(results: Path) -> None:
    if (results / "bananabench.duckdb").exists():
        assert Store(results).runs() == []
    assert not (results / "modes-staging").exists() or not any((results / "modes-staging").iterdir())


def test_malformed_json_line_exit_2_nothing_stored(walkthrough, results, tmp_path):
    lines = (walkthrough / "responses.jsonl").read_text().splitlines()
    lines[2] = lines[2][:-5]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    proc = run_cli("modes", "evaluate", str(bad), "--run", str(walkthrough / "run.json"), "--results", str(results))
    assert proc.returncode == 2
    assert f"{bad}:3: invalid JSON" in proc.stderr
    _no_trace(results)


def test_invalid_record_reported_by_modebench_with_user_line(walkthrough, results, tmp_path):
    """modebench's own validation (here: a broken reference) comes back naming the user's file and line."""
    records = read_jsonl(walkthrough / "responses.jsonl")
    lines = []
    for group in (1, 2):
        for r in records:
            lines.append({**r, "group": group})
    lines[7]["answer"] = {**lines[7]["answer"], "verifier": "countdown"}  # group 2, 3rd record: wrong verifier
    source = write_jsonl(tmp_path / "generated.jsonl", lines)
    proc = run_cli("modes", "evaluate", str(source), "--name", "m", "--results", str(results))
    assert proc.returncode == 2, proc.stderr
    assert f"{source}:8: prompt '{records[2]['id']}'" in proc.stderr
    assert "verifier" in proc.stderr
    _no_trace(results)


def test_groups_must_hold_the_same_prompts(walkthrough, results, tmp_path):
    records = read_jsonl(walkthrough / "responses.jsonl")
    first = write_jsonl(tmp_path / "g1.jsonl", records)
    second = write_jsonl(tmp_path / "g2.jsonl", records[:3] + [{**records[3], "responses": ["x"] * 3}] + records[4:])
    proc = run_cli("modes", "evaluate", str(first), str(second), "--name", "m", "--results", str(results))
    assert proc.returncode == 2
    assert f"{second}:4: responses: 3 responses in group 2 but 4 in group 1" in proc.stderr
    _no_trace(results)


def test_unscorable_attempt_fails_evaluation_without_aggregates(walkthrough, results, tmp_path):
    """A response past modebench's size limit is unscorable: attempts kept, no numbers, exit 3, reason given."""
    records = read_jsonl(walkthrough / "responses.jsonl")
    records[1]["responses"][3] = "1" * 131_073
    source = write_jsonl(tmp_path / "huge.jsonl", records)
    proc = run_cli("modes", "evaluate", str(source), "--run", str(walkthrough / "run.json"), "--results", str(results))
    assert proc.returncode == 3, proc.stderr
    assert "resource_limit: 1" in proc.stdout
    run = _only_run(results)
    assert run.status == "failed" and "resource_limit" in run.error
    store = Store(results)
    assert store.scores(run.run_id) == []
    attempts = store.attempts(run.run_id)
    assert len(attempts) == 20
    assert [a.status for a in attempts if a.status == "resource_limit"] == ["resource_limit"]
    assert store.current_runs() == []


def test_frozen_config_offline_without_cache_is_bad_input(results, tmp_path):
    source = write_jsonl(tmp_path / "r.jsonl", [{"id": "level1_countdown/eval/0", "responses": ["1"]}])
    proc = run_cli("modes", "evaluate", str(source), "--config", "level1_countdown", "--offline", "--cache-dir",
                   str(tmp_path / "cache"), "--name", "m", "--results", str(results))
    assert proc.returncode == 2
    assert "level1_countdown/eval" in proc.stderr and "not cached" in proc.stderr
    _no_trace(results)
    proc = run_cli("modes", "evaluate", str(source), "--config", "level1_countdown", "--name", "m",
                   "--results", str(results), "--offline", "--cache-dir", str(tmp_path / "cache"), "--split", "dev")
    assert proc.returncode == 2


@pytest.mark.slow
def test_kill_9_during_grading_then_resume(walkthrough, results, tmp_path):
    """modebench's checkpoint survives SIGKILL: --resume grades only what is left, and the store matches."""
    records = read_jsonl(walkthrough / "responses.jsonl")
    many = [{**r, "id": f"{r['id']}#{i}"} for i in range(8) for r in records]
    source = write_jsonl(tmp_path / "many.jsonl", many)
    args = ["modes", "evaluate", str(source), "--run", str(walkthrough / "run.json"), "--results", str(results)]
    proc = subprocess.Popen([sys.executable, "-m", "evaluators", *args], env=cli_env(), cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    journal = None
    while time.monotonic() < deadline and proc.poll() is None:
        journal = next((results / "modes-staging").glob("*/group-1/receipt.json.work/results.jsonl"), None) \
            if (results / "modes-staging").exists() else None
        if journal is not None and len(journal.read_bytes().splitlines()) >= 4:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "grading finished before it could be interrupted"
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    graded_before = len(journal.read_bytes().splitlines())
    assert Store(results).runs() == []  # nothing reaches the store before every group is graded
    again = run_cli(*args)
    assert again.returncode == 2 and "--resume" in again.stderr
    resumed = run_cli(*args, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    run = _only_run(results)
    receipt = json.loads((results / run.extra["units"][0]["receipt"]).read_text())
    history = receipt["execution"]["history"]
    assert len(history) == 2 and history[1]["resumed_prompts"] >= graded_before - 1
    check_run(results, run.run_id, [source], json.loads((walkthrough / "run.json").read_text()), tmp_path / "ref")
    assert len(Store(results).attempts(run.run_id)) == len(many) * 4


def test_frozen_ids_must_belong_to_the_configuration(results, tmp_path):
    source = write_jsonl(tmp_path / "r.jsonl", [{"id": "level1_countdown/eval/0", "responses": ["1"]},
                                                {"id": "level1_mathir/eval/0", "responses": ["A"]}])
    proc = run_cli("modes", "evaluate", str(source), "--config", "level1_countdown", "--offline", "--name", "m",
                   "--results", str(results))
    assert proc.returncode == 2
    assert f"{source}:2: id: 'level1_mathir/eval/0' is not a prompt of level1_countdown/eval" in proc.stderr
    _no_trace(results)


@pytest.mark.slow
def test_custom_tasks_named_by_benchmark_flag(walkthrough, results):
    args = ("modes", "evaluate", str(walkthrough / "responses.jsonl"), "--run", str(walkthrough / "run.json"),
            "--results", str(results))
    bad = run_cli(*args, "--benchmark", "../walk through")
    assert bad.returncode == 2 and "--benchmark '../walk through'" in bad.stderr and not Store(results).runs()
    proc = run_cli(*args, "--benchmark", "walkthrough")
    assert proc.returncode == 0, proc.stderr
    assert _only_run(results).split == "walkthrough"
