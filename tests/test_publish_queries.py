"""The publisher's read side: which run each cell shows, redaction, paired diffs, and the report.

Runs against a store written through the core run API by every evaluator's conventions
(tests/helpers/publish_fixture.py), so these tests check the contract, not a mock of it.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from evaluators.core import stats
from evaluators.core.errors import BadInput
from evaluators.publish.diff import diff_models, diff_pairs
from evaluators.publish.queries import Queries, safe_relpath
from evaluators.publish.report import build_report
from evaluators.store.paired import paired_test
from evaluators.store.store import Store
from tests.helpers.publish_fixture import GATED_MARKER, XSS_NAME


@pytest.fixture(scope="module")
def q(publish_store):
    root, _ = publish_store
    with Queries.open(Store(root)) as queries:
        yield queries


def test_fixed_item_elo_batch_matches_single_fits():
    rng = np.random.default_rng(3)
    y = rng.random(60) < 0.55
    items = rng.uniform(750, 1200, 60)
    w = rng.uniform(1, 3, 60)
    counts = stats.resample_counts(60, 25, seed=1)
    assert (counts.sum(axis=1) == 60).all()
    batch = stats.fixed_item_elo_batch(y, items, counts * w)
    for row, rating in zip(counts, batch, strict=True):
        assert rating == pytest.approx(stats.fixed_item_elo(y, items, row * w).rating, abs=1e-5)
    # All correct / all wrong stay finite thanks to the prior.
    assert np.isfinite(stats.fixed_item_elo_batch(np.ones(5, bool), [800] * 5, np.ones((2, 5)))).all()
    assert (stats.resample_counts(60, 25, seed=1) == counts).all()


def test_summarize_resamples_two_sided_p():
    d = stats.summarize_resamples(1.0, np.array([0.5, 1.5, -0.1, 2.0]), 10, "m")
    assert d.p_value == pytest.approx(0.5) and d.ci_low < d.ci_high and d.n == 10
    assert math.isnan(stats.summarize_resamples(0.0, np.array([]), 0, "m").delta)


def test_leaderboard_shows_current_runs_official_preferred(q, publish_store):
    _, ids = publish_store
    board = q.leaderboard()
    rows = {r.model: r for r in board.rows}
    assert set(rows) == {"alpha-7b", "beta-3b", XSS_NAME}  # hidden-model has only a hidden run
    cell = rows["alpha-7b"].cells[("base-bench", "", "elo")]
    # Newest alpha base-bench run is a non-official --limit run: the official one still counts.
    assert cell.run_id == ids["base_bench"]["alpha-7b"] and cell.official
    assert rows["beta-3b"].cells[("base-bench", "", "elo")].official is False
    # The interrupted arc run of beta never shows.
    assert rows["beta-3b"].cells[("arc", "", "accuracy")].run_id == ids["chat"][("beta-3b", "arc")]
    keys = [c.key for c in board.columns]
    assert ("base-evals", "tiny_hellaswag", "acc_norm") in keys and ("modebench", "", "pcmd") in keys
    assert keys.index(("base-bench", "", "elo")) < keys.index(("arc", "", "accuracy")) < \
        keys.index(("banana-benchmark", "", "score")) < keys.index(("modebench", "", "pass_at_k"))
    assert rows["alpha-7b"].cells[("modebench", "", "pass_at_k")].score.reportable is False
    # Rows are ordered by the first headline (Elo), best first.
    elos = [r.cells[("base-bench", "", "elo")].value for r in board.rows]
    assert elos == sorted(elos, reverse=True)


def test_benchmark_view_breakdowns(q):
    view = q.benchmark_view("base-bench")
    assert view.overview.keys[0] == "elo"
    by_cat = next(t for t in view.tables if t.scope == "category" and t.metric == "elo")
    assert len(by_cat.keys) == 7
    evals = q.benchmark_view("base-evals")
    split_table = next(t for t in evals.tables if t.scope == "split" and t.metric == "acc_norm")
    assert split_table.keys == ["tiny_hellaswag", "tiny_pythonio"]
    cells = q.benchmark_view("modebench").tables[0]
    assert cells.scope == "cell" and cells.metric == "pass_at_k"


def test_ids_only_item_text_redacted_unless_private(q, publish_store):
    root, ids = publish_store
    run_id = ids["base_bench"]["alpha-7b"]
    for att in q.attempts(run_id):
        assert att.prediction is None and att.reference is None and att.extra == {}
        assert att.correct is not None and att.category
    sets = {run_id: "bb"}
    payload = "".join(p for *_, p in [*q.item_set_chunks(sets, 1000), *q.run_item_chunks(sets, 1000)])
    assert GATED_MARKER not in payload and '"commonsense"' in payload
    with Queries.open(Store(root), private=True) as private:
        assert GATED_MARKER in "".join(p for *_, p in private.item_set_chunks(sets, 1000))
        assert any(GATED_MARKER in str(a.extra) for a in private.attempts(run_id))
    # Public benchmarks keep their text.
    chat_run = ids["chat"][("alpha-7b", "arc")]
    assert any("<script>" in str(a.extra.get("raw")) for a in q.attempts(chat_run))


def test_errors_apart_and_server_fingerprints(q, publish_store):
    _, ids = publish_store
    (summary,) = q.summaries([q.run(ids["chat"][("alpha-7b", "arc")])])
    assert summary.n_errors == 1 and [e.item_id for e in q.errors(summary.run_id)] == ["arc-014"]
    assert summary.servers[0]["fingerprint"] == "fp-llama-1"
    (agent,) = q.summaries([q.run(ids["agent"]["alpha-7b"])])
    assert agent.servers and agent.servers[0]["config"]["props"]["n_ctx"] == 65536
    attempts = q.attempts(agent.run_id)
    frontend = [a for a in attempts if a.item_id == "frontend/kanban-board"]
    assert frontend[0].grade["grade"] == 4 and frontend[0].metrics["turns"] == 5


def test_mcnemar_diff_counts_flips_and_excludes_errors(q, publish_store):
    _, ids = publish_store
    d = diff_models(q, "alpha-7b", "beta-3b")
    arc = next(b for b in d.benches if b.benchmark.name == "arc")
    a_rows = {a.item_id: a for a in q.attempts(ids["chat"][("beta-3b", "arc")])}
    b_rows = {a.item_id: a for a in q.attempts(ids["chat"][("alpha-7b", "arc")])}
    usable = [i for i in a_rows if a_rows[i].status != "error" and b_rows[i].status != "error"]
    improved = sum(1 for i in usable if not a_rows[i].correct and b_rows[i].correct)
    regressed = sum(1 for i in usable if a_rows[i].correct and not b_rows[i].correct)
    test = arc.headline.test
    assert test.method == "exact McNemar" and test.n == len(usable) == 14
    assert (test.improved, test.regressed) == (improved, regressed)
    assert test.p_value == pytest.approx(stats.mcnemar_exact(regressed, improved))
    assert {f.item_id for f in arc.improved} == {i for i in usable if not a_rows[i].correct and b_rows[i].correct}
    assert test.delta == pytest.approx((improved - regressed) / len(usable))
    assert "arc-014" not in {f.item_id for f in arc.improved + arc.regressed}


def test_elo_diff_refits_on_paired_items(q, publish_store):
    _, ids = publish_store
    d = diff_models(q, "alpha-7b", "beta-3b")
    bench = next(b for b in d.benches if b.benchmark.name == "base-bench")
    assert (bench.paired, bench.only_a, bench.only_b) == (20, 0, 8)  # beta's run was --limit 20
    pairs = q.paired_items(ids["base_bench"]["beta-3b"], ids["base_bench"]["alpha-7b"]).pairs
    items = [p.a["item_elo"] for p in pairs]
    weights = [p.a["weight"] for p in pairs]
    expected = (stats.fixed_item_elo([p.b["correct"] for p in pairs], items, weights).rating
                - stats.fixed_item_elo([p.a["correct"] for p in pairs], items, weights).rating)
    test = bench.headline.test
    assert test.method == "paired bootstrap (Elo refit)"
    assert test.delta == pytest.approx(expected)
    assert test.ci_low < test.delta < test.ci_high
    assert {r.key for r in bench.rows if r.scope == "category"} <= set(q.benchmark_view("base-bench").tables[0].keys)


def test_no_diff_page_for_a_pair_without_a_benchmark_in_common(tmp_path):
    from tests.conftest import run_cli
    from tests.helpers.publish_fixture import base_evals, chat

    store = Store(tmp_path / "results")
    chat(store, "chat-only", "arc", seed=1)
    base_evals(store, "loglik-only", "tiny_hellaswag", seed=2)
    with Queries.open(store) as queries, pytest.raises(BadInput, match="no benchmark in common"):
        diff_models(queries, "chat-only", "loglik-only")
    proc = run_cli("publish", "--results", str(store.root), "--out", str(tmp_path / "site"), "--baseline", "loglik-only")
    assert proc.returncode == 0, proc.stderr
    assert "no benchmark in common" in proc.stderr
    assert not (tmp_path / "site" / "diffs").exists() or not list((tmp_path / "site" / "diffs").glob("*--vs--*"))


def test_diff_against_older_run_and_bad_baselines(q, publish_store):
    _, ids = publish_store
    d = diff_models(q, "alpha-7b", ids["old_alpha_base_bench"])
    assert d.baseline_kind == "run" and [b.benchmark.name for b in d.benches] == ["base-bench"]
    assert diff_pairs(q, [ids["old_alpha_base_bench"]]) == [("alpha-7b", ids["old_alpha_base_bench"])]
    with pytest.raises(BadInput, match="current run"):
        diff_models(q, "alpha-7b", ids["base_bench"]["alpha-7b"])
    with pytest.raises(BadInput, match="no model or run"):
        diff_models(q, "alpha-7b", "nobody")
    with pytest.raises(BadInput, match="hidden"):
        diff_models(q, "hidden-model", ids["hidden"])
    assert ("beta-3b", "beta-3b") not in diff_pairs(q, ["beta-3b"])


def test_paired_test_choices_by_metric(q, publish_store):
    _, ids = publish_store
    agent = q.paired_items(ids["agent"]["beta-3b"], ids["agent"]["alpha-7b"]).pairs
    assert paired_test("score", agent).method == "paired bootstrap (mean over items)"
    modes = diff_models(q, "alpha-7b", "beta-3b")
    mb = next(b for b in modes.benches if b.benchmark.name == "modebench")
    assert mb.headline.test.method.startswith("paired bootstrap")
    assert paired_test("pcmd", agent).method == "none"


def test_report_numbers_match_the_site_queries(q):
    text = build_report(q)
    board = q.leaderboard()
    from evaluators.publish import fmt
    for row in board.rows:
        for col in board.columns:
            cell = row.cells.get(col.key)
            if cell is not None and cell.value is not None:
                assert fmt.value(col.metric, cell.value) in text
    md = build_report(q, markdown=True)
    assert "\\<script\\>" in md and "<script>" not in md  # model names cannot inject markdown/HTML


def test_model_report_with_baseline_and_compare(q):
    text = build_report(q, model="alpha-7b", baselines=["beta-3b"])
    assert "Report: alpha-7b" in text and "alpha-7b vs beta-3b" in text
    assert "exact McNemar" in text and "paired bootstrap (Elo refit)" in text
    assert "Infrastructure errors" in text and "podman: container failed to start" in text
    assert "coding/two-sum" in text and "stuck" in text  # the agent per-task table
    table = build_report(q, compare_all=True)
    assert "commonsense" in table and "level1/countdown" in table
    with pytest.raises(BadInput, match="no runs"):
        build_report(q, model="nobody")


def test_report_text_escapes_terminal_control_characters(tmp_path):
    from tests.helpers.publish_fixture import chat

    store = Store(tmp_path / "r")
    chat(store, "evil\x1b[2Jmodel", "arc", seed=1, n=4)
    with Queries.open(store) as queries:
        text = build_report(queries)
    assert "\x1b" not in text and "evil\\x1b[2Jmodel" in text


def test_safe_relpath_rejects_escapes(q, tmp_path):
    assert safe_relpath("runs/x/a.png").as_posix() == "runs/x/a.png"
    for bad in ("/etc/passwd", "../secret", "runs/../../x", "", None, 3):
        assert safe_relpath(bad) is None
    assert q.resolve("../../etc/passwd") is None


def test_queries_need_a_database(tmp_path):
    with pytest.raises(BadInput, match="no results database"), Queries.open(Store(tmp_path / "empty")):
        pass
    assert not (tmp_path / "empty").exists()


def test_benchmark_registration_never_loosens_policy_or_blanks_the_headline(tmp_path):
    store = Store(tmp_path / "r")
    store.ensure_benchmark("gated", "loglik", policy="ids-only", title="Gated", headline_metric="elo", version="1.1")
    store.ensure_benchmark("gated", "loglik")  # a caller that passes nothing but the name
    row = store.query("SELECT policy, title, headline_metric, version FROM benchmarks WHERE benchmark = 'gated'").rows
    assert row == [("ids-only", "Gated", "elo", "1.1")]
    store.ensure_benchmark("gated", "loglik", title="Gated 2", headline_metric="accuracy")
    row = store.query("SELECT policy, title, headline_metric FROM benchmarks WHERE benchmark = 'gated'").rows
    assert row == [("ids-only", "Gated 2", "accuracy")]
    store.ensure_benchmark("plain", "chat")
    assert store.query("SELECT title, policy FROM benchmarks WHERE benchmark = 'plain'").rows == [("plain", "public")]


def test_item_text_once_per_set_and_runs_keep_only_their_outcomes(q, publish_store):
    """Two models' runs of one benchmark share one item set; a run's rows index into it, carry the model's
    output, and the item text (prompt, reference) is in the set only."""
    _, ids = publish_store
    runs = {ids["chat"][(m, "arc")]: "arc" for m in ("alpha-7b", "beta-3b")}
    (set_id, chunk, items), = [(s, c, json.loads(p)) for s, c, p in q.item_set_chunks(runs, 1000)]
    assert (set_id, chunk) == ("arc", 0) and [i[0] for i in items] == sorted(i[0] for i in items)
    assert all(i[1] in "ABCD" for i in items)  # the reference, once
    by_run = {r: json.loads(p) for r, c, p in q.run_item_chunks(runs, 1000)}
    for run_id, rows in by_run.items():
        expected = {(a.item_id, a.attempt): a for a in q.attempts(run_id)}
        assert len(rows) == len(expected)
        for row in rows:
            att = expected[(items[row[0]][0], row[1])]
            assert (row[2], row[3], row[5]) == (att.status, att.correct, att.prediction)
            assert row[6] is None  # same reference as the set's: not repeated
            assert (row[10] or {}).get("raw") == att.extra.get("raw")
    # Chunks cut rows in order: 4 rows a chunk.
    small = list(q.run_item_chunks(runs, 4))
    first = next(iter(runs))
    assert [json.loads(p)[0][0] for r, c, p in small if r == first] == [0, 4, 8, 12]
