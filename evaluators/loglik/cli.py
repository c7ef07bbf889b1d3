"""`bananabench loglik run|build|import-lm-eval`: continuation log-likelihood benchmarks for base models."""

from __future__ import annotations

import argparse
import json
import sys

from evaluators.core import cliargs
from evaluators.loglik.options import LoglikOptions

DEVICES = ("auto", "cpu", "cuda")
DTYPES = ("auto", "float32", "bfloat16", "float16")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "loglik", help="base-model benchmarks by continuation log-likelihood (Base Bench 1.1, base evals, yours)",
        description="Score base language models by the log-likelihood of fixed continuations. Every benchmark is a "
                    "spec: the built-in ones (`bananabench benchmarks list`: BananaMind Base Bench 1.1 with its "
                    "fixed-item Elo, the seven base evals splits with acc, acc_norm and acc_chars) or your own "
                    "TOML file (README: Add a benchmark).")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    p = verbs.add_parser(
        "run", help="score a model on a loglik benchmark (built in, or a spec file)",
        description="Score a model on a benchmark. Its data comes from where the spec says (a gated hub dataset "
                    "asks for a token: HF_TOKEN, the saved `hf auth login` token, or a no-echo prompt) or from "
                    "--data; a benchmark whose data is a manifest of splits is verified against it and gives one "
                    "run per split. Outputs report.json, predictions.md, partial_results.jsonl and "
                    "run_config.json in the run folder, and one attempt per item in the store.")
    p.add_argument("--bench", required=True, metavar="ID_OR_FILE[:SPLIT,...]",
                   help="a built-in loglik benchmark's id (`bananabench benchmarks list`) or a spec file; "
                        "ID:SPLIT[,SPLIT...] runs only those splits of a benchmark with splits (default: all)")
    p.add_argument("--model", metavar="ID_OR_PATH", default=None,
                   help="hf: hub model id or local model folder; gguf: the .gguf file (server: see --model-id)")
    cliargs.add_name(p)
    cliargs.add_results(p)
    p.add_argument("--data", "--local-data", dest="data", metavar="PATH_OR_REPO", default=None,
                   help="the data instead of the spec's own location: a local file, a folder holding it (or the "
                        "manifest and split files), or a hub dataset id; required when the spec names none")
    p.add_argument("--data-revision", metavar="REV", default=None, help="hub revision of the dataset")
    p.add_argument("--revision", metavar="REV", default=None, help="hub revision of the model")
    p.add_argument("--backend", metavar="{hf,gguf,server}", default="hf",
                   help="hf: transformers (default); gguf: llama.cpp in-process on a GGUF file, exact (float32 "
                        "log-softmax, no flash attention, f32 KV cache); server: an OpenAI-compatible server at "
                        "--base-url, by echoed prompt log-probs (vLLM) or exact teacher forcing (llama.cpp's "
                        "server), refused with exit 3 when it offers neither")
    p.add_argument("--n-gpu-layers", type=int, metavar="N", default=0,
                   help="gguf: layers offloaded to a GPU (-1: all; default 0; needs a GPU build of xllamacpp)")
    p.add_argument("--n-ctx", type=cliargs.positive_int, metavar="N", default=None,
                   help="gguf: context (KV cache) llama.cpp allocates (default: the model's training context, at "
                        "most 4096); longer items are rejected")
    p.add_argument("--device", choices=DEVICES, default="auto",
                   help="device (default auto: cuda if available; under torchrun each rank takes cuda:LOCAL_RANK)")
    p.add_argument("--device-map", choices=("auto",), default=None,
                   help="hf: spread one model too large for one GPU over every visible GPU (accelerate), in one "
                        "process; for a model that fits one GPU, run one copy per GPU under torchrun instead")
    p.add_argument("--dtype", choices=DTYPES, default="auto",
                   help="weights dtype (default auto: float32 on CPU, bfloat16 on CUDA); part of the signature")
    p.add_argument("--threads", type=cliargs.positive_int, metavar="N", default=None,
                   help="CPU threads for torch (hf) or llama.cpp (gguf; default: all cores)")
    p.add_argument("--batch-size", type=cliargs.positive_int, metavar="N", default=8,
                   help="at most N examples (each with all its continuations) per forward step (default 8)")
    p.add_argument("--max-batch-tokens", type=cliargs.positive_int, metavar="N", default=None,
                   help="token budget per forward step (default: sized from free memory; halves on out-of-memory)")
    p.add_argument("--add-bos", action="store_true",
                   help="prepend the BOS token to every context (diagnostic: changes the scoring configuration, "
                        "so the run is non-official)")
    p.add_argument("--out-dir", metavar="DIR", default=None,
                   help="run folder (default results/runs/<run_id>/; a benchmark with splits: DIR/<split>/ per split)")
    cliargs.add_resume(p)
    cliargs.add_limit(p)
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    cliargs.add_server(p, required=False, note=": --backend server only")
    p.set_defaults(func=cmd_run)

    p = verbs.add_parser(
        "build", help="rebuild a benchmark's splits offline from local copies of their pinned sources",
        description="Rebuild the splits of a benchmark whose spec has a [build] table (the built-in base evals) "
                    "from local copies of its sources (SOURCES/<owner>/<name>/ as downloaded from the hub at the "
                    "pinned revisions): format, filter, sample with the spec's seed, subsample choices keeping "
                    "the answer, and write data/<split>-00000-of-00001.parquet plus the manifest (hashes, row "
                    "counts, source indices). Deterministic.")
    p.add_argument("benchmark", metavar="ID_OR_FILE", help="the benchmark to build (a spec with [build])")
    p.add_argument("--sources", required=True, metavar="DIR", help="folder holding the source dataset copies")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (must be empty or absent)")
    p.add_argument("--splits", metavar="SPLIT,...", default=None, help="build only these splits")
    p.set_defaults(func=cmd_build)

    _add_import(verbs)


def _add_import(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser(
        "import-lm-eval", help="bring lm-eval multiple-choice runs (per-choice log-likelihoods) into the store",
        description="Import the multiple_choice tasks of an lm-eval output folder (results_*.json and "
                    "samples_*.jsonl, from --log_samples): one loglik run per task (benchmark = task name), "
                    "lm-eval's per-choice log-likelihoods and its acc and acc_norm (stored as acc_chars: it "
                    "divides by characters; our per-token acc_norm needs token counts lm-eval does not keep). "
                    "Generative tasks are refused: use `bananabench chat import-lm-eval`.")
    p.add_argument("directory", metavar="DIR")
    cliargs.add_name(p, required=True)
    cliargs.add_results(p)
    p.set_defaults(func=cmd_import)


def cmd_import(args) -> int:
    from evaluators.loglik.lmeval_import import import_lm_eval
    from evaluators.store.store import Store

    for res in import_lm_eval(Store(args.results), args.directory, name=args.name):
        s = res.summary
        note = " (already imported)" if res.status == "unchanged" else ""
        print(f"{res.task}: {res.run_id}{note}  acc {s['acc']['value']:.3f}  lm-eval acc_norm (chars) "
              f"{s['acc_chars']['value']:.3f}  n={s['n']}")
    return 0


def _print_summary(result: dict) -> None:
    from evaluators.loglik import report
    for r in result["runs"]:
        rep = r["report"]
        flag = "official" if rep["official"] else "NON-OFFICIAL (" + "; ".join(rep["official_reasons"]) + ")"
        metrics = list(rep["config"]["scoring"]["metrics"])
        head = report.headline(rep, metrics) if rep["n_scored"] else "no example could be scored"
        print(f"{rep.get('split') or rep['benchmark']}  {head}  n={rep['n_scored']}  rejected={len(rep['rejected'])}  "
              f"{flag}")
        rate = (rep.get("timing") or {}).get("items_per_s")
        print(f"  run {r['run_id']}  {r['dir']}" + (f"  ({rate:.1f} items/s)" if rate else ""))


def cmd_run(args) -> int:
    from evaluators.loglik.run import run_loglik

    result = run_loglik(cliargs.options(LoglikOptions, args))
    if "rank" in result:  # a torchrun rank other than 0: rank 0 reports
        return 0
    if args.json:
        brief = [{k: v for k, v in r["report"].items() if k != "items"} | {"dir": r["dir"]} for r in result["runs"]]
        json.dump({"runs": brief}, sys.stdout, default=str)
        print()
    else:
        _print_summary(result)
    return 0


def cmd_build(args) -> int:
    from evaluators.loglik.sources import build
    from evaluators.loglik.spec import load_benchmark

    bench = load_benchmark(args.benchmark)
    splits = [s.strip() for s in args.splits.split(",") if s.strip()] if args.splits else None
    manifest = build.build(bench, args.sources, args.out, splits=splits)
    for name, entry in manifest["splits"].items():
        print(f"{name}: {entry['rows']} rows  {entry['sha256']}  {entry['path']}")
    print(f"wrote {args.out}/{bench.spec.data.manifest}")
    return 0
