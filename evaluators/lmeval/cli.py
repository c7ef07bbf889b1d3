"""`bananabench lm-eval`: run lm-eval tasks with our backends computing the numbers (needs the [lm-eval] extra)."""

from __future__ import annotations

import argparse
import json
import sys

from evaluators.core import cliargs
from evaluators.core.errors import BadInput

DEVICES = ("auto", "cpu", "cuda")
DTYPES = ("auto", "float32", "bfloat16", "float16")


def _limit(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a count or a fraction, got {text!r}") from None
    if value <= 0 or (value >= 1 and value != int(value)):
        raise argparse.ArgumentTypeError(f"expected a positive count or a fraction below 1, got {text!r}")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "lm-eval", help="run lm-eval tasks (its few-shot, filters, groups, metrics) with our exact backends",
        description="Run any lm-eval task with bananabench's hf, gguf or server backend computing the "
                    "log-likelihoods (lm-eval's own rolling windows for perplexity tasks) and generations. "
                    "Tokenizes as lm-eval's HFLM does for the same model (BOS as the model's tokenizer adds it). "
                    "Writes lm-eval's output folder (results_*.json and samples_*.jsonl) and stores one run "
                    "per task: per-choice log-likelihoods with token counts, lm-eval's metrics as scores. "
                    "Offline: a task whose data is on the Hugging Face hub needs a local copy; give task files "
                    "that read local JSON/JSONL with --include_path (docs/lm-eval.md).")
    p.add_argument("--tasks", required=True, metavar="TASK[,TASK...]",
                   help="lm-eval task, group or tag names (from --include_path or lm-eval's catalogue)")
    p.add_argument("--model", metavar="ID_OR_PATH", default=None,
                   help="hf: hub model id or local model folder; gguf: the .gguf file (server: see --base-url)")
    p.add_argument("--backend", choices=("hf", "gguf", "server"), default="hf",
                   help="hf: transformers (default); gguf: llama.cpp in-process, exact; server: an "
                        "OpenAI-compatible server at --base-url (llama.cpp's by exact teacher forcing)")
    cliargs.add_name(p)
    cliargs.add_results(p)
    p.add_argument("--num_fewshot", "--num-fewshot", dest="num_fewshot", type=int, metavar="N", default=None,
                   help="few-shot examples per prompt (default: each task's own; overriding makes the runs "
                        "non-official)")
    p.add_argument("--limit", type=_limit, metavar="N", default=None,
                   help="only the first N documents of each task (or a fraction below 1); non-official")
    p.add_argument("--include_path", "--include-path", dest="include_path", metavar="DIR", default=None,
                   help="a folder of lm-eval task YAML files (searched before lm-eval's catalogue); their "
                        "relative data_files paths are taken relative to each file")
    p.add_argument("--output_path", "--output-path", dest="output_path", metavar="DIR", default=None,
                   help="lm-eval's output folder, samples included (default: RESULTS/lm-eval/<name>/)")
    bos = p.add_mutually_exclusive_group()
    bos.add_argument("--add-bos", dest="add_bos", action="store_const", const=True, default=None,
                     help="prepend BOS to every request (default: as lm-eval's HFLM, i.e. when the model's "
                          "tokenizer adds it)")
    bos.add_argument("--no-add-bos", dest="add_bos", action="store_const", const=False,
                     help="never prepend BOS")
    p.add_argument("--fewshot-seed", type=int, metavar="N", default=None,
                   help="seed of lm-eval's few-shot sampler (default 1234, lm-eval's)")
    p.add_argument("--device", choices=DEVICES, default=None, help="hf: device (default auto)")
    p.add_argument("--dtype", choices=DTYPES, default=None,
                   help="hf: weights dtype (default auto: float32 on CPU, bfloat16 on CUDA)")
    p.add_argument("--revision", metavar="REV", default=None, help="hf: hub revision of the model")
    p.add_argument("--threads", type=cliargs.positive_int, metavar="N", default=None,
                   help="CPU threads for torch (hf) or llama.cpp (gguf)")
    p.add_argument("--batch-size", type=cliargs.positive_int, metavar="N", default=None,
                   help="hf: at most N contexts per forward step (default 8)")
    p.add_argument("--n-gpu-layers", type=int, metavar="N", default=None, help="gguf: layers offloaded to a GPU")
    p.add_argument("--n-ctx", type=cliargs.positive_int, metavar="N", default=None,
                   help="gguf: context llama.cpp allocates (the model's window for lm-eval; default: the "
                        "training context, at most 4096)")
    cliargs.add_resume(p)
    p.add_argument("--json", action="store_true", help="print the stored runs as one JSON object")
    cliargs.add_server(p, required=False, note=": --backend server only")
    p.set_defaults(func=cmd_lm_eval)


def cmd_lm_eval(args) -> int:
    try:
        import lm_eval  # noqa: F401
    except ImportError:
        raise BadInput("bananabench lm-eval needs lm-eval: pip install 'bananabench[lm-eval]'") from None
    from evaluators.lmeval.options import LmEvalOptions
    from evaluators.lmeval.run import run_lm_eval

    out = run_lm_eval(cliargs.options(LmEvalOptions, args))
    runs = [{"task": r.task, "run_id": r.run_id, "status": r.status, "scores": r.summary} for r in out["runs"]]
    if args.json:
        json.dump({"output_path": out["output_path"], "add_bos": out["add_bos"],
                   "official_reasons": out["official_reasons"], "runs": runs}, sys.stdout)
        print()
        return 0
    from lm_eval.utils import make_table

    print(make_table(out["results"]))
    if "groups" in out["results"]:
        print(make_table(out["results"], "groups"))
    flag = "official" if not out["official_reasons"] else "NON-OFFICIAL (" + "; ".join(out["official_reasons"]) + ")"
    for r in runs:
        note = " (already stored)" if r["status"] == "unchanged" else ""
        print(f"{r['task']}: run {r['run_id']}{note}  {flag}")
    print(f"lm-eval output: {out['output_path']}")
    return 0
