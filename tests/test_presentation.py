"""`publish` shows a benchmark's runs the way its evaluator declared (`core.presentation`), never by testing the
evaluator's name: the declaration travels in the store with the benchmark, and stores from before it get the
declarations of their time from the migration."""

from __future__ import annotations

import ast
import re

import duckdb

import evaluators.agent as agent_evaluator
import evaluators.chat as chat_evaluator
import evaluators.loglik as loglik_evaluator
import evaluators.modes as modes_evaluator
from evaluators.core.presentation import PLAIN, Presentation, Rank
from evaluators.publish.builder import publish
from evaluators.publish.links import Links
from evaluators.publish.queries import Queries
from evaluators.runs.runs import RunSpec, start_run
from evaluators.store.records import AttemptRow, ScoreRow
from evaluators.store.schema import MIGRATIONS
from evaluators.store.store import Store
from tests.conftest import REPO
from tests.test_layers import EVALUATORS

DECLARED = {"loglik": loglik_evaluator.PRESENTATION, "chat": chat_evaluator.PRESENTATION,
            "agent": agent_evaluator.PRESENTATION, "modes": modes_evaluator.PRESENTATION}


QUOTED_NAME = re.compile("['\"](" + "|".join(EVALUATORS) + ")['\"]")  # in SQL: evaluator = 'agent'


def _names_an_evaluator(text: str) -> bool:
    return text in EVALUATORS or bool(QUOTED_NAME.search(text))


def test_publish_never_names_an_evaluator():
    found = []
    for path in sorted((REPO / "evaluators" / "publish").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _names_an_evaluator(node.value):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value[:60]!r}")
    for path in sorted((REPO / "templates").glob("*.j2")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if re.search(r"\.evaluator\s*(==|!=|\bin\b)|\bagent\s*(%}|and|or)", line):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:60]}")
    assert found == []


def _run(store: Store, evaluator: str, benchmark: str, presentation: Presentation, item: str = "t/one") -> str:
    spec = RunSpec(evaluator=evaluator, benchmark=benchmark, model_name="m", n_items=1)
    with start_run(store, spec, benchmark_title=benchmark, headline_metric="score", presentation=presentation) as run:
        run.record(AttemptRow(item_id=item, attempt=1, status="passed", score=1.0, correct=True))
        run.finish([ScoreRow(scope="overall", key="", metric="score", value=1.0, n=1)])
        return run.run_id


def test_the_site_follows_the_declaration_not_the_name(tmp_path):
    """An evaluator the site has never heard of gets task pages by declaring them; a run filed under "agent" that
    declares none gets the item table."""
    store = Store(tmp_path / "results")
    tasks = _run(store, "newcomer", "newcomer-bench", Presentation(task_pages=True, held_attempts=True))
    plain = _run(store, "agent", "agent-lookalike", PLAIN)
    with Queries.open(store) as q:
        assert q.benchmark("newcomer-bench").presentation == Presentation(task_pages=True, held_attempts=True)
        assert q.benchmark("agent-lookalike").presentation == PLAIN
    publish(store, tmp_path / "site")
    links = Links()  # run ids are safe names: their slugs do not depend on the order they are met
    task_page = tmp_path / "site" / links.task(tasks, "t/one")
    assert task_page.is_file()
    assert (tmp_path / "site" / links.items(plain, 0)).is_file()
    assert not (tmp_path / "site" / links.task(plain, "t/one")).exists()
    assert "items.js" not in (tmp_path / "site" / links.run(tasks)).read_text(encoding="utf-8")
    assert "items.js" in (tmp_path / "site" / links.run(plain)).read_text(encoding="utf-8")


def test_the_leaderboard_orders_benchmarks_by_declared_rank(tmp_path):
    store = Store(tmp_path)
    for evaluator, benchmark, rank in (("zeta", "last", Rank.OTHER), ("agent", "tasks", Rank.AGENT_TASKS),
                                       ("alpha", "first", Rank.LIKELIHOOD)):
        _run(store, evaluator, benchmark, Presentation(rank=rank))
    with Queries.open(store) as q:
        assert [b.name for b in q.ordered_benchmarks()] == ["first", "tasks", "last"]


def test_a_store_from_before_gets_the_declarations_of_its_evaluators(tmp_path):
    path = tmp_path / "bananabench.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description VARCHAR, applied_at TIMESTAMP)")
    for version, description, statements in MIGRATIONS[:3]:
        for statement in statements:
            con.execute(statement)
        con.execute("INSERT INTO schema_migrations VALUES (?, ?, now())", [version, description])
    for evaluator in [*DECLARED, "homemade"]:
        con.execute("INSERT INTO benchmarks (benchmark, evaluator) VALUES (?, ?)", [f"{evaluator}-bench", evaluator])
    con.close()
    with Queries.open(Store(tmp_path)) as q:
        got = {b.evaluator: b.presentation for b in q.benchmarks().values()}
    assert got == {**DECLARED, "homemade": PLAIN}


def test_every_evaluator_declares_a_place_on_the_leaderboard():
    ranks = [p.rank for p in DECLARED.values()]
    assert Rank.OTHER not in ranks and ranks == sorted(set(ranks))
    assert Presentation.from_json({"rank": 2, "from_a_newer_version": True}) == Presentation(rank=2)
    assert Presentation.from_json(None) == PLAIN
