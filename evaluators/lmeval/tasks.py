"""Which lm-eval tasks a run asks for, found offline: the user's `--include_path` first, lm-eval's catalogue after.

Indexing lm-eval's catalogue (thousands of YAML files) costs seconds, so it is read only when a requested
name is not in `--include_path`. A task file of `--include_path` may name its local data relative to
itself (`dataset_kwargs.data_files`, `data_dir`): such a task is handed to lm-eval as its loaded
configuration with those paths made absolute, so it runs from any working directory.
"""

from __future__ import annotations

import difflib
import hashlib
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput


def task_manager(names: list[str], include_path: str | None) -> Any:
    """lm-eval's TaskManager that knows every name in `names` (BadInput naming the unknown ones)."""
    from lm_eval.tasks import TaskManager

    if include_path is not None and not Path(include_path).is_dir():
        raise BadInput(f"--include_path {include_path}: not a directory")
    manager = TaskManager(include_path=include_path, include_defaults=False) if include_path else None
    if manager is None or any(_unknown(manager, n) for n in names):
        manager = TaskManager(include_path=include_path)
    unknown = [n for n in names if _unknown(manager, n)]
    if unknown:
        hints = {n: difflib.get_close_matches(n, manager.all_tasks, n=3) for n in unknown}
        said = "; ".join(f"{n}" + (f" (did you mean {', '.join(h)}?)" if h else "") for n, h in hints.items())
        raise BadInput(f"--tasks: no lm-eval task, group or tag named {said}")
    return manager


def _unknown(manager: Any, name: str) -> bool:
    return name not in manager.all_tasks and not Path(name).is_file()


def task_specs(manager: Any, names: list[str], include_path: str | None) -> list[str | dict[str, Any]]:
    """What to hand lm-eval: a name, or (a task file of --include_path) its configuration with local paths
    made absolute."""
    from lm_eval.tasks._yaml_loader import load_yaml

    root = Path(include_path).resolve() if include_path else None
    specs: list[str | dict[str, Any]] = []
    for name in names:
        entry = manager.task_index.get(name)
        path = Path(entry.yaml_path).resolve() if entry is not None and entry.yaml_path else None
        if root is None or path is None or root not in path.parents or "task" not in (entry.cfg or {}):
            specs.append(name)
            continue
        config = load_yaml(path, resolve_func=True)
        kwargs = config.get("dataset_kwargs")
        if isinstance(kwargs, dict):
            config["dataset_kwargs"] = {**kwargs, **_absolute(kwargs, path.parent)}
        specs.append(config)
    return specs


def _absolute(kwargs: dict[str, Any], base: Path) -> dict[str, Any]:
    def fix(value: Any) -> Any:
        if isinstance(value, str) and "://" not in value and not Path(value).is_absolute():
            return str(base / value)
        if isinstance(value, list):
            return [fix(v) for v in value]
        if isinstance(value, dict):
            return {k: fix(v) for k, v in value.items()}
        return value

    return {key: fix(kwargs[key]) for key in ("data_files", "data_dir") if key in kwargs}


def task_files_sha256(include_path: str | None) -> str | None:
    """One hash over the task files and local data under --include_path (part of the resume check)."""
    if not include_path:
        return None
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(include_path).rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(include_path)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
