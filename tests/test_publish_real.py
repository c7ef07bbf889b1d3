"""The publisher on runs the real evaluators wrote: chat (against the scripted OpenAI stand-in) and
modes (modebench's walkthrough), then `publish --baseline` and `report`.

Checks that the site shows exactly the stored numbers, that its paired test agrees with the chat
evaluator's own A/B comparison (`chat compare`), and that the model-written text stays text.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evaluators.publish import fmt
from evaluators.publish.queries.itemdata import unpack
from evaluators.store.store import Store
from tests.conftest import REPO, TINY_MODELS, run_cli
from tests.helpers.site_check import page_problems, site_pages
from tests.mock_openai import MockOpenAI, Reply, Rule

SAMPLES_DIR = REPO / "tasks" / "samples" / "chat"

pytestmark = pytest.mark.slow

EVIL = '<img src=x onerror=alert("m")>'
EVIL_OUTPUT = '<script>alert("out")</script> The answer is B'


def chat(results: Path, name: str, **mock) -> None:
    with MockOpenAI(**mock) as server:
        proc = run_cli("chat", "run", "--task", "arc,mmlu,gsm8k", "--base-url", server.base_url, "--name", name,
                       "--data", str(SAMPLES_DIR), "--results", str(results), "--retries", "2",
                       "--retry-wait", "0.01")
    assert proc.returncode == 0, proc.stderr


BASE_BENCH = REPO / "tasks" / "samples" / "base-bench"


def loglik(results: Path, name: str, model: str) -> None:
    proc = run_cli("loglik", "run", "--bench", "base-bench", "--data", str(BASE_BENCH), "--model", model,
                   "--name", name, "--results", str(results), "--device", "cpu", "--dtype", "float32",
                   "--threads", "1")
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def real(tmp_path_factory, tiny_model) -> tuple[Path, Path]:
    from evaluators.models.tinymodel import cached_tiny

    work = tmp_path_factory.mktemp("real")
    results = work / "results"
    loglik(results, "steady", tiny_model["path"])
    loglik(results, EVIL, cached_tiny(TINY_MODELS, seed=1, gguf=False)["path"])
    chat(results, "steady", default="The answer is A")
    chat(results, EVIL, default=EVIL_OUTPUT,
         rules=[Rule(match="notebooks", reply=Reply(content="#### 14")),
                Rule(match="roots", reply=Reply(reasoning="<b>roots</b>", content="The answer is A"))])
    walk = work / "walkthrough"
    subprocess.run([sys.executable, "-m", "modebench.cli", "walkthrough", "--directory", str(walk)],
                   check=True, capture_output=True)
    proc = run_cli("modes", "evaluate", str(walk / "responses.jsonl"), "--run", str(walk / "run.json"),
                   "--results", str(results), "--name", "steady")
    assert proc.returncode == 0, proc.stderr
    site = work / "site"
    proc = run_cli("publish", "--results", str(results), "--out", str(site), "--baseline", "steady")
    assert proc.returncode == 0, proc.stderr
    return results, site


def test_site_shows_the_stored_numbers(real):
    results, site = real
    index = (site / "index.html").read_text(encoding="utf-8")
    store = Store(results)
    shown = 0
    for run in store.current_runs():
        bench = store.query("SELECT headline_metric, title FROM benchmarks WHERE benchmark = ?",
                            [run.benchmark]).rows[0]
        headline = [s for s in store.scores(run.run_id) if s.scope == "overall" and s.metric == bench[0]]
        if headline and headline[0].value is not None:
            assert f">{fmt.number(bench[0], headline[0].value)}<" in index, (run.benchmark, bench)
            shown += 1
    assert shown >= 9  # Base Bench and three chat tasks for both models, ModeBench for one
    assert "ARC-Challenge (generative, letter answer)" in index


def test_diff_agrees_with_the_chat_evaluators_own_comparison(real):
    results, site = real
    from evaluators.publish.diff import diff_models
    from evaluators.publish.queries import Queries

    with Queries.open(Store(results)) as q:
        diff = diff_models(q, EVIL, "steady")
    proc = run_cli("chat", "compare", "steady", EVIL, "--results", str(results), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    theirs = json.loads(proc.stdout)
    theirs = theirs if isinstance(theirs, list) else theirs.get("tasks", [theirs])
    by_bench = {b.benchmark.name: b for b in diff.benches}
    assert {t["benchmark"] for t in theirs} <= set(by_bench)
    for task in theirs:
        test = by_bench[task["benchmark"]].headline.test
        assert test.method == "exact McNemar" and test.n == task["n"]
        assert (test.regressed, test.improved) == (task["discordant"]["a_only_correct"],
                                                   task["discordant"]["b_only_correct"])
        assert test.p_value == pytest.approx(task["mcnemar_p"])
    pages = list((site / "diffs").glob("*--vs--*.html"))
    assert len(pages) == 1 and "exact McNemar" in pages[0].read_text(encoding="utf-8")


def test_model_text_stays_text_and_pages_are_clean(real):
    _, site = real
    assert page_problems(site) == []
    text = "\n".join(p.read_text(encoding="utf-8") for p in site_pages(site))
    assert EVIL not in text and "&lt;img src=x onerror=alert(&#34;m&#34;)&gt;" in text
    items = "\n".join(unpack(p.read_text(encoding="utf-8")) for p in (site / "runs").glob("*.items.*.js"))
    assert '<script>alert(\\"out\\")</script>' in items  # raw outputs ship as JSON data, shown with textContent


def test_report_on_real_runs(real):
    results, _ = real
    proc = run_cli("report", "--results", str(results), "--model", EVIL, "--baseline", "steady", "--md")
    assert proc.returncode == 0, proc.stderr
    assert "exact McNemar" in proc.stdout and "\\<img" in proc.stdout
    assert re.search(r"(?<!\\)<img", proc.stdout) is None  # markdown cannot carry the model's HTML
    assert "ModeBench" in run_cli("report", "--results", str(results), "--compare").stdout


def test_gated_sample_text_is_in_no_published_file(real):
    """Base Bench is ids-only: none of the sample's contexts or continuations leave the store."""
    _, site = real
    texts = set()
    for line in (BASE_BENCH / "data" / "test.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        texts.add(record["context"])
        texts.update(c.strip() for c in record["continuations"])
    published = [p for p in site.rglob("*") if p.is_file() and p.suffix != ".parquet"]
    for path in published:
        content = path.read_text(encoding="utf-8", errors="replace")
        leaked = [t for t in texts if len(t) > 12 and t in content]
        assert leaked == [], f"{path}: {leaked[:3]}"


def test_elo_diff_on_real_loglik_runs(real):
    results, site = real
    from evaluators.publish.diff import diff_models
    from evaluators.publish.queries import Queries

    with Queries.open(Store(results)) as q:
        bench = next(b for b in diff_models(q, EVIL, "steady").benches if b.benchmark.name == "base-bench")
    test = bench.headline.test
    assert test.method == "paired bootstrap (Elo refit)" and test.n == bench.paired > 0
    assert bench.headline.a.value is not None and bench.headline.b.value is not None
