"""Cell and overall scores of a ModeBench evaluation with one or more groups of k draws per prompt.

With one group the cell numbers are modebench's receipt, copied as they are. With several groups,
modebench grades each group as its own input (its receipts say `groups_per_prompt: 1`), and the
groups are combined the way the ModeBench grid does: per prompt the mean over groups of accuracy,
pass@k and distinct@k, then the mean over prompts; PCMD pools a prompt's groups (modebench's
`POOLED` aggregation, the one its receipts use) and is summarised by modebench's own `cell_summary`.
The overall numbers weight cells equally ("averaged over groups within prompts, then prompts,
then domains"); that is only meaningful when every cell has the same k, so otherwise there is none.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluators.core.contract import Metric, ScoreKey
from evaluators.store.records import ScoreRow

CELL_METRICS = (Metric.ACCURACY, Metric.PASS_AT_K, Metric.DISTINCT_AT_K)  # also the `Cell` fields
PCMD_FIELDS = ("aggregation", "defined_prompts", "prompts", "support", "min_defined_prompts", "reportable",
               "standard_error", "rarefied_distinct_at_2", "effective_modes", "reason")
WEIGHTING = "groups equally within a prompt, prompts equally within a cell, cells equally overall"


@dataclass
class Cell:
    """One model × level × domain × k cell (a frozen configuration when graded against one)."""

    level: int
    domain: str
    k: int
    config: str | None
    groups: int
    accuracy: float | None
    pass_at_k: float | None
    distinct_at_k: float | None
    pcmd: dict[str, Any]
    protocol_notes: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return cell_key(self.config, self.level, self.domain, self.k)

    @property
    def prompts(self) -> int | None:
        return self.pcmd.get("prompts")

    @property
    def reportable(self) -> bool:
        return bool(self.pcmd.get("reportable"))


def cell_key(config: str | None, level: int, domain: str, k: int) -> str:
    """`level1_countdown/k8`: the configuration name (or its custom equivalent) and the draws per group."""
    return f"{config or f'level{level}_{domain}'}/k{k}"


def from_receipt(cell: dict[str, Any], config: str | None) -> Cell:
    """A receipt cell, values untouched (one group: modebench's numbers are the numbers)."""
    return Cell(level=cell["level"], domain=cell["domain"], k=cell["k"], config=config, groups=1,
                accuracy=cell["accuracy"], pass_at_k=cell["pass_at_k"], distinct_at_k=cell["distinct_at_k"],
                pcmd=dict(cell["pcmd"]), protocol_notes=list(cell.get("protocol_notes", [])))


def combine_groups(per_prompt: Sequence[Sequence[dict[str, Any]]], *, level: int, domain: str, k: int,
                   config: str | None, min_defined_prompts: int,
                   protocol_notes: Sequence[str] = ()) -> Cell:
    """One cell from modebench prompt results: `per_prompt[i]` holds prompt i's result in each group."""
    from modebench.metrics import POOLED, cell_summary

    groups = {len(results) for results in per_prompt}
    if len(groups) != 1:
        raise ValueError(f"every prompt needs the same number of groups, got {sorted(groups)}")
    values = {
        name: statistics.fmean(statistics.fmean(r[name] for r in results) for results in per_prompt)
        for name in CELL_METRICS
    }
    pooled = [{"draws": [draw for r in results for draw in r["draws"]]} for results in per_prompt]
    pcmd = cell_summary(pooled, POOLED, min_defined_prompts=min_defined_prompts)
    return Cell(level=level, domain=domain, k=k, config=config, groups=groups.pop(), pcmd=pcmd,
                protocol_notes=list(protocol_notes), **values)


def failed_cell(level: int, domain: str, k: int, config: str | None, groups: int,
                protocol_notes: Sequence[str] = ()) -> Cell:
    """A cell of a failed evaluation: no numbers, and PCMD explicitly not reportable."""
    return Cell(level=level, domain=domain, k=k, config=config, groups=groups, accuracy=None, pass_at_k=None,
                distinct_at_k=None, pcmd={"d_mode": None, "reportable": False, "reason": "verifier_failure"},
                protocol_notes=list(protocol_notes))


def _cell_extra(cell: Cell) -> dict[str, Any]:
    return {"level": cell.level, "domain": cell.domain, "k": cell.k, "config": cell.config,
            "groups": cell.groups, ScoreKey.REPORTABLE: cell.reportable, "protocol_notes": cell.protocol_notes,
            "weighting": WEIGHTING}


def score_rows(cells: Sequence[Cell]) -> list[dict[str, Any]]:
    """Store rows: per cell accuracy, pass_at_k, distinct_at_k and pcmd, plus the overall means.

    `extra.reportable` (the cell's PCMD flag) rides on every row so that no display can show a
    cell's numbers without it; the pcmd row also carries its support and standard error.
    """
    rows: list[dict[str, Any]] = []
    for cell in cells:
        base = _cell_extra(cell)
        for name in CELL_METRICS:
            rows.append(ScoreRow(scope="cell", key=cell.key, metric=name, value=getattr(cell, name),
                                 n=cell.prompts, extra=base))
        pcmd_extra = {**base, **{f: cell.pcmd.get(f) for f in PCMD_FIELDS if f in cell.pcmd}}
        pcmd_extra[ScoreKey.REPORTABLE] = cell.reportable
        rows.append(ScoreRow(scope="cell", key=cell.key, metric=Metric.PCMD, value=cell.pcmd.get("d_mode"),
                             n=cell.pcmd.get("defined_prompts"), extra=pcmd_extra))
    rows.extend(overall_rows(cells))
    return rows


def overall_rows(cells: Sequence[Cell]) -> list[dict[str, Any]]:
    """Means over cells; none when the cells differ in k (pass@4 and pass@8 do not average)."""
    ks = {c.k for c in cells}
    if not cells or len(ks) != 1 or any(c.pass_at_k is None for c in cells):
        return []
    prompts = sum(c.prompts or 0 for c in cells)
    extra = {"k": ks.pop(), "cells": [c.key for c in cells], "weighting": WEIGHTING,
             ScoreKey.REPORTABLE: all(c.reportable for c in cells)}
    rows = [ScoreRow(scope="overall", key="", metric=name, n=prompts, extra=extra,
                     value=statistics.fmean(getattr(c, name) for c in cells)) for name in CELL_METRICS]
    defined = [c for c in cells if c.pcmd.get("d_mode") is not None]
    if defined:
        rows.append(ScoreRow(scope="overall", key="", metric=Metric.PCMD, n=len(defined),
                             value=statistics.fmean(c.pcmd["d_mode"] for c in defined),
                             extra={**extra, "cells": [c.key for c in defined],
                                    "defined_prompts": sum(c.pcmd.get("defined_prompts") or 0 for c in defined)}))
    return rows
