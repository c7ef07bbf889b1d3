"""BananaMind Base Bench 1.1's own checks: what its seed demands that a spec cannot express.

The spec (`evaluators/specs/base-bench.toml`) declares the data, the mapping, the scoring (mean
log-prob, fixed-item Elo), the official counts and the category table. This module holds the rest of
"the official benchmark script validates the complete schema": every record has exactly the seed's
fields with their types, version 1.1, the `mean_logprob` score mode, difficulties easy/medium/hard
with their weights, four whitespace-led continuations; and each category matches one row of the
seed's composition table (its weight and its item Elo for every difficulty). Category *names* come
from the data, so they are matched by those numbers, and two categories that share a row's numbers
(Commonsense and World Knowledge) may not outnumber the rows that carry them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput, located
from evaluators.specs.records import type_name
from evaluators.specs.spec import Category

CHECKS = "base-bench-1.1"
VERSION = "1.1"
DIFFICULTY_WEIGHTS = {"easy": 1.0, "medium": 1.5, "hard": 2.25}
N_CHOICES = 4

# field -> (accepted python types, description used in errors)
FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "id": ((str,), "a string"),
    "version": ((str,), "a string"),
    "category": ((str,), "a string"),
    "difficulty": ((str,), "a string"),
    "category_weight": ((int, float), "a number"),
    "difficulty_weight": ((int, float), "a number"),
    "item_elo": ((int, float), "a number"),
    "context": ((str,), "a string"),
    "continuations": ((list,), "a list"),
    "label": ((int,), "an integer"),
    "score_mode": ((str,), "a string"),
    "tags": ((list,), "a list"),
}


def check_records(path: Path, records: list[tuple[int, dict[str, Any]]]) -> None:
    """Every record against the seed's schema; the first violation is a BadInput naming line and field."""
    for line, record in records:
        _check_record(path, line, record)


def _check_record(path: Path, line: int, record: dict[str, Any]) -> None:
    def fail(name: str | None, message: str) -> BadInput:
        return BadInput(located(path, line, name, message))

    missing = [k for k in FIELDS if k not in record]
    if missing:
        raise fail(missing[0], "missing field")
    unknown = sorted(set(record) - set(FIELDS))
    if unknown:
        raise fail(unknown[0], "unknown field (Base Bench 1.1 records have " + ", ".join(FIELDS) + ")")
    for name, (types, what) in FIELDS.items():
        value = record[name]
        if isinstance(value, bool) or not isinstance(value, types):
            raise fail(name, f"must be {what}, not {type_name(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise fail(name, "must be finite")
    for name in ("id", "category"):
        if not record[name].strip():
            raise fail(name, "must not be empty")
    if record["version"] != VERSION:
        raise fail("version", f"must be {VERSION!r}, not {record['version']!r}")
    difficulty = record["difficulty"]
    if difficulty not in DIFFICULTY_WEIGHTS:
        raise fail("difficulty", f"must be one of {', '.join(DIFFICULTY_WEIGHTS)}, not {difficulty!r}")
    if not math.isclose(record["difficulty_weight"], DIFFICULTY_WEIGHTS[difficulty]):
        raise fail("difficulty_weight", f"must be {DIFFICULTY_WEIGHTS[difficulty]} for {difficulty} items, "
                                        f"not {record['difficulty_weight']}")
    if not record["context"]:
        raise fail("context", "must not be empty")
    conts = record["continuations"]
    if len(conts) != N_CHOICES:
        raise fail("continuations", f"must hold {N_CHOICES} continuations, not {len(conts)}")
    for k, cont in enumerate(conts):
        where = f"continuations[{k}]"
        if not isinstance(cont, str):
            raise fail(where, f"must be a string, not {type_name(cont)}")
        if not cont[:1].isspace():
            raise fail(where, "must begin with whitespace (the token boundary)")
        if not cont.strip():
            raise fail(where, "must contain more than whitespace")
    if not 0 <= record["label"] < N_CHOICES:
        raise fail("label", f"must be 0 to {N_CHOICES - 1}, not {record['label']}")
    if record["score_mode"] != "mean_logprob":
        raise fail("score_mode", f"must be 'mean_logprob', not {record['score_mode']!r}")
    for k, tag in enumerate(record["tags"]):
        if not isinstance(tag, str):
            raise fail(f"tags[{k}]", f"must be a string, not {type_name(tag)}")


def match_categories(path: Path, records: list[tuple[int, dict[str, Any]]],
                     table: tuple[Category, ...]) -> dict[str, list[str]]:
    """Each data category → the titles of the table rows it matches (weight and every item Elo)."""
    by_cat: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for line, record in records:
        by_cat.setdefault(record["category"], []).append((line, record))
    matches: dict[str, list[str]] = {}
    for cat, members in by_cat.items():
        first_line, first = members[0]
        weight = first["category_weight"]
        rows = [r for r in table if math.isclose(r.weight, weight)]
        if not rows:
            raise BadInput(located(path, first_line, "category_weight",
                                   f"{weight} matches no Base Bench 1.1 category weight "
                                   f"({', '.join(f'{r.weight:.2f}' for r in table)})"))
        for line, record in members:
            if not math.isclose(record["category_weight"], weight):
                raise BadInput(located(path, line, "category_weight",
                                       f"{record['category_weight']} differs from {weight} on line "
                                       f"{first_line} for category {cat!r}"))
            difficulty, elo = record["difficulty"], record["item_elo"]
            fitting = [r for r in rows if math.isclose(r.item_elo[difficulty], elo)]
            if not fitting:
                expected = sorted({int(r.item_elo[difficulty]) for r in rows})
                raise BadInput(located(path, line, "item_elo",
                                       f"{elo:g} is not the {difficulty} item Elo of a category with weight "
                                       f"{weight} ({', '.join(map(str, expected))})"))
            rows = fitting
        matches[cat] = [r.title for r in rows]
    # Categories sharing a table row signature must not outnumber the rows that carry it.
    by_rows: dict[tuple[str, ...], list[str]] = {}
    for cat, titles in matches.items():
        by_rows.setdefault(tuple(titles), []).append(cat)
    for titles, cats in by_rows.items():
        if len(cats) > len(titles):
            line, record = by_cat[cats[len(titles)]][0]
            raise BadInput(located(path, line, "category",
                                   f"{record['category']!r} is one category too many with weight "
                                   f"{record['category_weight']} (Base Bench 1.1 has {len(titles)}: "
                                   f"{', '.join(titles)}; this file also has {', '.join(map(repr, cats[:len(titles)]))})"))
    return matches
