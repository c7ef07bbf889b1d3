"""A benchmark's records: read from jsonl/json/parquet with their line numbers, mapped by the spec's
`[record]` expressions into item fields, and selected by its `[select]` rule.

A `[record]` value is a Jinja expression over the record's fields (`question`, `choices.text`,
`category_weight * difficulty_weight`, `answer | regex('#### (.+)$')`), or a template when it holds
`{{`/`{%` (`"Q: {{ question }}\\nA:"`). The whole record is also `record` (for field names that are not
identifiers), `content_id(...)` is a short content hash for ids, and the sandboxed environment lets a
spec read its records and nothing else. A field a record lacks is an error naming the data file and
line, the item field and the spec line, never a silent empty string.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from evaluators.core.errors import BadInput, located
from evaluators.specs.spec import BenchmarkSpec, SelectSpec

T = TypeVar("T")
SUFFIXES = {".jsonl": "jsonl", ".json": "json", ".parquet": "parquet"}


def data_format(path: Path, declared: str | None = None) -> str:
    if declared:
        return declared
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise BadInput(f"{path}: cannot tell the data format from the suffix (use .jsonl, .json or .parquet, or "
                       "set format in the spec's [data])")
    return fmt


def read_records(path: Path, fmt: str | None = None) -> list[tuple[int, dict[str, Any]]]:
    """(line number — the row for parquet, the position for a JSON list —, record) for every record."""
    fmt = data_format(path, fmt)
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            rows = pq.read_table(path).to_pylist()
        except (OSError, pa.ArrowInvalid) as exc:
            raise BadInput(f"{path}: not a readable parquet file ({exc})") from None
        return list(enumerate(rows, start=1))
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BadInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    if fmt == "json":
        try:
            data = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BadInput(located(path, getattr(exc, "lineno", None), None, f"invalid JSON ({exc})")) from None
        if isinstance(data, dict) and isinstance(data.get("data"), list):
            data = data["data"]
        if not isinstance(data, list):
            raise BadInput(f"{path}: expected a JSON list of records (or an object with a \"data\" list)")
        records = list(enumerate(data, start=1))
    else:
        records = []
        for number, line in enumerate(raw.split(b"\n"), start=1):
            try:
                text = line.decode("utf-8").rstrip("\r")
            except UnicodeDecodeError as exc:
                raise BadInput(located(path, number, None, f"not valid UTF-8 (byte {exc.start + 1} of the line)")) \
                    from None
            if not text.strip():
                continue
            try:
                records.append((number, json.loads(text)))
            except json.JSONDecodeError as exc:
                raise BadInput(located(path, number, None, f"invalid JSON ({exc.msg} at column {exc.colno})")) \
                    from None
    for number, record in records:
        if not isinstance(record, dict):
            raise BadInput(located(path, number, None, f"a record must be a JSON object, not {type_name(record)}"))
    return records


def type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "an object", type(None): "null"}.get(type(value), type(value).__name__)


def content_id(*values: Any) -> str:
    """A short hash of what an item asks (for ids of records that have none)."""
    value = values[0] if len(values) == 1 else list(values)
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:12]


def _regex(value: Any, pattern: str) -> str:
    """The first match of `pattern` in `value`: its first group, or the whole match."""
    found = re.search(pattern, str(value))
    if found is None:
        raise ValueError(f"{pattern!r} does not match {str(value)[:60]!r}")
    return found.group(1) if found.groups() else found.group(0)


class MappingError(Exception):
    """A record the spec cannot map: `field` is the item field, `message` says why."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class RecordMapper:
    """The spec's `[record]` expressions, compiled once; `map(record)` gives the item fields."""

    def __init__(self, spec: BenchmarkSpec):
        import jinja2
        from jinja2.sandbox import SandboxedEnvironment

        self.spec = spec
        env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)
        self._undefined = jinja2.Undefined
        env.filters["regex"] = _regex
        env.globals["content_id"] = self._content_id
        self._errors = (jinja2.UndefinedError, jinja2.exceptions.SecurityError, TypeError, ValueError, KeyError,
                        IndexError, ArithmeticError, AttributeError)
        self._compiled: dict[str, Callable[[dict[str, Any]], Any]] = {}
        for key, source in spec.record.items():
            try:
                if "{{" in source or "{%" in source:
                    self._compiled[key] = env.from_string(source).render
                else:
                    self._compiled[key] = env.compile_expression(source, undefined_to_none=False)
            except jinja2.TemplateSyntaxError as exc:
                raise BadInput(located(spec.file, spec.locator.line(("record", key)), f"record.{key}",
                                       f"not a valid expression or template: {exc.message}")) from None

    def _content_id(self, *values: Any) -> str:
        for value in values:
            if isinstance(value, self._undefined):
                value._fail_with_undefined_error()  # a missing field is that error, not a hash of nothing
        return content_id(*values)

    def map(self, record: dict[str, Any]) -> dict[str, Any]:
        out = {}
        scope = {**record, "record": record}
        for key, fn in self._compiled.items():
            try:
                value = fn(scope)
            except self._errors as exc:
                raise MappingError(key, _describe(exc)) from None
            if isinstance(value, self._undefined):
                raise MappingError(key, f"the record has no such field ({self.spec.record[key]})")
            out[key] = value
        return out

    def error(self, path: Path, line: int | None, err: MappingError) -> BadInput:
        """The BadInput for a record that failed: data file and line, item field, the spec's expression and line."""
        expression = self.spec.record.get(err.field)
        mapped = f"record.{err.field} = {expression!r}" if expression else f"record.{err.field}"
        return BadInput(located(path, line, err.field,
                                f"{err.message} ({mapped} at {self.spec.where('record', err.field)})"))


def _describe(exc: Exception) -> str:
    if type(exc).__name__ == "UndefinedError":
        return f"the record has no such field ({exc})"
    return str(exc) or type(exc).__name__


def select(items: Sequence[T], rule: SelectSpec, category: Callable[[T], str | None]) -> list[T]:
    """The items the rule keeps (in file order; per category: grouped by category)."""
    if rule.first is not None:
        return list(items[:rule.first])
    if rule.per_category is not None:  # grouped by category, categories in order of first appearance
        groups: dict[str | None, list[T]] = {}
        for item in items:
            group = groups.setdefault(category(item), [])
            if len(group) < rule.per_category:
                group.append(item)
        return [item for group in groups.values() for item in group]
    if rule.sample is not None and len(items) > rule.sample:
        chosen = sorted(random.Random(rule.seed).sample(range(len(items)), rule.sample))
        return [items[i] for i in chosen]
    return list(items)
