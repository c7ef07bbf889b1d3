"""`bananabench demo` end to end: what `make demo` runs, on a fresh results folder, with the real model."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from evaluators.chat.demo import QUESTIONS
from evaluators.core.contract import RunKey
from evaluators.models.realmodel import NAME as REAL
from evaluators.store.store import Store
from tests.conftest import REPO, built_once, run_cli

PNG = b"\x89PNG\r\n\x1a\n"


def _run_demo(folder: Path) -> dict[str, Any]:
    results, site = folder / "results", folder / "site"
    r = run_cli("demo", "--results", str(results), "--work", str(folder / "work"), "--out", str(site),
                "--cache", str(REPO / ".cache" / "real-model"), timeout=1800)
    assert r.returncode == 0, r.stderr[-3000:]
    return {"results": results, "site": site, "stdout": r.stdout}


@pytest.fixture(scope="session")
def demo(tmp_path_factory) -> dict[str, Any]:
    """`bananabench demo` (what `make demo` runs) on a fresh results folder, run once per test run."""
    return built_once(tmp_path_factory, "demo", _run_demo)[1]


def on_the_demo(test):
    """The marks of a test on the demo's results: slow (the first to ask runs the demo: minutes), and the demo
    needs podman, Chromium and the real model. One xdist worker runs them all: another would only wait for the
    demo."""
    for mark in (pytest.mark.slow, pytest.mark.podman, pytest.mark.browser, pytest.mark.real,
                 pytest.mark.timeout(1800), pytest.mark.xdist_group("demo")):
        test = mark(test)
    return test


@on_the_demo
def test_demo_runs_a_real_model_through_every_evaluator(demo):
    store = Store(demo["results"])
    # The real model's rows: loglik (transformers on the float32 copy), chat and modes (llama.cpp on the GGUF).
    real = {row.evaluator for row in store.runs(model=REAL, status="finished")}
    assert real == {"loglik", "chat", "modes"}
    chat = [a for run in store.runs(model=REAL, evaluator="chat") for a in store.attempts(run.run_id)]
    raw = [a.extra["raw"] for a in chat if a.status != "error"]
    assert len(raw) == 3 * QUESTIONS  # the first QUESTIONS of each benchmark's sample questions
    assert sum(bool(re.search(r"\b(the|is|of|a)\b", text, re.I)) for text in raw) >= len(raw) // 3
    assert {a.status for a in chat} <= {"correct", "wrong", "unanswered", "truncated"}
    assert any(a.prediction is not None for a in chat)  # real extraction of real answers
    [modes] = store.runs(model=REAL, evaluator="modes")
    assert len(store.attempts(modes.run_id)) == 5 * 2  # modebench's five walkthrough tasks, one group of 2 draws
    assert {row.evaluator for row in store.runs(model="tiny-llama")} == {"loglik", "agent"}
    reference = store.runs(model="reference-solution")
    assert len(reference) == 1 and reference[0].extra[RunKey.REFERENCE_RUN]
    # The stage times are printed, and where the site is.
    assert "stage times" in demo["stdout"] and "models: the tiny model and SmolLM2-135M-Instruct" in demo["stdout"]
    assert str(demo["site"]) in demo["stdout"]


@on_the_demo
def test_demo_publishes_every_kind_of_page(demo):
    site = demo["site"]
    # Every kind of page: leaderboard, benchmarks, models, runs, gallery with screenshots, a diff page.
    assert REAL in (site / "index.html").read_text()
    assert {p.stem for p in (site / "benchmarks").glob("*.html")} >= {"base-bench", "base-evals", "banana-benchmark"}
    gallery = (site / "gallery.html").read_text()
    shots = re.findall(r'<img src="(media/[^"]+-(desktop|mobile)\.png)"', gallery)
    assert {kind for _, kind in shots} == {"desktop", "mobile"}
    assert all((site / src).read_bytes().startswith(PNG) for src, _ in shots)
    assert "reference run" in gallery
    apps = re.findall(r'href="(apps/[^"]+\.html)"', gallery)  # the demo publishes the reference run's app
    assert apps and all("srcdoc=" in (site / app).read_text() for app in apps)
    diffs = sorted(p.name for p in (site / "diffs").glob("*--vs--*.html"))
    assert len(diffs) == 1 and diffs[0].startswith(f"tiny-llama--vs--{REAL}")
    assert "BananaMind Base Bench 1.1" in (site / "diffs" / diffs[0]).read_text()


@pytest.mark.slow
def test_tiny_mode_fetches_nothing_and_uses_the_tiny_model_everywhere(tmp_path):
    from evaluators import demo

    ctx = demo.DemoContext(store=Store(tmp_path / "results"), work=tmp_path / "work", site=tmp_path / "site")
    demo.prepare_models(ctx, tiny_only=True, cache=str(tmp_path / "never"))
    assert ctx.main == ctx.tiny and ctx.main.name == demo.TINY_NAME and ctx.baselines == []
    assert ctx.loglik_models() == [ctx.tiny] and not (tmp_path / "never").exists()
    assert (ctx.tiny.gguf).read_bytes()[:4] == b"GGUF"
