"""Named reads that evaluators and commands make of the store, beyond the rows `Store` hands out.

Each is one question with its SQL beside it, so the schema is written down in the store and nowhere
else: a caller asks for "the means of these attempt metrics", never joins tables itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluators.core.contract import AttemptKey, RunKey
from evaluators.store.store import Store

# The statement `bananabench store query --help` shows as its example.
EXAMPLE_QUERY = "SELECT * FROM current_runs"


def latest_attempt(store: Store, model: str, benchmark: str, item_id: str, attempt: int) -> tuple[str, str, str] | None:
    """(run_id, attempt status, run status) of the model's latest run holding this attempt of the item."""
    rows = store.query(
        "SELECT a.run_id, a.status, r.status FROM attempts a JOIN runs r USING (run_id) WHERE r.model_name = ? "
        "AND r.benchmark = ? AND a.item_id = ? AND a.attempt = ? ORDER BY r.started_at DESC LIMIT 1",
        [model, benchmark, item_id, attempt]).rows
    return tuple(rows[0]) if rows else None


def metric_means(store: Store, run_id: str, metrics: Sequence[str], *, skip_status: str) -> list[tuple[str, float, int]]:
    """(metric, mean, n) of a run's attempt metrics over its attempts whose status is not `skip_status`."""
    rows = store.query(
        "SELECT m.metric, avg(m.value), count(*) FROM attempt_metrics m JOIN attempts a USING (run_id, item_id, attempt) "
        "WHERE m.run_id = ? AND a.status <> ? AND m.metric IN (SELECT unnest(?)) GROUP BY m.metric",
        [run_id, skip_status, list(metrics)]).rows
    return [(metric, float(value), int(n)) for metric, value, n in rows if value is not None]


def mean_grades(store: Store, run_id: str, model: str, *, status: str) -> list[tuple[str, float]]:
    """(task, mean human grade) of the model's grades on the run's attempts that have `status`."""
    rows = store.query(
        "SELECT g.task, avg(g.grade) FROM grades g JOIN attempts a ON a.item_id = g.task AND a.attempt = g.attempt "
        "WHERE a.run_id = ? AND g.model_name = ? AND a.status = ? GROUP BY g.task ORDER BY g.task",
        [run_id, model, status]).rows
    return [(task, float(value)) for task, value in rows]


def server_configs_seen(store: Store, model_name: str) -> list[tuple[str, Any, Any, list[str], Any]]:
    """(fingerprint, first seen, last seen, run ids, stored config) of every server configuration the model's runs
    and attempts name (`runs.extra` and `attempts.extra`), oldest first."""
    return store.query(
        f"""
        WITH seen AS (
            SELECT json_extract_string(a.extra, '$.{AttemptKey.SERVER_FINGERPRINT}') AS fingerprint,
                   coalesce(a.started_at, r.started_at) AS at, r.run_id
            FROM attempts a JOIN runs r USING (run_id) WHERE r.model_name = ?
            UNION ALL
            SELECT json_extract_string(r.extra, '$.{RunKey.SERVER_FINGERPRINT}'), r.started_at, r.run_id
            FROM runs r WHERE r.model_name = ?
        )
        SELECT s.fingerprint, min(s.at), max(s.at), list(DISTINCT s.run_id ORDER BY s.run_id), any_value(c.config)
        FROM seen s LEFT JOIN server_configs c ON c.fingerprint = s.fingerprint
        WHERE s.fingerprint IS NOT NULL GROUP BY s.fingerprint ORDER BY min(s.at)
        """,
        [model_name, model_name],
    ).rows


def choice_logprobs(store: Store, run_id: str) -> list[tuple[str, int, float, int]]:
    """(item_id, idx, summed log-prob, continuation tokens) of a run's stored choices, by item and index."""
    return store.query("SELECT item_id, idx, logprob_sum, n_tokens FROM choices WHERE run_id = ? "
                       "ORDER BY item_id, idx", [run_id]).rows


def model_overview(store: Store) -> list[dict[str, Any]]:
    """Every model with its number of runs, of finished runs, and the benchmarks it ran (comma-separated)."""
    return store.query(
        "SELECT m.name, count(r.run_id) AS runs, count(r.run_id) FILTER (WHERE r.status = 'finished') AS finished, "
        "string_agg(DISTINCT r.benchmark, ',' ORDER BY r.benchmark) AS benchmarks "
        "FROM models m LEFT JOIN runs r ON r.model_name = m.name GROUP BY m.name ORDER BY m.name"
    ).dicts()


def run_overview(store: Store) -> list[dict[str, Any]]:
    """Every run's id, model, benchmark, split, status and flags, oldest first."""
    return store.query(
        "SELECT run_id, model_name, benchmark, split, status, official, hidden FROM runs ORDER BY started_at"
    ).dicts()


def relations(store: Store) -> list[tuple[str, str, list[tuple[str, str, bool]]]]:
    """(name, "table" or "view", [(column, type, nullable)]) of every table and view but the migration log."""
    out = []
    with store.read() as con:
        found = con.execute("SELECT table_name, table_type FROM information_schema.tables "
                            "WHERE table_name <> 'schema_migrations' ORDER BY table_type, table_name").fetchall()
        for name, kind in found:
            columns = con.execute(f"DESCRIBE {name}").fetchall()
            out.append((name, "view" if kind == "VIEW" else "table", [(c[0], c[1], c[2] == "YES") for c in columns]))
    return out
