"""A loglik benchmark's mapped records as items: multiple-choice items (one context, or one per choice) and the
documents of a rolling benchmark.

Apart from the spec's parsing because this is the per-record half: what one record must hold, and how its
answer (an index, a letter or a label) and its id (mapped, else a content hash) are read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from evaluators.specs.records import MappingError, content_id, type_name

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Item:
    """One multiple-choice item: the context, its continuations, the correct one's index."""

    id: str
    context: str
    choices: tuple[str, ...]
    label: int
    line: int
    category: str | None = None
    difficulty: str | None = None
    weight: float | None = None
    item_elo: float | None = None
    contexts: tuple[str, ...] = ()  # per-choice contexts (then `context` is empty): choice k follows contexts[k]

    def context_of(self, k: int) -> str:
        return self.contexts[k] if self.contexts else self.context

    def solved(self, delimiter: str) -> str:
        """The item as a few-shot example: its correct context, the delimiter, its correct choice."""
        return self.context_of(self.label) + delimiter + self.choices[self.label]


@dataclass(frozen=True)
class Document:
    """One document of a rolling (perplexity) benchmark."""

    id: str
    text: str
    line: int
    category: str | None = None


def choice_index(value: Any, n: int, labels: list[str] | None) -> int:
    """The answer's position: a label from `labels`, an index, a digit string or a letter."""
    if labels is not None:
        if str(value) not in labels:
            raise ValueError(f"{value!r} is not one of the choice labels {labels}")
        return labels.index(str(value))
    if isinstance(value, bool):
        raise ValueError(f"must be a choice index, letter or label, not {type_name(value)}")
    if isinstance(value, int):
        index = value
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        index = int(value)
    elif isinstance(value, str) and len(value.strip()) == 1 and value.strip().upper() in LETTERS:
        index = LETTERS.index(value.strip().upper())
    else:
        raise ValueError(f"must be a choice index, letter or label, not {value!r}")
    if not 0 <= index < n:
        raise ValueError(f"must be 0 to {n - 1}, not {index}")
    return index


def _text(fields: dict[str, Any], key: str, required: bool = True) -> str | None:
    value = fields.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise MappingError(key, f"must be a non-empty string, not {type_name(value)}")
    return value


def _strings(fields: dict[str, Any], key: str, what: str) -> tuple[str, ...]:
    values = fields[key]
    if not isinstance(values, (list, tuple)) or len(values) < 2:
        raise MappingError(key, f"must be a list of at least two strings, not {type_name(values)}")
    for k, value in enumerate(values):
        if not isinstance(value, str) or not value:
            raise MappingError(key, f"{what} {k} must be a non-empty string, not {type_name(value)}")
    return tuple(values)


def item_from(fields: dict[str, Any], line: int) -> Item:
    """A mapped record as an item: choices or per-choice contexts, the answer resolved, the id checked."""
    def text(key: str, required: bool = True) -> str | None:
        return _text(fields, key, required)

    def number(key: str) -> float | None:
        value = fields.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise MappingError(key, f"must be a finite number, not {value!r}")
        return float(value)

    contexts: tuple[str, ...] = ()
    if "contexts" in fields:
        contexts = _strings(fields, "contexts", "context")
        choices = (text("continuation"),) * len(contexts)
    else:
        choices = _strings(fields, "choices", "choice")
    labels = fields.get("choice_labels")
    if labels is not None:
        if not isinstance(labels, (list, tuple)) or len(labels) != len(choices):
            raise MappingError("choice_labels", f"must be a list of {len(choices)} labels")
        labels = [str(x) for x in labels]
    try:
        label = choice_index(fields["answer"], len(choices), labels)
    except ValueError as exc:
        raise MappingError("answer", str(exc)) from None
    context = "" if contexts else text("context")
    item_id = _id(fields, [*contexts, choices[0]] if contexts else [context, list(choices)])
    return Item(id=item_id, context=context, choices=tuple(choices), label=label, line=line,
                category=text("category", False), difficulty=text("difficulty", False), weight=number("weight"),
                item_elo=number("item_elo"), contexts=contexts)


def _id(fields: dict[str, Any], content: list[Any]) -> str:
    """The record's mapped id, else a hash of what it asks."""
    item_id = fields.get("id")
    if item_id is None:
        item_id = content_id(*content)
    if isinstance(item_id, bool) or not isinstance(item_id, (str, int)) or not str(item_id).strip():
        raise MappingError("id", f"must be a non-empty string or integer, not {item_id!r}")
    return str(item_id)


def document_from(fields: dict[str, Any], line: int) -> Document:
    """A mapped record as a rolling benchmark's document."""
    text = _text(fields, "text")
    return Document(id=_id(fields, [text]), text=text, line=line, category=_text(fields, "category", False))
