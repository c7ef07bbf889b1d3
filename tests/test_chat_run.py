"""`bananabench chat run/rescore/compare` as real processes against the scripted stand-in.

The stand-in plays the answers (thinking-first outputs, empty content after the budget, 500s,
a server that goes away, router mode); the store is a real DuckDB file.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluators.core.stats import mcnemar_exact
from evaluators.store.records import AttemptRow, RunRow, ScoreRow
from evaluators.store.store import Store
from tests.conftest import REPO, cli_env, run_cli
from tests.mock_openai import MockOpenAI, ModelSpec, Reply, Rule
from tests.test_chat_benchmarks import SAMPLES_DIR, items

FAST = ["--retries", "2", "--retry-wait", "0.01"]
BATCHED = {"BANANABENCH_FLUSH_S": "1"}  # the CLI's default batching: one store write per second, not per row


def chat_run(base_url: str, results: Path, *extra: str, task: str = "arc", name: str = "m1"):
    return run_cli("chat", "run", "--task", task, "--base-url", base_url, "--name", name, "--data", str(SAMPLES_DIR),
                   "--results", str(results), *FAST, *extra, env=BATCHED)


def cli_inprocess(capsys, *args: str) -> tuple[int, str, str]:
    """Quick CLI calls (argument checks, rescore, compare) without a new interpreter each time."""
    from evaluators.cli import main

    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def attempts_by_item(store: Store, run_id: str) -> dict[str, AttemptRow]:
    return {a.item_id: a for a in store.attempts(run_id)}


def only_run(store: Store, benchmark: str) -> RunRow:
    runs = store.runs(benchmark=benchmark)
    assert len(runs) == 1, runs
    return runs[0]


def scores_of(store: Store, run_id: str, scope: str = "overall", key: str = "") -> dict[str, ScoreRow]:
    return {s.metric: s for s in store.scores(run_id) if s.scope == scope and s.key == key}


ARC_RULES = [
    Rule(match="roots", reply=Reply(reasoning="Plants drink through their roots, so A.", content="The answer is A")),
    Rule(match="gravity", reply=Reply(content="<think>friction? no. gravity pulls.</think>\nAnswer: C")),
    Rule(match="renewable", reply=Reply(reasoning="Coal? gas? " * 20, content="", finish_reason="length")),
    Rule(match="mass of a rock", reply=Reply(content="I would say B) a thermometer")),
    Rule(match="pumps blood", reply=Reply(content="Hmm, the heart. The answer is (B).")),
]


def test_run_scores_thinking_outputs_and_keeps_unanswered_apart(tmp_path):
    results = tmp_path / "results"
    with MockOpenAI(rules=ARC_RULES, default="The answer is D") as mock:
        proc = chat_run(mock.base_url, results)
        first_body = mock.generation_requests()[0].body
    assert proc.returncode == 0, proc.stderr
    assert "context 4096 tokens (from /props?model=mock-model (n_ctx))" in proc.stderr
    store = Store(results)
    run = only_run(store, "arc_challenge_chat")
    assert run.status == "finished" and run.evaluator == "chat" and not run.official
    rows = attempts_by_item(store, run.run_id)
    assert len(rows) == 12
    roots, gravity, renewable = rows["Sample_ARC_001"], rows["Sample_ARC_002"], rows["Sample_ARC_003"]
    assert (roots.status, roots.prediction, roots.reference) == ("correct", "A", "A")
    assert roots.extra["reasoning"] == "Plants drink through their roots, so A." and roots.extra["raw"] == "The answer is A"
    assert (gravity.status, gravity.prediction) == ("correct", "C")
    assert gravity.extra["reasoning"] == "friction? no. gravity pulls." and "<think>" in gravity.extra["raw"]
    assert (renewable.status, renewable.prediction, renewable.correct) == ("unanswered", None, False)
    assert renewable.extra["finish_reason"] == "length"
    assert rows["Sample_ARC_005"].status == "wrong" and rows["Sample_ARC_005"].prediction == "B"
    assert rows["Sample_ARC_006"].status == "correct"
    assert all(r.extra["server_fingerprint"] == run.extra["server_fingerprint"] for r in rows.values())
    scores = scores_of(store, run.run_id)
    n_correct = sum(r.status == "correct" for r in rows.values())
    assert scores["accuracy"].value == pytest.approx(n_correct / 12) and scores["accuracy"].n == 12
    # the budget-exhausted item, and the two 3-option items where D is not an option
    assert scores["n_unanswered"].value == 3 and scores["n_error"].value == 0
    assert scores["n_correct"].value + scores["n_wrong"].value + 3 == 12
    assert scores["accuracy"].ci_low < scores["accuracy"].value < scores["accuracy"].ci_high
    bench = store.query("SELECT policy, headline_metric FROM benchmarks WHERE benchmark = 'arc_challenge_chat'").rows
    assert bench == [("public", "accuracy")]
    assert store.query("SELECT count(*) FROM server_configs").rows[0][0] == 1
    assert first_body["temperature"] == 0.0 and first_body["max_tokens"] == 1024 and "stop" not in first_body
    assert [m["role"] for m in first_body["messages"]] == ["system", "user"]
    assert "A) roots\nB) leaves" in first_body["messages"][1]["content"]
    assert "#### " not in first_body["messages"][0]["content"]


def test_answers_cut_by_the_token_budget_are_truncated_and_counted_apart(tmp_path, capsys):
    """finish_reason=length with text: recorded as truncated (the cut text's letter kept for reading, never
    graded), counted apart from wrong and unanswered in the summary, scores, report, comparison and site."""
    results = tmp_path / "results"
    cut = [Rule(match="roots", reply=Reply(content="The answer is A", finish_reason="length")),
           Rule(match="gravity", reply=Reply(content="Friction slows it, but maybe C or", finish_reason="length")),
           Rule(match="renewable", reply=Reply(reasoning="Coal? gas? " * 20, content="", finish_reason="length"))]
    with MockOpenAI(rules=cut, default="The answer is D") as mock:
        proc = chat_run(mock.base_url, results)
    assert proc.returncode == 0, proc.stderr
    assert "2 truncated" in proc.stdout
    store = Store(results)
    run = only_run(store, "arc_challenge_chat")
    rows = attempts_by_item(store, run.run_id)
    roots, gravity, renewable = rows["Sample_ARC_001"], rows["Sample_ARC_002"], rows["Sample_ARC_003"]
    assert (roots.status, roots.prediction, roots.correct, roots.score) == ("truncated", "A", False, 0.0)
    assert (gravity.status, gravity.prediction) == ("truncated", "C")
    assert renewable.status == "unanswered"  # the budget went to thinking: no content at all
    scores = scores_of(store, run.run_id)
    assert scores["n_truncated"].value == 2 and scores["n_unanswered"].value == 3
    assert scores["accuracy"].n == 12 and scores["accuracy"].value == pytest.approx(
        sum(r.status == "correct" for r in rows.values()) / 12)
    code, out, _ = cli_inprocess(capsys, "chat", "rescore", run.run_id, "--results", str(results))
    assert code == 0 and "0 of 12 verdicts changed" in out  # the rule survives re-extraction
    report = run_cli("report", "--model", "m1", "--results", str(results))
    assert report.returncode == 0 and "truncated 2" in report.stdout, report.stdout
    site = tmp_path / "site"
    assert run_cli("publish", "--results", str(results), "--out", str(site)).returncode == 0
    page = next(site.glob("runs/*.html")).read_text()
    assert "truncated" in page and "status-truncated" in page


def test_mmlu_and_gsm8k_budgets_categories_and_extra_body(tmp_path):
    results = tmp_path / "results"
    rules = [Rule(match="notebooks", reply=Reply(content="3*4+2 = 14\n#### 14")),
             Rule(match="passengers", reply=Reply(content="48-15+9 = 42. So 42 passengers.")),
             Rule(match="temperature", reply=Reply(content="#### -5.0")),
             Rule(match="Sahara", reply=Reply(content="The answer is B"))]
    with MockOpenAI(rules=rules, default="The answer is A") as mock:
        proc = chat_run(mock.base_url, results, "--max-tokens", "gsm8k=300", "--extra-body",
                        '{"chat_template_kwargs": {"enable_thinking": false}}', task="mmlu,gsm8k")
        bodies = [r.body for r in mock.generation_requests()]
    assert proc.returncode == 0, proc.stderr
    assert {b["max_tokens"] for b in bodies if "####" in b["messages"][0]["content"]} == {300}
    assert {b["max_tokens"] for b in bodies if "letter" in b["messages"][0]["content"]} == {2048}
    assert all(b["chat_template_kwargs"] == {"enable_thinking": False} for b in bodies)
    store = Store(results)
    gsm = attempts_by_item(store, only_run(store, "tinyGSM8k").run_id)
    by_question = {a.extra["messages"][-1]["content"][:20]: a for a in gsm.values()}
    assert by_question["Mia buys 3 notebooks"].status == "correct"
    assert by_question["A bus carries 48 pas"].status == "correct"
    assert by_question["The temperature was "].status == "correct"
    assert by_question["Tom reads 25 pages a"].status == "unanswered"  # "The answer is A": no number
    mmlu_run = only_run(store, "mmlu_generative")
    geo = scores_of(store, mmlu_run.run_id, "category", "high_school_geography")
    assert geo["accuracy"].n == 2 and geo["accuracy"].value == 0.5
    assert mmlu_run.config["signature"]["scoring"]["max_tokens"] == 2048


def test_fold_system_is_automatic_without_a_system_role_and_can_be_forced(tmp_path):
    caps = {"chat_template_caps": {"supports_system_role": False}}
    with MockOpenAI(default="The answer is A", props_extra=caps) as mock:
        assert chat_run(mock.base_url, tmp_path / "r1", "--limit", "2").returncode == 0
        bodies = [r.body for r in mock.generation_requests()]
    assert all(len(b["messages"]) == 1 and b["messages"][0]["role"] == "user" for b in bodies)
    assert bodies[0]["messages"][0]["content"].startswith("Answer the multiple-choice question")
    with MockOpenAI(default="The answer is A") as mock:
        assert chat_run(mock.base_url, tmp_path / "r2", "--limit", "2", "--fold-system").returncode == 0
        assert all(len(r.body["messages"]) == 1 for r in mock.generation_requests())


def test_infrastructure_errors_are_never_wrong_and_resume_retries_only_them(tmp_path):
    results = tmp_path / "results"
    broken = [*ARC_RULES, Rule(match="puddle|mammal", reply=Reply(status=500, error="out of memory"))]
    with MockOpenAI(rules=broken, default="The answer is D") as mock:
        proc = chat_run(mock.base_url, results)
    assert proc.returncode == 3 and "--resume" in proc.stderr
    store = Store(results)
    run = only_run(store, "arc_challenge_chat")
    assert run.status == "failed" and "2 item(s) ended in infrastructure errors" in run.error
    rows = attempts_by_item(store, run.run_id)
    errors = {k for k, r in rows.items() if r.status == "error"}
    assert errors == {"Sample_ARC_009", "Sample_ARC_010"}
    assert all(rows[k].correct is None and rows[k].score is None and rows[k].prediction is None for k in errors)
    assert "HTTP 500: out of memory (after 2 attempts)" in rows["Sample_ARC_009"].extra["error"]
    scores = scores_of(store, run.run_id)
    assert scores["n_error"].value == 2 and scores["accuracy"].n == 10
    assert scores["accuracy"].extra["reportable"] is False
    before = {k: (r.status, r.prediction) for k, r in rows.items() if k not in errors}

    with MockOpenAI(rules=ARC_RULES, default="The answer is C") as mock:
        proc = chat_run(mock.base_url, results, "--resume")
        asked = [r.body["messages"][-1]["content"] for r in mock.generation_requests()]
    assert proc.returncode == 0, proc.stderr
    assert len(asked) == 2 and all(("puddle" in q) or ("mammal" in q) for q in asked)
    run = only_run(store, "arc_challenge_chat")
    assert run.status == "finished" and run.error is None
    rows = attempts_by_item(store, run.run_id)
    assert len(rows) == 12 and store.query("SELECT count(*) FROM attempts").rows[0][0] == 12
    assert rows["Sample_ARC_009"].status == "correct" and rows["Sample_ARC_010"].status == "correct"
    assert {k: (r.status, r.prediction) for k, r in rows.items() if k not in errors} == before
    assert scores_of(store, run.run_id)["n_error"].value == 0


@pytest.mark.slow
def test_server_going_away_mid_run_stops_fast_and_resume_completes(tmp_path):
    results = tmp_path / "results"
    mock = MockOpenAI(default=Reply(content="The answer is A", delay_s=0.15)).start()
    proc = subprocess.Popen(
        [sys.executable, "-m", "evaluators", "chat", "run", "--task", "arc", "--base-url", mock.base_url, "--name", "m1",
         "--data", str(SAMPLES_DIR), "--results", str(results), *FAST],
        cwd=REPO, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(mock.generation_requests()) < 4 and time.monotonic() < deadline:
        time.sleep(0.02)
    mock.stop()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    assert "requests in a row failed" in err and "finished items are kept" in err
    store = Store(results)
    run = only_run(store, "arc_challenge_chat")
    assert run.status == "failed"
    done = attempts_by_item(store, run.run_id)
    assert 3 <= len(done) < 12 and all(r.status in ("correct", "wrong", "error") for r in done.values())
    assert not any(r.status == "wrong" and r.prediction is None for r in done.values())
    answered = {k for k, r in done.items() if r.status != "error"}

    with MockOpenAI(default="The answer is A") as again:
        proc2 = chat_run(again.base_url, results, "--resume")
        asked = len(again.generation_requests())
    assert proc2.returncode == 0, proc2.stderr
    assert asked == 12 - len(answered)
    rows = attempts_by_item(store, only_run(store, "arc_challenge_chat").run_id)
    assert len(rows) == 12 and all(r.status != "error" for r in rows.values())


def test_unreachable_server_and_bad_input_write_nothing(tmp_path, capsys):
    with MockOpenAI() as mock:
        url = mock.base_url
    results = tmp_path / "results"
    proc = chat_run(url, results)
    assert proc.returncode == 3 and "cannot reach the server" in proc.stderr
    assert not (results / "bananabench.duckdb").exists() or not Store(results).runs()
    bad = tmp_path / "data"
    bad.mkdir()
    (bad / "arc.jsonl").write_text('{"id": "x", "question": "q", "choices": {"text": ["a"], "label": ["A"]}, '
                                   '"answerKey": "A"}\n')
    proc = run_cli("chat", "run", "--task", "arc", "--base-url", url, "--data", str(bad), "--results", str(results))
    assert proc.returncode == 2 and "arc.jsonl:1: choices" in proc.stderr
    by_argparse = ("arc=0", "[1]")  # argparse rejects these itself
    cases = [(["--task", "hellaswag", "--base-url", url], "unknown benchmark 'hellaswag'"),
             (["--task", "arc", "--base-url", url, "--max-tokens", "arc=0"], "positive integer"),
             (["--task", "arc", "--base-url", url, "--max-tokens", "hellaswag=5"], "'hellaswag' is not one of the tasks"),
             (["--task", "arc", "--base-url", url, "--extra-body", "[1]"], "JSON object"),
             (["--task", "arc", "--base-url", "ftp://x"], "http(s)")]
    for args, needle in cases:
        with pytest.raises(SystemExit) if set(args) & set(by_argparse) else _nothing():
            code, _, err = cli_inprocess(capsys, "chat", "run", *args, "--data", str(SAMPLES_DIR),
                                         "--results", str(results))
            assert code == 2 and needle in err, (args, err)
        if set(args) & set(by_argparse):
            assert needle in capsys.readouterr().err
    assert not (results / "bananabench.duckdb").exists() or not Store(results).runs()


def test_router_mode_model_choice(tmp_path):
    models = [ModelSpec(id="org/base-A:Q4", n_ctx=8192, args=["llama-server", "-c", "16384", "-np", "2"]),
              ModelSpec(id="org/voiced-B:Q4", n_ctx=8192)]
    with MockOpenAI(models=models, router=True, default="The answer is A") as mock:
        proc = chat_run(mock.base_url, tmp_path / "r", "--limit", "1", name="file-c")
        assert proc.returncode == 2
        assert "org/base-A:Q4 (loaded), org/voiced-B:Q4 (loaded)" in proc.stderr and "--model-id" in proc.stderr
        proc = chat_run(mock.base_url, tmp_path / "r", "--limit", "1", name="voiced-B")
        assert proc.returncode == 0, proc.stderr
        assert "model org/voiced-B:Q4 (matches --name)" in proc.stderr
        proc = chat_run(mock.base_url, tmp_path / "r", "--limit", "1", "--model-id", "org/base-A:Q4", name="file-a")
        assert proc.returncode == 0, proc.stderr
        assert [r.body["model"] for r in mock.generation_requests()] == ["org/voiced-B:Q4", "org/base-A:Q4"]
    store = Store(tmp_path / "r")
    run = store.runs(model="file-a")[0]
    assert run.extra["server"]["mode"] == "router" and run.artifact["source"] == "org/base-A:Q4"
    config = store.query("SELECT config FROM server_configs WHERE fingerprint = ?",
                         [run.extra["server_fingerprint"]]).dicts()[0]["config"]
    assert json.loads(config)["args"] == ["llama-server", "-c", "16384", "-np", "2"]


@pytest.mark.slow
def test_resume_after_an_outage_skips_tasks_that_already_finished(tmp_path):
    """The README's `--task all --resume`: a finished task with the same signature is not asked again."""
    results = tmp_path / "r"
    outage = [Rule(match="####", on="all", reply=Reply(status=500, error="down"))]  # GSM8K asks for "#### N"
    with MockOpenAI(rules=outage, default="The answer is A") as mock:
        assert chat_run(mock.base_url, results, task="arc,gsm8k").returncode == 3
    store = Store(results)
    arc = only_run(store, "arc_challenge_chat")
    assert arc.status == "finished" and only_run(store, "tinyGSM8k").status == "failed"
    with MockOpenAI(default="The answer is A\n#### 3") as mock:
        proc = chat_run(mock.base_url, results, "--resume", task="all")
        asked = [r.body["messages"][-1]["content"] for r in mock.generation_requests()]
    assert proc.returncode == 0, proc.stderr
    assert f"arc: {arc.run_id} finished" in proc.stdout and "already finished" in proc.stderr
    assert only_run(store, "arc_challenge_chat").run_id == arc.run_id  # no second ARC run
    arc_questions = {a.extra["messages"][-1]["content"] for a in store.attempts(arc.run_id)}
    assert not arc_questions & set(asked)
    assert only_run(store, "tinyGSM8k").status == "finished" and only_run(store, "mmlu_generative")
    # Another configuration is not "the same task finished": it is refused as before, never skipped.
    with MockOpenAI(default="The answer is A") as mock:
        proc = chat_run(mock.base_url, results, "--resume", "--max-tokens", "99")
    assert proc.returncode == 0 and len(store.runs(benchmark="arc_challenge_chat")) == 2


def test_resume_refuses_a_different_configuration(tmp_path):
    with MockOpenAI(default=Reply(status=500)) as mock:
        assert chat_run(mock.base_url, tmp_path / "r", "--limit", "2").returncode == 3
        proc = chat_run(mock.base_url, tmp_path / "r", "--limit", "2", "--resume", "--max-tokens", "99")
    assert proc.returncode == 2 and "scoring.max_tokens" in proc.stderr


def test_rescore_reproduces_verdicts_and_repairs_stale_ones(tmp_path, capsys):
    results = tmp_path / "results"
    with MockOpenAI(rules=ARC_RULES, default="The answer is D") as mock:
        assert chat_run(mock.base_url, results).returncode == 0
    store = Store(results)
    run_id = only_run(store, "arc_challenge_chat").run_id
    original = {k: (r.status, r.prediction) for k, r in attempts_by_item(store, run_id).items()}
    original_scores = {(s.scope, s.key, s.metric): s.value for s in store.scores(run_id)}
    code, out, _ = cli_inprocess(capsys, "chat", "rescore", run_id, "--results", str(results))
    assert code == 0 and "0 of 12 verdicts changed" in out
    with store.write() as con:  # as if an older extractor had misread two answers
        con.execute("UPDATE attempts SET status = 'wrong', prediction = 'B', correct = false "
                    "WHERE item_id IN ('Sample_ARC_001', 'Sample_ARC_003')")
    code, out, _ = cli_inprocess(capsys, "chat", "rescore", run_id, "--results", str(results), "--dry-run")
    assert code == 0 and "2 of 12 verdicts would change" in out
    assert attempts_by_item(store, run_id)["Sample_ARC_001"].status == "wrong"
    proc = run_cli("chat", "rescore", run_id, "--results", str(results))
    assert proc.returncode == 0 and "2 of 12 verdicts changed" in proc.stdout
    assert "Sample_ARC_003: wrong 'B' -> unanswered None" in proc.stdout
    assert {k: (r.status, r.prediction) for k, r in attempts_by_item(store, run_id).items()} == original
    assert {(s.scope, s.key, s.metric): s.value for s in store.scores(run_id)} == original_scores
    assert cli_inprocess(capsys, "chat", "rescore", "nope", "--results", str(results))[0] == 2


@pytest.mark.slow
def test_compare_two_models(tmp_path, capsys):
    results = tmp_path / "results"
    with MockOpenAI(default="The answer is A") as mock:  # file-a answers A everywhere
        assert chat_run(mock.base_url, results, name="file-a").returncode == 0
    golds = {i.question[:20]: i.gold for i in items("arc")}
    rules = [Rule(match=q, reply=Reply(content=f"The answer is {g}")) for q, g in list(golds.items())[:8]]
    rules.append(Rule(match="photosynthesis", reply=Reply(content="", reasoning="...", finish_reason="length")))
    with MockOpenAI(rules=rules, default="The answer is B") as mock:  # file-b gets the first 8 right
        assert chat_run(mock.base_url, results, name="file-b").returncode == 0
    proc = run_cli("chat", "compare", "file-a", "file-b", "--results", str(results), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    [task] = report["tasks"]
    store = Store(results)
    a = attempts_by_item(store, task["run_a"])
    b = attempts_by_item(store, task["run_b"])
    only_a = sum(a[i].status == "correct" and b[i].status != "correct" for i in a)
    only_b = sum(b[i].status == "correct" and a[i].status != "correct" for i in a)
    assert task["n"] == 12 and task["b"]["n_correct"] == sum(r.status == "correct" for r in b.values())
    assert task["discordant"] == {"a_only_correct": only_a, "b_only_correct": only_b}
    assert task["mcnemar_p"] == pytest.approx(mcnemar_exact(only_a, only_b))
    assert task["b"]["n_unanswered"] == 1 and len(task["flips"]) == only_a + only_b
    table = cli_inprocess(capsys, "chat", "compare", task["run_a"], task["run_b"], "--results", str(results))[1]
    assert "McNemar p" in table and "arc_challenge_chat  12" in table and "flipped item(s)" in table
    out = tmp_path / "cmp.md"
    code, _, _ = cli_inprocess(capsys, "chat", "compare", "file-a", "file-b", "--results", str(results),
                               "--format", "markdown", "--out", str(out))
    assert code == 0 and out.read_text().count("| arc_challenge_chat |") == 1
    assert cli_inprocess(capsys, "chat", "compare", "file-a", "nobody", "--results", str(results))[0] == 2


@pytest.mark.slow
def test_sigterm_stops_cleanly_and_resume_finishes(tmp_path):
    results = tmp_path / "results"
    with MockOpenAI(default=Reply(content="The answer is C", delay_s=0.1)) as mock:
        proc = subprocess.Popen(
            [sys.executable, "-m", "evaluators", "chat", "run", "--task", "arc", "--base-url", mock.base_url,
             "--name", "m1", "--data", str(SAMPLES_DIR), "--results", str(results), "--concurrency", "1"],
            cwd=REPO, env=cli_env(BATCHED), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while _journal_lines(results) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 128 + signal.SIGTERM, err
        store = Store(results)
        run = only_run(store, "arc_challenge_chat")
        assert run.status == "interrupted"
        n_done = len(store.attempts(run.run_id))
        assert 3 <= n_done < 12
        mock.requests.clear()
        assert chat_run(mock.base_url, results, "--resume").returncode == 0
        assert len(mock.generation_requests()) == 12 - n_done
    assert len(store.attempts(run.run_id)) == 12


def _journal_lines(results: Path) -> int:
    journals = list(results.glob("runs/*/attempts.jsonl"))
    return sum(len(j.read_text().splitlines()) for j in journals)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_api_key_is_sent_but_never_stored(tmp_path):
    key = "sk-test-very-secret-4242"
    results = tmp_path / "results"
    with MockOpenAI(default="The answer is A") as mock:
        proc = run_cli("chat", "run", "--task", "arc", "--base-url", mock.base_url, "--name", "m", "--limit", "2",
                       "--data", str(SAMPLES_DIR), "--results", str(results),
                       env={**BATCHED, "BANANABENCH_API_KEY": key})
        auth = {r.headers.get("Authorization") for r in mock.requests}
    assert proc.returncode == 0, proc.stderr
    assert auth == {f"Bearer {key}"}
    blobs = [p.read_bytes() for p in results.rglob("*") if p.is_file()]
    assert blobs and not any(key.encode() in b for b in blobs)
    assert key not in proc.stderr + proc.stdout
