"""Rows on their way into and out of DuckDB: JSON columns encoded (secrets scrubbed) and decoded,
and a batch of rows as a typed Arrow table for a fast bulk insert."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

from evaluators.core.secrets import scrub
from evaluators.store.schema import JSON_COLUMNS


def to_json(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(scrub(value), sort_keys=True, default=str, allow_nan=False)


def decode(row: dict[str, Any]) -> dict[str, Any]:
    """Parse JSON columns back into Python objects."""
    for key in JSON_COLUMNS:
        if isinstance(row.get(key), str):
            row[key] = json.loads(row[key])
    return row


_ARROW_TYPES = {
    "attempt": "int32", "idx": "int32", "n_tokens": "int32", "n": "int64",
    "correct": "bool", "score": "float64", "weight": "float64", "wall_s": "float64",
    "tokens_in": "int64", "tokens_out": "int64", "logprob_sum": "float64", "mean_logprob": "float64",
    "value": "float64", "ci_low": "float64", "ci_high": "float64", "started_at": "timestamp[us]",
    "reviewed_at": "timestamp[us]",
}


def arrow_table(table: str, columns: Sequence[str], rows: list[dict[str, Any]]):
    """Rows as a typed Arrow table in the column order of `table` (fast bulk insert)."""
    import pyarrow as pa

    arrays = []
    for column in columns:
        values = [r.get(column) for r in rows]
        if column in JSON_COLUMNS:
            values = [to_json(v) for v in values]
            arrays.append(pa.array(values, type=pa.string()))
            continue
        kind = _ARROW_TYPES.get(column, "string")
        if kind == "string":
            values = [None if v is None else str(v) for v in values]
        if kind == "bool":
            values = [None if v is None else bool(v) for v in values]
        if kind.startswith("timestamp"):  # journal lines carry timestamps as ISO text
            values = [dt.datetime.fromisoformat(v) if isinstance(v, str) else v for v in values]
        try:
            arrays.append(pa.array(values, type=pa.type_for_alias(kind)))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as exc:
            raise ValueError(f"{table}.{column}: {exc}") from exc
    return pa.Table.from_arrays(arrays, names=list(columns))
