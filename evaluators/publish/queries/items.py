"""The item data's SQL: item text once per item set, each run's attempts beside it, in JSON chunks.

Apart from the other reads because the site's item pages are the one bulk export: these queries stream
every attempt of every run, so they are written as single DuckDB statements that build the JSON themselves.
`ItemData` is mixed into `Queries`, whose connection (`con`), `private` flag and redaction policy it uses.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from evaluators.core.contract import ITEM_KEYS


class ItemData:
    """The item-data reads of `Queries` (see the module docstring for what they rely on)."""

    con: Any
    private: bool

    def _item_sql(self, body: str) -> str:
        """Common CTEs: `m` maps runs to item sets, `src` is their attempts (redacted by policy), `idx` numbers
        each set's items by id with the set's reference (the first run's that has one)."""
        strip = json.dumps({k: None for k in ITEM_KEYS})
        item_text = "json_merge_patch('{}', json_object(" + ", ".join(
            f"'{k}', a.extra->'$.{k}'" for k in ITEM_KEYS) + "))"
        return f"""
            WITH m AS (SELECT unnest($runs) AS run_id, unnest($sets) AS set_id),
            src AS (
                SELECT m.set_id, a.*, coalesce(p.policy = 'ids-only' AND NOT $private, true) AS redact,
                       nullif({item_text}, '{{}}') AS item_text,
                       nullif(json_merge_patch(a.extra, '{strip}'), '{{}}') AS run_extra
                FROM attempts a JOIN m USING (run_id) JOIN runs r USING (run_id)
                LEFT JOIN benchmarks p ON p.benchmark = r.benchmark),
            items AS (
                SELECT set_id, item_id, any_value(redact) AS redact,
                       first(reference ORDER BY run_id, attempt) FILTER (WHERE reference IS NOT NULL) AS reference,
                       first(category ORDER BY run_id, attempt) FILTER (WHERE category IS NOT NULL) AS category,
                       first(difficulty ORDER BY run_id, attempt) FILTER (WHERE difficulty IS NOT NULL) AS difficulty,
                       first(item_text ORDER BY attempt, run_id) FILTER (WHERE item_text IS NOT NULL) AS item_text
                FROM src GROUP BY set_id, item_id),
            idx AS (
                SELECT *, row_number() OVER (PARTITION BY set_id ORDER BY item_id) - 1 AS idx FROM items)
            {body}"""

    def _item_params(self, run_sets: dict[str, str], chunk: int) -> dict[str, Any]:
        return {"runs": list(run_sets), "sets": list(run_sets.values()), "private": self.private, "chunk": chunk}

    def _run_params(self, run_sets: dict[str, str], chunk: int, only: list[str] | None) -> dict[str, Any]:
        return {**self._item_params(run_sets, chunk), "only": list(run_sets) if only is None else list(only)}

    def item_set_chunks(self, run_sets: dict[str, str], chunk: int, *, con: Any = None
                        ) -> Iterator[tuple[str, int, str]]:
        """(set id, chunk number, JSON array) of the items of every item set the runs `run_sets` maps to
        set ids, `chunk` items a chunk, by item id. Item row: [item_id, reference, category, difficulty,
        item text (the `ITEM_KEYS` of `extra`)]; reference and item text are NULL for ids-only benchmarks."""
        sql = self._item_sql("""
            SELECT set_id, idx // $chunk, to_json(list(json_array(
                       item_id, CASE WHEN redact THEN NULL ELSE reference END, category, difficulty,
                       CASE WHEN redact THEN NULL ELSE item_text END) ORDER BY idx))
            FROM idx GROUP BY ALL ORDER BY ALL""")
        cur = (con or self.con).execute(sql, self._item_params(run_sets, chunk))
        while batch := cur.fetchmany(64):
            yield from batch

    def item_set_signatures(self, run_sets: dict[str, str], *, con: Any = None) -> dict[str, tuple[int, int]]:
        """Per item set: (number of items, XOR of their ids' hashes): what fixes each item's index in it."""
        rows = (con or self.con).execute("""
            WITH m AS (SELECT unnest($runs) AS run_id, unnest($sets) AS set_id),
            ids AS (SELECT DISTINCT m.set_id, a.item_id FROM attempts a JOIN m USING (run_id))
            SELECT set_id, count(*), bit_xor(hash(item_id)) FROM ids GROUP BY set_id""",
            {"runs": list(run_sets), "sets": list(run_sets.values())}).fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    def run_item_chunks(self, run_sets: dict[str, str], chunk: int, *, only: list[str] | None = None,
                        con: Any = None) -> Iterator[tuple[str, int, str]]:
        """(run id, chunk number, JSON array) of every run's attempts, `chunk` rows a chunk, by item and attempt.

        Row: [item index in its set, attempt, status, correct, score, prediction, reference (only where it
        differs from the set's), wall_s, tokens_in, tokens_out, extra without the item text, choices];
        choices are [idx, logprob_sum, n_tokens, mean_logprob]. Model output of ids-only benchmarks is NULL.
        `only`: the runs to return (the others still number their sets' items).
        """
        sql = self._item_sql("""
            , ch AS (
                SELECT run_id, item_id, list([idx, logprob_sum, n_tokens, mean_logprob] ORDER BY idx) AS choices
                FROM choices WHERE run_id IN (SELECT run_id FROM m) GROUP BY run_id, item_id),
            rows AS (
                SELECT s.run_id, i.idx, s.attempt,
                       (row_number() OVER (PARTITION BY s.run_id ORDER BY i.idx, s.attempt) - 1) // $chunk AS chunk,
                       json_array(i.idx, s.attempt, s.status, s.correct, s.score,
                                  CASE WHEN s.redact THEN NULL ELSE s.prediction END,
                                  CASE WHEN NOT s.redact AND s.reference IS DISTINCT FROM i.reference
                                       THEN s.reference END,
                                  s.wall_s, s.tokens_in, s.tokens_out,
                                  CASE WHEN s.redact THEN NULL ELSE s.run_extra END, ch.choices) AS row
                FROM src s JOIN idx i USING (set_id, item_id)
                LEFT JOIN ch ON ch.run_id = s.run_id AND ch.item_id = s.item_id AND s.attempt = 1
                WHERE s.run_id IN (SELECT unnest($only)))
            SELECT run_id, chunk, to_json(list(row ORDER BY idx, attempt)) FROM rows GROUP BY ALL ORDER BY ALL""")
        cur = (con or self.con).execute(sql, self._run_params(run_sets, chunk, only))
        while batch := cur.fetchmany(64):
            yield from batch

    def item_columns(self, run_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Per run: how many attempt rows, which item-table columns have values, and attempts per category."""
        out: dict[str, dict[str, Any]] = {}
        for row in self.con.execute("""
                SELECT run_id, count(*), max(attempt) > 1, count(nullif(prediction, '')) > 0, count(reference) > 0,
                       count(category) > 0, count(difficulty) > 0, count(wall_s) > 0,
                       count(tokens_in) + count(tokens_out) > 0,
                       coalesce(bool_or(score <> CASE WHEN correct THEN 1.0 ELSE 0.0 END), false)
                FROM attempts WHERE run_id IN (SELECT unnest(?)) GROUP BY run_id""", [run_ids]).fetchall():
            redact = self.redacted(self._runs[row[0]]["benchmark"])
            out[row[0]] = {"rows": row[1], "multiAttempt": row[2], "categories": {},
                           "show": {"pred": row[3] and not redact, "ref": row[4] and not redact, "cat": row[5],
                                    "diff": row[6], "wall": row[7], "tokens": row[8], "score": row[9]}}
        for run_id, category, n in self.con.execute(
                "SELECT run_id, category, count(*) FROM attempts WHERE run_id IN (SELECT unnest(?)) "
                "AND category IS NOT NULL GROUP BY ALL ORDER BY ALL", [run_ids]).fetchall():
            out[run_id]["categories"][category] = n
        return out
