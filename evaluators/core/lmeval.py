"""lm-eval's output folder, read: a file format shared by the evaluators that import lm-eval runs.

`lm_eval run ... --output_path DIR --log_samples` writes, under DIR (per model), `results_<date>.json`
(every task's configuration, including its `output_type`, and the aggregated metrics) and one
`samples_<task>_<date>.jsonl` per task (a line per document: `doc`, `target`, `arguments`, `resps`,
`filtered_resps`, and lm-eval's per-document metrics). `read_folder` groups the sample files by task
and says what kind each task is: `generate_until` runs belong to `chat import-lm-eval`,
`multiple_choice` (per-choice log-likelihoods) to `loglik import-lm-eval`.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput, located

log = logging.getLogger("bananabench")

GENERATIVE = "generate_until"
MULTIPLE_CHOICE = "multiple_choice"
_SECRET_ARG = re.compile(r"((?:api_?key|token|secret|password)\s*=)[^,]*", re.I)
_SECRET_KEY = re.compile(r"api_?key|token|secret|password", re.I)


@dataclass
class Task:
    """One lm-eval task of the folder: its sample files, kind and configuration (empty if unknown)."""

    name: str
    sample_files: list[Path]
    output_type: str | None
    config: dict[str, Any] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)


@dataclass
class ImportResult:
    """What importing one task did: its run, whether it was new, the run's summary."""

    task: str
    run_id: str
    status: str  # "imported" or "unchanged" (the same import finished before)
    summary: dict[str, Any]
    duplicates: int = 0  # documents lm-eval sampled more than once (counted once)


@dataclass
class Folder:
    root: Path
    info: dict[str, Any]  # results file, lm-eval version, date, model, model_args (secrets redacted), ...
    tasks: dict[str, Task]

    def of_kind(self, output_type: str) -> list[Task]:
        return [t for t in self.tasks.values() if t.output_type == output_type]


def sample_task_name(path: Path) -> str:
    """`samples_<task>_<date>.jsonl` -> task (task names may hold underscores; dates do not)."""
    stem = path.stem.removeprefix("samples_")
    return stem.rsplit("_", 1)[0] if "_" in stem else stem


def read_samples(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, sample) for every non-empty line; BadInput naming the file and line otherwise."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BadInput(located(path, n, None, f"invalid JSON: {exc.msg}")) from None
            if not isinstance(obj, dict) or "doc_id" not in obj:
                raise BadInput(located(path, n, "doc_id", "expected an lm-eval sample with a doc_id"))
            out.append((n, obj))
    return out


def read_folder(directory: str | Path, *, stamp: str | None = None) -> Folder:
    """The tasks of an lm-eval output folder (searched recursively), each with its kind; with `stamp` (lm-eval's
    date id of one run) only that run's files."""
    root = Path(directory)
    if not root.is_dir():
        raise BadInput(f"{root}: not a directory")
    suffix = f"_{stamp}" if stamp else ""
    files = sorted(p for p in root.rglob("samples_*.jsonl") if p.stem.endswith(suffix))
    if not files:
        raise BadInput(f"{root}: no samples_*{suffix}.jsonl files (run lm-eval with --log_samples)")
    results = _latest_results(root, f"results{suffix or '_*'}.json")
    configs = results.get("configs") if isinstance(results.get("configs"), dict) else {}
    metrics = results.get("results") if isinstance(results.get("results"), dict) else {}
    by_task: dict[str, list[Path]] = defaultdict(list)
    for path in files:
        by_task[sample_task_name(path)].append(path)
    tasks = {}
    for name, paths in by_task.items():
        config = configs.get(name) if isinstance(configs.get(name), dict) else {}
        kind = config.get("output_type") or _kind_from_samples(paths[0])
        tasks[name] = Task(name, paths, kind, config, metrics.get(name) or {})
    return Folder(root, _info(root, results), tasks)


def _latest_results(root: Path, pattern: str) -> dict[str, Any]:
    files = sorted(root.rglob(pattern))
    if not files:
        return {}
    try:
        results = json.loads(files[-1].read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BadInput(f"{files[-1]}: cannot read lm-eval results: {exc}") from exc
    if not isinstance(results, dict):
        raise BadInput(f"{files[-1]}: expected a JSON object of lm-eval results")
    results["_file"] = str(files[-1].relative_to(root))
    return results


def _info(root: Path, results: dict[str, Any]) -> dict[str, Any]:
    config = results.get("config") if isinstance(results.get("config"), dict) else {}
    return {"file": results.get("_file"), "lm_eval_version": results.get("lm_eval_version"),
            "date": results.get("date"), "model": config.get("model"), "model_args": redact(config.get("model_args")),
            "model_name": results.get("model_name"), "git_hash": results.get("git_hash")}


def redact(model_args: Any) -> Any:
    """lm-eval's model arguments (a `k=v,...` string or a dict) without API keys or tokens."""
    if isinstance(model_args, str):
        return _SECRET_ARG.sub(r"\1<redacted>", model_args)
    if isinstance(model_args, dict):
        return {k: "<redacted>" if _SECRET_KEY.search(str(k)) else v for k, v in model_args.items()}
    return model_args


def _kind_from_samples(path: Path) -> str | None:
    """Without a results file: pairs of (log-likelihood, is-greedy) per choice mean multiple choice."""
    samples = read_samples(path)
    if not samples:
        return None
    resps = samples[0][1].get("resps")
    if isinstance(resps, list) and resps and all(
            isinstance(r, list) and r and isinstance(r[0], list) and len(r[0]) == 2 for r in resps):
        return MULTIPLE_CHOICE
    if isinstance(resps, list) and resps and isinstance(resps[0], list) and resps[0] and isinstance(resps[0][0], str):
        return GENERATIVE
    return None


# -- one document of a multiple-choice task --------------------------------------------------------------

def choices(sample: dict[str, Any], path: Path, line: int) -> tuple[list[str], list[float], list[bool | None]]:
    """The continuation texts (from `arguments`) and lm-eval's (log-likelihood, is-greedy) per choice."""
    args = sample.get("arguments")
    resps = sample.get("filtered_resps") or [r[0] for r in sample.get("resps") or [] if isinstance(r, list) and r]
    if not isinstance(args, dict) or not isinstance(resps, list) or len(args) != len(resps) or len(resps) < 2:
        raise BadInput(located(path, line, "arguments/resps", "expected one (context, continuation) and one "
                               "[log-likelihood, is_greedy] per choice"))
    continuations, lls, greedy = [], [], []
    for key, resp in zip(sorted(args, key=lambda k: int(k.rsplit("_", 1)[-1])), resps, strict=True):
        arg = args[key]
        try:
            ll = float(resp[0])
        except (TypeError, ValueError, IndexError):
            ll = math.nan
        if not isinstance(arg, dict) or not isinstance(arg.get("arg_1"), str) or not math.isfinite(ll) or ll > 0:
            raise BadInput(located(path, line, key, f"expected a continuation and a finite log-likelihood <= 0, "
                                                    f"got {arg!r} / {resp!r}"))
        continuations.append(arg["arg_1"])
        lls.append(ll)
        greedy.append(str(resp[1]).lower() == "true" if len(resp) > 1 else None)
    return continuations, lls, greedy


def label(sample: dict[str, Any], texts: list[str], continuations: list[str], path: Path, line: int) -> int:
    """lm-eval's target for a multiple-choice doc: the choice index (an int or its digits) or the choice text."""
    target = sample.get("target")
    if isinstance(target, int) and not isinstance(target, bool) or isinstance(target, str) and target.isdigit():
        index = int(target)
        if 0 <= index < len(texts):
            return index
    elif isinstance(target, str):
        for options in (texts, continuations):
            if target in options:
                return options.index(target)
    raise BadInput(located(path, line, "target", f"{target!r} names none of the {len(texts)} choices"))


def item_id(sample: dict[str, Any]) -> str:
    doc = sample.get("doc") if isinstance(sample.get("doc"), dict) else {}
    own = doc.get("id")
    return str(own) if isinstance(own, str | int) and not isinstance(own, bool) else str(sample["doc_id"])


def verdict(sample: dict[str, Any], metric: str, recomputed: bool) -> bool:
    """lm-eval's own per-document verdict when it logged one (it is what lm-eval printed), else ours."""
    value = sample.get(metric)
    if isinstance(value, int | float) and not isinstance(value, bool):
        if bool(value) != recomputed:
            log.debug("doc %s: lm-eval's %s is %s, recomputed %s", sample.get("doc_id"), metric, value, recomputed)
        return bool(value)
    return recomputed
