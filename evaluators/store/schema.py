"""The store's schema: every migration in order, and the write contract of the run-scoped tables.

A store opened for writing is brought up to `SCHEMA_VERSION` by applying the migrations it lacks
(`Store._migrate`); a migration is never edited once released, only followed by another.
"""

from __future__ import annotations

POLICIES = ("public", "ids-only")

MIGRATIONS: list[tuple[int, str, list[str]]] = [
    (
        1,
        "initial schema: benchmarks, models, runs, attempts, choices, scores, grades",
        [
            """CREATE TABLE benchmarks (
                benchmark VARCHAR PRIMARY KEY,
                evaluator VARCHAR NOT NULL,
                title VARCHAR,
                version VARCHAR,
                policy VARCHAR NOT NULL DEFAULT 'public' CHECK (policy IN ('public', 'ids-only')),
                headline_metric VARCHAR,
                higher_is_better BOOLEAN NOT NULL DEFAULT TRUE,
                description VARCHAR,
                extra JSON
            )""",
            """CREATE TABLE models (
                name VARCHAR PRIMARY KEY,
                created_at TIMESTAMP NOT NULL,
                description VARCHAR,
                extra JSON
            )""",
            """CREATE TABLE runs (
                run_id VARCHAR PRIMARY KEY,
                evaluator VARCHAR NOT NULL,
                benchmark VARCHAR NOT NULL,
                benchmark_version VARCHAR,
                split VARCHAR,
                model_name VARCHAR NOT NULL,
                artifact JSON,
                backend VARCHAR,
                config JSON,
                signature VARCHAR,
                dataset_sha256 VARCHAR,
                official BOOLEAN NOT NULL DEFAULT FALSE,
                status VARCHAR NOT NULL,
                started_at TIMESTAMP NOT NULL,
                finished_at TIMESTAMP,
                software_version VARCHAR,
                host VARCHAR,
                hidden BOOLEAN NOT NULL DEFAULT FALSE,
                n_items INTEGER,
                error VARCHAR,
                extra JSON
            )""",
            """CREATE TABLE attempts (
                run_id VARCHAR NOT NULL,
                item_id VARCHAR NOT NULL,
                attempt INTEGER NOT NULL CHECK (attempt >= 1),
                status VARCHAR NOT NULL,
                correct BOOLEAN,
                score DOUBLE,
                prediction VARCHAR,
                reference VARCHAR,
                category VARCHAR,
                difficulty VARCHAR,
                weight DOUBLE,
                started_at TIMESTAMP,
                wall_s DOUBLE,
                tokens_in BIGINT,
                tokens_out BIGINT,
                extra JSON,
                PRIMARY KEY (run_id, item_id, attempt)
            )""",
            """CREATE TABLE choices (
                run_id VARCHAR NOT NULL,
                item_id VARCHAR NOT NULL,
                idx INTEGER NOT NULL,
                logprob_sum DOUBLE,
                n_tokens INTEGER,
                mean_logprob DOUBLE,
                extra JSON,
                PRIMARY KEY (run_id, item_id, idx)
            )""",
            """CREATE TABLE scores (
                run_id VARCHAR NOT NULL,
                scope VARCHAR NOT NULL,
                key VARCHAR NOT NULL,
                metric VARCHAR NOT NULL,
                value DOUBLE,
                ci_low DOUBLE,
                ci_high DOUBLE,
                n INTEGER,
                extra JSON,
                PRIMARY KEY (run_id, scope, key, metric)
            )""",
            """CREATE TABLE grades (
                model_name VARCHAR NOT NULL,
                task VARCHAR NOT NULL,
                attempt INTEGER NOT NULL,
                grade INTEGER NOT NULL CHECK (grade BETWEEN 0 AND 5),
                graded_at TIMESTAMP NOT NULL,
                run_id VARCHAR,
                note VARCHAR,
                PRIMARY KEY (model_name, task, attempt)
            )""",
        ],
    ),
    (
        2,
        "attempt_metrics side table, server configurations, current_runs view",
        [
            """CREATE TABLE attempt_metrics (
                run_id VARCHAR NOT NULL,
                item_id VARCHAR NOT NULL,
                attempt INTEGER NOT NULL,
                metric VARCHAR NOT NULL,
                value DOUBLE,
                PRIMARY KEY (run_id, item_id, attempt, metric)
            )""",
            """CREATE TABLE server_configs (
                fingerprint VARCHAR PRIMARY KEY,
                first_seen TIMESTAMP NOT NULL,
                last_seen TIMESTAMP NOT NULL,
                config JSON
            )""",
            # Which run counts on the leaderboard: the latest finished, non-hidden run per
            # (model, benchmark, split), official runs preferred over non-official ones.
            """CREATE VIEW current_runs AS
                SELECT * EXCLUDE (rank_) FROM (
                    SELECT r.*, row_number() OVER (
                        PARTITION BY model_name, benchmark, coalesce(split, '')
                        ORDER BY official DESC, finished_at DESC, run_id DESC) AS rank_
                    FROM runs r WHERE status = 'finished' AND NOT hidden
                ) WHERE rank_ = 1""",
        ],
    ),
]
MIGRATIONS.append((
    3,
    "reviews: a person's decision on a held attempt (accept or reject), beside the human grades",
    [
        """CREATE TABLE reviews (
            run_id VARCHAR NOT NULL,
            item_id VARCHAR NOT NULL,
            attempt INTEGER NOT NULL,
            decision VARCHAR NOT NULL CHECK (decision IN ('accept', 'reject')),
            note VARCHAR,
            reviewed_at TIMESTAMP NOT NULL,
            PRIMARY KEY (run_id, item_id, attempt)
        )""",
    ],
))
# Stores from before 4 get the presentation their evaluators declared then (a declaration is a copy: never
# derived from today's code, so the migration stays what it was).
_DECLARED_THEN = {
    "loglik": '{"presentation": {"rank": 1}}',
    "chat": '{"presentation": {"rank": 2}}',
    "agent": '{"presentation": {"rank": 3, "task_pages": true, "held_attempts": true, "every_status_change": true}}',
    "modes": '{"presentation": {"rank": 4}}',
}
MIGRATIONS.append((
    4,
    "benchmarks.extra.presentation: what the site shows of a benchmark's runs, declared by its evaluator",
    [f"UPDATE benchmarks SET extra = json_merge_patch(coalesce(extra, '{{}}'), '{declared}') "
     f"WHERE evaluator = '{evaluator}' AND json_extract(extra, '$.presentation') IS NULL"
     for evaluator, declared in _DECLARED_THEN.items()],
))
SCHEMA_VERSION = MIGRATIONS[-1][0]

# Column lists define the write contract; rows are dicts with (a subset of) these keys.
COLUMNS: dict[str, tuple[str, ...]] = {
    "attempts": (
        "run_id", "item_id", "attempt", "status", "correct", "score", "prediction", "reference",
        "category", "difficulty", "weight", "started_at", "wall_s", "tokens_in", "tokens_out", "extra",
    ),
    "choices": ("run_id", "item_id", "idx", "logprob_sum", "n_tokens", "mean_logprob", "extra"),
    "scores": ("run_id", "scope", "key", "metric", "value", "ci_low", "ci_high", "n", "extra"),
    "attempt_metrics": ("run_id", "item_id", "attempt", "metric", "value"),
    "reviews": ("run_id", "item_id", "attempt", "decision", "note", "reviewed_at"),
}
KEYS: dict[str, tuple[str, ...]] = {
    "attempts": ("run_id", "item_id", "attempt"),
    "choices": ("run_id", "item_id", "idx"),
    "scores": ("run_id", "scope", "key", "metric"),
    "attempt_metrics": ("run_id", "item_id", "attempt", "metric"),
    "reviews": ("run_id", "item_id", "attempt"),
}
JSON_COLUMNS = {"extra", "artifact", "config"}
# Run-scoped tables, in the order a merge or delete must visit them.
RUN_TABLES = ("attempts", "choices", "scores", "attempt_metrics", "reviews")
