"""Load ModeBench tasks and read saved-response files, with `file:line: field: message` errors.

Tasks come from a frozen split (modebench's verified cache through `modebench.api.load_tasks`) or
from custom records `{id, level, domain, problem, answer}`, built into `modebench.api_types.Task`
directly. Saved responses come either as plain modebench input files (one file = one group) or as
the file `bananabench modes generate` writes, whose records also carry `group` and the raw `draws`.
Everything modebench itself checks (references, unknown fields, prompt hashes) stays with modebench;
this module checks what it needs to split the input into modebench inputs and to store attempts.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from evaluators.core.errors import BadInput, EvaluationFailure, located

CUSTOM_TASK_FIELDS = ("id", "level", "domain", "problem", "answer")
# Fields bananabench adds to a modebench record in a generated responses file.
GENERATED_FIELDS = ("group", "draws")


class VerifierUnavailable(EvaluationFailure):
    """modebench's verifier worker did not answer (e.g. it missed its 5 s start-up deadline on a busy
    machine): infrastructure, not the input; running again (evaluations: with --resume) retries it."""


def domains() -> tuple[str, ...]:
    from modebench.api_types import Domain

    return get_args(Domain)


def _pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in items:
        if key in result:
            raise ValueError(f"duplicate JSON field {key!r}")
        result[key] = value
    return result


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


def parse_line(text: str | bytes) -> Any:
    """Strict JSON (no duplicate keys, no NaN/Infinity), as modebench reads its inputs."""
    return json.loads(text, object_pairs_hook=_pairs, parse_constant=_reject_constant)


def iter_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, bytes, Any]]:
    """(line number, raw bytes, parsed object) for every non-blank line; bad JSON is a located BadInput."""
    path = Path(path)
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise BadInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    with handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                value = parse_line(raw)
            except (ValueError, UnicodeDecodeError) as exc:
                raise BadInput(located(path, number, None, f"invalid JSON: {exc}")) from None
            yield number, raw, value


def normalize_identity(level: Any, domain: Any) -> tuple[int, str]:
    """modebench's own normalization of a level/domain pair (accepts `level1`, `pantry`)."""
    from modebench.contracts import normalize_task_identity

    return normalize_task_identity(level, domain)


# -- tasks --------------------------------------------------------------------------------------


def load_custom_tasks(path: str | os.PathLike) -> list:
    """Custom records → `modebench.api_types.Task`; the answer is a verifier reference (never prompted)."""
    from modebench.api_types import Task

    tasks, seen = [], {}
    for number, _raw, record in iter_jsonl(path):
        if not isinstance(record, dict):
            raise BadInput(located(path, number, None, "each line must be a JSON object"))
        unknown = sorted(set(record) - set(CUSTOM_TASK_FIELDS))
        if unknown:
            raise BadInput(located(path, number, unknown[0],
                                   f"unknown field (a task record has {', '.join(CUSTOM_TASK_FIELDS)})"))
        for name in CUSTOM_TASK_FIELDS:
            if name not in record:
                raise BadInput(located(path, number, name, "missing field"))
        rid = record["id"]
        if isinstance(rid, bool) or not isinstance(rid, (str, int)) or not str(rid).strip():
            raise BadInput(located(path, number, "id", "must be a non-empty string or integer"))
        try:
            level, domain = normalize_identity(record["level"], record["domain"])
        except ValueError as exc:
            name = "level" if "level" in str(exc) else "domain"
            raise BadInput(located(path, number, name, str(exc))) from None
        if not isinstance(record["problem"], str) or not record["problem"].strip():
            raise BadInput(located(path, number, "problem", "must be a non-empty string"))
        if not isinstance(record["answer"], dict):
            raise BadInput(located(path, number, "answer", "must be a JSON object (the verifier reference)"))
        if str(rid) in seen:
            raise BadInput(located(path, number, "id", f"duplicate id {str(rid)!r} (first on line {seen[str(rid)]})"))
        seen[str(rid)] = number
        tasks.append(Task(id=str(rid), level=level, domain=domain, problem=record["problem"],
                          answer=record["answer"]))
    if not tasks:
        raise BadInput(f"{path}: no task records")
    _check_references(path, tasks, seen)
    return tasks


def reference_guide() -> str:
    """What each domain's `answer` must be (verifier names and versions from modebench itself)."""
    from modebench.domains.mathir.verifier import (
        MATHIR_MENU_VERIFIER,
        MATHIR_MENU_VERSION,
        MATHIR_VERIFIER,
        MATHIR_VERSION,
    )
    from modebench.domains.pantry_plan.verifier import PANTRY_PLAN_VERIFIER, PANTRY_PLAN_VERSION
    from modebench.domains.python_factors.verifier import PYTHON_FACTOR_VERIFIER, PYTHON_FACTOR_VERSION

    needs = {
        "countdown": '{"verifier": "countdown", "numbers": [integers], "target": integer}',
        "graph_coloring": '{"verifier": "graph_coloring", "n": vertices, "edges": [[u, v], ...], '
                          'optional "partial_colors": [1-3 or null per vertex]}',
        "mathir": f'{{"verifier": "{MATHIR_VERIFIER}", "mathir_version": "{MATHIR_VERSION}", "initial_lhs", '
                  f'"initial_rhs", "bindings", ...}} or {{"verifier": "{MATHIR_MENU_VERIFIER}", "mathir_version": '
                  f'"{MATHIR_MENU_VERSION}", "actions", ...}}',
        "pantry_plan": f'{{"verifier": "{PANTRY_PLAN_VERIFIER}", "pantry_version": "{PANTRY_PLAN_VERSION}", '
                       '"ingredients": [...], ...}',
        "python_factors": f'{{"verifier": "{PYTHON_FACTOR_VERIFIER}", "python_version": "{PYTHON_FACTOR_VERSION}", '
                          '"cases": [integers]}',
    }
    parts = [f"{domain} {needs.get(domain, '(see the walkthrough)')}" for domain in domains()]
    return ("the domains and the verifier reference each needs: " + "; ".join(parts)
            + "; `modebench walkthrough DIR` writes a complete record of every domain")


def _check_references(path: str | os.PathLike, tasks: list, lines: dict[str, int]) -> None:
    """modebench's own reference check, before any model time is spent (it would reject them at grading)."""
    from modebench.validation import InputError, validate_reference
    from modebench.verifier import VerifierExecutionError, close_worker

    try:
        for task in tasks:
            try:
                validate_reference(task.level, task.domain, task.answer)
            except InputError as exc:
                raise BadInput(located(path, lines[task.id], "answer",
                                       f"{exc}; {reference_guide()}")) from None
            except VerifierExecutionError as exc:
                raise VerifierUnavailable(f"modebench could not check the references of {path}: {exc}") from None
    finally:
        close_worker()


def load_frozen_tasks(configs: list[str], split: str = "eval", *, data_root: str | None = None,
                      cache_dir: str | None = None, offline: bool = False) -> list:
    """Authenticated tasks of frozen configurations (modebench verifies every byte it reads)."""
    from modebench.api import InputError, load_tasks

    tasks = []
    for config in configs:
        try:
            tasks.extend(load_tasks(config, split, data_root=data_root, cache_dir=cache_dir, offline=offline))
        except (InputError, OSError) as exc:
            raise BadInput(f"frozen configuration {config}/{split}: {exc}") from None
    return tasks


@functools.cache
def frozen_split_record(config: str, split: str) -> dict[str, Any]:
    """The packaged registry entry of a frozen split (level, domain, rows, parquet SHA-256)."""
    from modebench.api import InputError
    from modebench.dataset_cache import discover

    try:
        (record,) = discover(config, split)
    except InputError as exc:
        raise BadInput(f"--config {config}: {exc}") from None
    return record


@dataclass
class TaskSource:
    """Where `generate` takes its tasks from: frozen configurations or a custom records file."""

    configs: list[str] | None = None
    input: str | os.PathLike | None = None
    split: str = "eval"
    data_root: str | os.PathLike | None = None
    cache_dir: str | os.PathLike | None = None
    offline: bool = False
    limit: int | None = None

    def load(self) -> list:
        if bool(self.configs) == bool(self.input):
            raise BadInput("give either --config (frozen splits) or --input (custom task records)")
        if self.configs:
            tasks = load_frozen_tasks(list(self.configs), self.split, data_root=self.data_root,
                                      cache_dir=self.cache_dir, offline=self.offline)
        else:
            tasks = load_custom_tasks(self.input)
        return tasks[: self.limit] if self.limit else tasks

    def describe(self) -> dict[str, Any]:
        """Identity for the default output name and the journal header (paths do not count)."""
        if self.configs:
            return {"configs": list(self.configs), "split": self.split, "limit": self.limit}
        from evaluators.runs.runs import sha256_file

        return {"input_sha256": sha256_file(self.input), "limit": self.limit}


# -- saved responses ----------------------------------------------------------------------------


@dataclass
class PromptGroup:
    """One prompt's k responses in one group: what one modebench input record holds."""

    id: str
    group: int
    path: Path
    line: int
    record: dict[str, Any]  # the modebench record (bananabench-only fields removed)
    raw_line: bytes | None  # the original bytes, when the record is a plain modebench record
    draws: list[dict[str, Any]] | None = None  # raw generation of each response, in draw order
    level: int | None = None
    domain: str | None = None
    config: str | None = None

    @property
    def k(self) -> int:
        return len(self.record["responses"])


@dataclass
class ResponseSet:
    """Every prompt-group of an evaluation, by group (1..G), in input order."""

    files: list[Path]
    generated: bool  # read from a `bananabench modes generate` file
    groups: dict[int, list[PromptGroup]] = field(default_factory=dict)

    @property
    def n_groups(self) -> int:
        return len(self.groups)

    @property
    def prompt_ids(self) -> list[str]:
        return [p.id for p in self.groups[min(self.groups)]]


def _check_record(path: Path, number: int, record: Any, generated: bool) -> None:
    if not isinstance(record, dict):
        raise BadInput(located(path, number, None, "each line must be a JSON object"))
    if "id" not in record:
        raise BadInput(located(path, number, "id", "missing field"))
    rid = record["id"]
    if isinstance(rid, bool) or not isinstance(rid, (str, int)) or not str(rid).strip():
        raise BadInput(located(path, number, "id", "must be a non-empty string or integer"))
    responses = record.get("responses")
    if not isinstance(responses, list) or not responses or not all(isinstance(r, str) for r in responses):
        raise BadInput(located(path, number, "responses",
                               "must be a non-empty list of strings (failed draws stay in the list)"))
    if generated:
        group = record.get("group")
        if isinstance(group, bool) or not isinstance(group, int) or group < 1:
            raise BadInput(located(path, number, "group", "must be a positive integer"))
        draws = record.get("draws")
        if draws is not None and (not isinstance(draws, list) or len(draws) != len(responses)
                                  or not all(isinstance(d, dict) for d in draws)):
            raise BadInput(located(path, number, "draws", "must be a list of objects, one per response"))


def read_responses(paths: list[str | os.PathLike], *, configs: list[str] | None = None,
                   split: str = "eval") -> ResponseSet:
    """Read and cross-check saved responses; several plain files are several groups.

    Checks: one generated file, or any number of plain modebench files (never mixed); every group
    holds the same prompts with the same number of responses; prompt ids are unique (they become
    the store's item ids); with frozen configurations every id belongs to one of them.
    """
    files = [Path(p) for p in paths]
    if not files:
        raise BadInput("no input files")
    parsed: list[tuple[Path, list[tuple[int, bytes, dict]]]] = []
    for path in files:
        lines = list(iter_jsonl(path))
        if not lines:
            raise BadInput(f"{path}: no records")
        parsed.append((path, lines))
    generated_flags = {isinstance(obj, dict) and "group" in obj for _path, lines in parsed for _n, _b, obj in lines}
    generated = True in generated_flags
    if generated and (len(files) > 1 or generated_flags != {True}):
        where = next((f"{p}:{n}" for p, lines in parsed for n, _b, obj in lines
                      if not (isinstance(obj, dict) and "group" in obj)), str(files[1]) if len(files) > 1 else "")
        raise BadInput(f"{where}: a generated responses file (records with `group`) must be the only input, "
                       "and every record in it needs `group`")
    prefixes = {f"{c}/{split}/": c for c in (configs or [])}
    result = ResponseSet(files=files, generated=generated)
    first_line: dict[tuple[int, str], tuple[Path, int]] = {}
    for index, (path, lines) in enumerate(parsed, 1):
        for number, raw, record in lines:
            _check_record(path, number, record, generated)
            rid = str(record["id"])
            group = record["group"] if generated else index
            if (group, rid) in first_line:
                other = first_line[(group, rid)]
                raise BadInput(located(path, number, "id", f"duplicate prompt {rid!r} in group {group} "
                                       f"(first at {other[0]}:{other[1]}); prompt ids must be unique"))
            first_line[(group, rid)] = (path, number)
            prompt = PromptGroup(
                id=rid, group=group, path=path, line=number,
                record={k: v for k, v in record.items() if k not in GENERATED_FIELDS} if generated else record,
                raw_line=None if generated else raw,
                draws=record.get("draws") if generated else None,
            )
            if prefixes:
                prompt.config = next((c for p, c in prefixes.items() if rid.startswith(p)), None)
                if prompt.config is None:
                    raise BadInput(located(path, number, "id", f"{rid!r} is not a prompt of "
                                           + ", ".join(f"{c}/{split}" for c in prefixes.values())))
                registry = frozen_split_record(prompt.config, split)
                prompt.level, prompt.domain = registry["level"], registry["domain"]
            else:
                try:
                    prompt.level, prompt.domain = normalize_identity(record.get("level"), record.get("domain"))
                except ValueError as exc:
                    name = "level" if "level" in str(exc) else "domain"
                    raise BadInput(located(path, number, name, str(exc))) from None
            result.groups.setdefault(group, []).append(prompt)
    _check_groups(result)
    return result


def _check_groups(result: ResponseSet) -> None:
    numbers = sorted(result.groups)
    if numbers != list(range(1, len(numbers) + 1)):
        raise BadInput(f"{result.files[0]}: groups must be numbered 1..G without gaps, found {numbers}")
    reference = {p.id: p for p in result.groups[1]}
    for number in numbers[1:]:
        here = {p.id: p for p in result.groups[number]}
        for rid, prompt in here.items():
            first = reference.get(rid)
            if first is None:
                raise BadInput(located(prompt.path, prompt.line, "id",
                                       f"prompt {rid!r} of group {number} is missing from group 1"))
            if prompt.k != first.k:
                raise BadInput(located(prompt.path, prompt.line, "responses",
                                       f"{prompt.k} responses in group {number} but {first.k} in group 1 "
                                       "(every group needs the same draws per prompt)"))
        missing = [rid for rid in reference if rid not in here]
        if missing:
            first = reference[missing[0]]
            raise BadInput(located(first.path, first.line, "id",
                                   f"prompt {missing[0]!r} has no responses in group {number}"))
