"""`bananabench loglik run|validate|build|import-lm-eval`: continuation log-likelihood benchmarks for base models."""

from __future__ import annotations

import argparse
import json
import sys

from evaluators.core import cliargs

DEVICES = ("auto", "cpu", "cuda")
DTYPES = ("auto", "float32", "bfloat16", "float16")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "loglik", help="base-model benchmarks by continuation log-likelihood (Base Bench 1.1, base-evals)",
        description="Score base language models by the log-likelihood of fixed continuations: BananaMind Base "
                    "Bench 1.1 (fixed-item Elo) and the base-evals splits (acc, acc_norm).")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    p = verbs.add_parser(
        "run", help="score a model on base-bench or base-evals splits",
        description="Score a model. Base Bench 1.1: the gated hub dataset (token from HF_TOKEN, the saved "
                    "`hf auth login` token, or a no-echo prompt) or --local-data; headline Overall Elo. "
                    "base-evals: --data FOLDER_OR_REPO verified against manifest.json; one run per split, "
                    "headline acc_norm. Outputs report.json, predictions.md, partial_results.jsonl and "
                    "run_config.json in the run folder, and one attempt per item in the store.")
    p.add_argument("--bench", required=True, metavar="BENCH",
                   help="base-bench, base-evals (all splits in the manifest) or base-evals:SPLIT[,SPLIT...]")
    p.add_argument("--model", metavar="ID_OR_PATH", default=None,
                   help="hf: hub model id or local model folder; gguf: the .gguf file; server: the served model id "
                        "(default: the server's only or loaded model)")
    cliargs.add_name(p)
    cliargs.add_results(p)
    p.add_argument("--data", "--local-data", dest="data", metavar="PATH_OR_REPO", default=None,
                   help="base-bench: a local data/test.jsonl (file or dataset folder) or a hub dataset id "
                        "(default BananaMind/BananaMind-Base-Bench-1.1); base-evals: a folder or hub dataset id "
                        "with manifest.json and data/*.parquet (required)")
    p.add_argument("--data-revision", metavar="REV", default=None, help="hub revision of the dataset")
    p.add_argument("--revision", metavar="REV", default=None, help="hub revision of the model")
    p.add_argument("--backend", metavar="{hf,gguf,server}", default="hf",
                   help="hf: transformers (default); gguf: llama.cpp in-process on a GGUF file, exact (float32 "
                        "log-softmax, no flash attention, f32 KV cache); server: an OpenAI-compatible server at "
                        "--base-url, by echoed prompt log-probs (vLLM) or exact teacher forcing (llama.cpp's "
                        "server), refused with exit 3 when it offers neither")
    p.add_argument("--base-url", metavar="URL", default=None,
                   help="server: the server, e.g. http://127.0.0.1:8080")
    cliargs.add_api_key_env(p)
    p.add_argument("--n-gpu-layers", type=int, metavar="N", default=0,
                   help="gguf: layers offloaded to a GPU (-1: all; default 0; needs a GPU build of xllamacpp)")
    p.add_argument("--n-ctx", type=cliargs.positive_int, metavar="N", default=None,
                   help="gguf: context (KV cache) llama.cpp allocates (default: the model's training context, at "
                        "most 4096); server: its per-slot context if it does not report one. Longer items are "
                        "rejected")
    p.add_argument("--concurrency", type=cliargs.positive_int, metavar="N", default=None,
                   help="server: requests in flight (default: the server's slots)")
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
                   help="run folder (default results/runs/<run_id>/; base-evals: DIR/<split>/ per split)")
    cliargs.add_resume(p)
    cliargs.add_limit(p)
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(func=cmd_run)

    p = verbs.add_parser(
        "validate", help="validate a dataset without a model (schema, manifest, official checks)",
        description="Validate Base Bench JSONL or base-evals splits exactly as `run` does, and say whether "
                    "a run over them would be official. No model is loaded and nothing is written.")
    p.add_argument("--bench", required=True, metavar="BENCH", help="base-bench or base-evals[:SPLIT,...]")
    p.add_argument("--data", "--local-data", dest="data", metavar="PATH", required=True,
                   help="local Base Bench file/folder or base-evals folder")
    cliargs.add_limit(p)
    p.set_defaults(func=cmd_validate)

    p = verbs.add_parser(
        "build", help="rebuild the base-evals splits offline from local copies of their pinned sources",
        description="Rebuild base-evals from local copies of its sources (SOURCES/<owner>/<name>/ as downloaded "
                    "from the hub at the pinned revisions): filter, sample 500 rows with random.Random(42), "
                    "subsample choices keeping the answer, format, and write data/<split>-00000-of-00001.parquet "
                    "plus manifest.json (hashes, row counts, source indices). Deterministic.")
    p.add_argument("dataset", choices=("base-evals",), help="what to build")
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
    from evaluators.core.store import Store
    from evaluators.loglik.lmeval_import import import_lm_eval

    for res in import_lm_eval(Store(args.results), args.directory, name=args.name):
        s = res.summary
        note = " (already imported)" if res.status == "unchanged" else ""
        print(f"{res.task}: {res.run_id}{note}  acc {s['acc']['value']:.3f}  lm-eval acc_norm (chars) "
              f"{s['acc_chars']['value']:.3f}  n={s['n']}")
    return 0


def _print_summary(result: dict) -> None:
    for r in result["runs"]:
        rep = r["report"]
        flag = "official" if rep["official"] else "NON-OFFICIAL (" + "; ".join(rep["official_reasons"]) + ")"
        if rep["benchmark"] == "base-bench":
            if rep["overall_elo"] is not None:
                lo, hi = rep["overall_elo_ci"]
                head = (f"Overall Elo {rep['overall_elo']:.1f} [{lo:.1f}, {hi:.1f}]  accuracy {rep['accuracy']:.3f}  "
                        f"weighted {rep['weighted_accuracy']:.3f}")
            else:
                head = "no example could be scored"
            print(f"base-bench  {head}  n={rep['n_scored']}  rejected={len(rep['rejected'])}  {flag}")
        else:
            s = rep["splits"][rep["split"]]
            acc, norm, chars = (("–" if s.get(m) is None else f"{s[m]:.3f}") for m in ("acc", "acc_norm", "acc_chars"))
            print(f"{rep['split']}  acc_norm {norm}  acc {acc}  lm-eval acc_norm (chars) {chars}  n={s['n']}  "
                  f"rejected={s['rejected']}  {flag}")
        rate = (rep.get("timing") or {}).get("items_per_s")
        print(f"  run {r['run_id']}  {r['dir']}" + (f"  ({rate:.1f} items/s)" if rate else ""))


def cmd_run(args) -> int:
    from evaluators import api
    from evaluators.core.backends.server import api_key_from_env

    result = api.run_loglik(
        bench=args.bench, model=args.model, name=args.name, results=args.results, data=args.data,
        data_revision=args.data_revision, revision=args.revision, backend=args.backend, device=args.device,
        dtype=args.dtype, threads=args.threads, batch_size=args.batch_size, max_batch_tokens=args.max_batch_tokens,
        add_bos=args.add_bos, out_dir=args.out_dir, resume=args.resume, limit=args.limit, device_map=args.device_map,
        n_gpu_layers=args.n_gpu_layers, n_ctx=args.n_ctx, base_url=args.base_url, concurrency=args.concurrency,
        api_key=api_key_from_env(args.api_key_env) if args.backend == "server" else None)
    if "rank" in result:  # a torchrun rank other than 0: rank 0 reports
        return 0
    if args.json:
        brief = [{k: v for k, v in r["report"].items() if k != "items"} | {"dir": r["dir"]} for r in result["runs"]]
        json.dump({"runs": brief}, sys.stdout, default=str)
        print()
    else:
        _print_summary(result)
    return 0


def cmd_validate(args) -> int:
    from pathlib import Path

    from evaluators.loglik import datasets as ds

    bench, splits = ds.parse_bench(args.bench)
    if bench == ds.BASE_BENCH:
        data = ds.load_base_bench(Path(args.data))
        reasons = data.official_reasons(args.limit)
        print(f"{data.path}: {len(data.items)} valid records, {len({i.category for i in data.items})} categories, "
              f"SHA-256 {data.sha256}")
        print("official" if not reasons else "non-official: " + "; ".join(reasons))
        return 0
    for split in ds.load_base_evals(Path(args.data), splits):
        reasons = split.official_reasons(args.limit)
        print(f"{split.name}: {len(split.items)} rows, SHA-256 {split.sha256} (matches manifest); "
              + ("official" if not reasons else "non-official: " + "; ".join(reasons)))
    return 0


def cmd_build(args) -> int:
    from evaluators.loglik import build

    splits = [s.strip() for s in args.splits.split(",") if s.strip()] if args.splits else None
    manifest = build.build_base_evals(args.sources, args.out, splits=splits)
    for name, entry in manifest["splits"].items():
        print(f"{name}: {entry['rows']} rows  {entry['sha256']}  {entry['path']}")
    print(f"wrote {args.out}/manifest.json")
    return 0
