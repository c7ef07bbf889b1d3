"""Attempt limits (stuck monitor, workspace size): defaults, a `bench.toml`-style file, per-task `[agent]` overrides, CLI flags.

Precedence, lowest first: built-in defaults → `[limits]` of the config file → the task's
`[agent]` section → `--timeout-s/--idle-s/--max-tool-calls` on the command line (the user's
explicit choice for this run wins over what a task author expected).
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput, located


@dataclass(frozen=True)
class Limits:
    """When the monitor stops an attempt (see `monitor.StuckMonitor`)."""

    timeout_s: float = 1800.0          # wall clock of the agent phase
    idle_s: float = 300.0              # no Pi event and no model traffic
    max_tool_calls: int = 300          # tool calls in one attempt
    repeat_call: int = 8               # the same tool call (name + arguments) in a row
    cycle_repeats: int = 4             # a cycle of 2..4 calls repeated this often
    repeat_message: int = 5            # the same assistant message in a row
    max_chunks: int = 32000            # streamed chunks in one model response (runaway generation)
    workspace_mb: int = 2048           # size of the workspace file system (the verification stage gets twice)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


LIMIT_KEYS = tuple(f.name for f in fields(Limits))
_TYPES = {f.name: (int if f.type in ("int", int) else float) for f in fields(Limits)}


def coerce(values: dict[str, Any], where: str) -> dict[str, Any]:
    """Validate a mapping of limit overrides; unknown keys and non-positive numbers are errors."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key not in _TYPES:
            raise BadInput(located(where, None, key, f"unknown limit (known: {', '.join(LIMIT_KEYS)})"))
        kind = _TYPES[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise BadInput(located(where, None, key, f"must be a positive number, not {value!r}"))
        if kind is int and value != int(value):
            raise BadInput(located(where, None, key, f"must be a whole number, not {value!r}"))
        out[key] = kind(value)
    return out


def merged(base: Limits, *overrides: dict[str, Any]) -> Limits:
    """`base` with each override mapping applied in order (None values are skipped)."""
    result = base
    for override in overrides:
        result = replace(result, **{k: v for k, v in override.items() if v is not None})
    return result


@dataclass(frozen=True)
class BenchConfig:
    """The runner's configuration file: `[limits]` and `[pi.settings]` (merged into Pi's settings.json)."""

    limits: Limits = Limits()
    pi_settings: dict[str, Any] | None = None
    source: str | None = None


def load_config(path: str | Path | None) -> BenchConfig:
    """Read a `bench.toml`; None means the built-in defaults."""
    if path is None:
        return BenchConfig()
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(f"{path}: config file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{path}: {exc}") from None
    unknown = set(data) - {"limits", "pi"}
    if unknown:
        raise BadInput(located(path, None, sorted(unknown)[0], "unknown section (known: limits, pi)"))
    limits = merged(Limits(), coerce(data.get("limits", {}), str(path)))
    pi = data.get("pi", {})
    settings = pi.get("settings") if isinstance(pi, dict) else None
    if settings is not None and not isinstance(settings, dict):
        raise BadInput(located(path, None, "pi.settings", "must be a table"))
    return BenchConfig(limits=limits, pi_settings=settings, source=str(path))
