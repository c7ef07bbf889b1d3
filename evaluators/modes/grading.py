"""Grade saved responses with `modebench.api.evaluate_file`: one modebench input per group and configuration.

modebench grades one group of k draws per prompt and binds a frozen evaluation to one configuration,
so an evaluation is split into units (group × configuration), each graded by its own `evaluate_file`
call with its own durable checkpoint. Units live in a staging folder named after the inputs and
options, so a killed evaluation continues with `--resume`, and nothing reaches the store before every
unit is graded: bad input (exit 2) leaves no run behind. modebench's messages name the line of the
unit file; they are translated back to the user's file and line.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.core import atomic
from evaluators.core.errors import BadInput, EvaluationFailure, located
from evaluators.modes.datasets import PromptGroup, ResponseSet, VerifierUnavailable

log = logging.getLogger("bananabench")

RECEIPT = "receipt.json"
UNIT_INPUT = "input.jsonl"
_LINE = re.compile(r"^line (\d+)(?:, )?")


@dataclass
class Unit:
    """One `evaluate_file` call: one group of one frozen configuration (or of the custom input)."""

    group: int
    config: str | None
    prompts: list[PromptGroup]
    receipt: dict[str, Any] | None = None
    results: list[dict[str, Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.config}.group-{self.group}" if self.config else f"group-{self.group}"

    @property
    def status(self) -> str | None:
        return self.receipt["evaluation"]["status"] if self.receipt else None


def plan_units(responses: ResponseSet) -> list[Unit]:
    units = []
    for group in sorted(responses.groups):
        by_config: dict[str | None, list[PromptGroup]] = {}
        for prompt in responses.groups[group]:
            by_config.setdefault(prompt.config, []).append(prompt)
        units.extend(Unit(group=group, config=config, prompts=prompts) for config, prompts in by_config.items())
    return units


def _unit_bytes(unit: Unit) -> bytes:
    """The unit's modebench input: plain records byte for byte, generated ones re-serialised."""
    lines = []
    for prompt in unit.prompts:
        if prompt.raw_line is not None:
            lines.append(prompt.raw_line if prompt.raw_line.endswith(b"\n") else prompt.raw_line + b"\n")
        else:
            lines.append(json.dumps(prompt.record, ensure_ascii=False, allow_nan=False).encode() + b"\n")
    return b"".join(lines)


def _translate(message: str, unit: Unit) -> str:
    """`line 3, prompt 'x': ...` of a unit file → `INPUT.jsonl:7: prompt 'x': ...` of the user's file."""
    match = _LINE.match(message)
    if match:
        number = int(match.group(1))
        if 1 <= number <= len(unit.prompts):
            prompt = unit.prompts[number - 1]
            return located(prompt.path, prompt.line, None, message[match.end():])
    first = unit.prompts[0]
    return f"{first.path}: {message}"


def evaluate_units(units: list[Unit], staging: Path, *, options: dict[str, Any], data_roots: dict[str, Path],
                   workers: int, resume: bool, progress: Callable[[int], None] | None = None) -> None:
    """Grade every unit (continuing interrupted ones under `resume`) and load receipts and results."""
    created = not staging.exists()
    if not created and not resume:
        raise BadInput(f"an interrupted evaluation of these inputs is in {staging}; "
                       "pass --resume to continue it (or delete that folder to start over)")
    staging.mkdir(parents=True, exist_ok=True)
    try:
        for unit in units:
            _evaluate_unit(unit, staging / unit.name, options=options, data_root=data_roots.get(unit.config or ""),
                           workers=workers, resume=resume, progress=progress)
    except BadInput:
        if created:
            shutil.rmtree(staging, ignore_errors=True)
        raise
    for unit in units:
        load_unit(unit, staging / unit.name)


def _evaluate_unit(unit: Unit, directory: Path, *, options: dict[str, Any], data_root: Path | None, workers: int,
                   resume: bool, progress: Callable[[int], None] | None) -> None:
    from modebench.api import EvaluationOptions, InputError, VerifierExecutionError, evaluate_file

    receipt = directory / RECEIPT
    if receipt.exists():
        if progress:
            progress(len(unit.prompts))
        return
    work = directory / (RECEIPT + ".work")
    continuing = work.exists()
    if continuing and not resume:
        raise BadInput(f"{work}: an interrupted modebench evaluation; pass --resume to continue it")
    directory.mkdir(parents=True, exist_ok=True)
    source = directory / UNIT_INPUT
    if not source.exists():
        atomic.write_bytes(source, _unit_bytes(unit))
    opts = EvaluationOptions(config=unit.config, data_root=data_root, **options)
    seen = 0

    def on_progress(event: dict[str, Any]) -> None:
        nonlocal seen
        if progress and event["phase"] in ("grading", "complete"):
            done = event["completed_prompts"]
            if done > seen:
                progress(done - seen)
                seen = done

    try:
        evaluate_file(source, receipt, options=opts, resume=continuing, workers=workers, progress=on_progress)
    except VerifierExecutionError as exc:
        raise VerifierUnavailable(f"modebench could not run its verifier ({unit.name}): {_translate(str(exc), unit)}; "
                                  "fix the evaluation environment or reference and evaluate again") from None
    except InputError as exc:
        if "resume identity mismatch" in str(exc) or "checkpoint" in str(exc):
            raise BadInput(f"{work}: {exc}") from None
        raise BadInput(_translate(str(exc), unit)) from None


def load_unit(unit: Unit, directory: Path) -> None:
    """Read a unit's receipt (modebench verifies its journal hash) and its per-prompt results."""
    from modebench.api import InputError, iter_results, read_report

    receipt = directory / RECEIPT
    try:
        read_report(receipt)
        unit.receipt = json.loads(receipt.read_text(encoding="utf-8"))
        unit.results = list(iter_results(receipt))
    except (InputError, OSError, ValueError) as exc:
        raise EvaluationFailure(f"{receipt}: unreadable modebench receipt: {exc}") from None
    if [r["id"] for r in unit.results] != [p.id for p in unit.prompts]:
        raise EvaluationFailure(f"{receipt}: its results do not match the prompts of {unit.name}")


def move_staging(staging: Path, target: Path) -> Path:
    """Put the graded units into the run's folder (relative journal paths inside stay valid)."""
    if staging == target:
        return target
    if target.exists():
        if staging.exists():
            log.warning("using the graded units already in %s; leaving %s alone", target, staging)
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(staging, target)
    with contextlib.suppress(OSError):
        staging.parent.rmdir()
    return target
