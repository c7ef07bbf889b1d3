"""`bananabench models ...`: list model names in the store; build tiny offline models; serve a GGUF."""

from __future__ import annotations

import argparse
import json
import signal
import sys

from evaluators.core import cliargs
from evaluators.store import lookups
from evaluators.store.store import Store


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("models", help="list models; build tiny test models; serve a GGUF; fetch from the Hub",
                            description="List models in the store; build tiny offline test models; serve a GGUF "
                                        "with llama.cpp; download models from the Hugging Face Hub.")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    p = verbs.add_parser("list", help="model names with their runs")
    cliargs.add_results(p)
    p.add_argument("--json", action="store_true", help="print JSON lines")
    p.set_defaults(func=cmd_list)

    p = verbs.add_parser(
        "make-tiny", help="build a tiny random Llama model + BPE tokenizer (and optionally its GGUF) offline",
        description="Build a deterministic tiny Llama-architecture model with a byte-level BPE tokenizer "
                    "trained on a bundled corpus, saved with save_pretrained; --gguf also writes the same "
                    "weights as a GGUF file that llama.cpp loads. Needs the [hf] extra (and [gguf] for --gguf).",
    )
    p.add_argument("dir", help="output folder (must be empty or absent)")
    p.add_argument("--seed", type=int, default=0, help="random seed for weights (default 0)")
    p.add_argument("--gguf", action="store_true", help="also write DIR/model.gguf (float32)")
    p.set_defaults(func=cmd_make_tiny)

    p = verbs.add_parser(
        "serve", help="serve a GGUF file with llama.cpp's OpenAI-compatible server (no llama-server binary needed)",
        description="Serve MODEL.gguf with llama.cpp's own HTTP server from the xllamacpp wheel (the [gguf] "
                    "extra) until Ctrl-C or SIGTERM: /v1/chat/completions, /v1/completions, /v1/models, "
                    "/completion, /tokenize, /props, /health. Point the chat or agent evaluators at the URL it "
                    "prints.",
    )
    p.add_argument("model", metavar="MODEL.gguf", help="the GGUF file to serve")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; 0.0.0.0 for all)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 picks a free one)")
    p.add_argument("--ctx", type=cliargs.positive_int, default=4096, metavar="N",
                   help="total context in tokens, shared by the slots (default 4096)")
    p.add_argument("--parallel", type=cliargs.positive_int, default=1, metavar="N",
                   help="concurrent request slots (default 1)")
    p.add_argument("--alias", default=None, help="model name the API reports (default: the file name)")
    p.add_argument("--threads", type=cliargs.positive_int, default=None, metavar="N",
                   help="CPU threads (default: llama.cpp's choice)")
    p.add_argument("--exact", action="store_true",
                   help="flash attention off, a float32 K/V cache and no prompt cache in host memory, for "
                        "log-prob scoring that matches transformers (slower, more memory)")
    p.add_argument("--set", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                   help="any further llama.cpp parameter by its CommonParams field name, e.g. "
                        "--set n_gpu_layers=99 --set sampling.top_k=1 (repeatable)")
    p.add_argument("--log", metavar="FILE", default=None, help="append llama.cpp's log to FILE")
    p.set_defaults(func=cmd_serve)

    p = verbs.add_parser(
        "download", help="fetch a Hub repo (model or dataset) into the local Hugging Face cache",
        description="Download a model (or dataset) repo from the Hugging Face Hub into huggingface_hub's cache "
                    "(HF_HOME / HF_HUB_CACHE), so later runs work offline; prints the local path and the commit "
                    "it resolved to. Token: HF_TOKEN, else `hf auth login`'s, else asked on the terminal when "
                    "the repo is gated or private.",
    )
    p.add_argument("repo_id", metavar="OWNER/NAME", help="Hub repo id")
    p.add_argument("files", nargs="*", metavar="FILE", help="only these files (default: the whole repo)")
    p.add_argument("--repo-type", choices=("model", "dataset"), default="model", help="default: model")
    p.add_argument("--revision", default=None, help="branch, tag or commit (default: main)")
    p.add_argument("--include", action="append", default=None, metavar="GLOB",
                   help="only files matching GLOB (repeatable; ignored when FILEs are given)")
    p.set_defaults(func=cmd_download)


def cmd_list(args) -> int:
    rows = lookups.model_overview(Store(args.results))
    for row in rows:
        if args.json:
            print(json.dumps(row))
        else:
            print(f"{row['name']}  runs {row['runs']} (finished {row['finished']})  {row['benchmarks'] or ''}")
    return 0


def cmd_make_tiny(args) -> int:
    from evaluators.models.tinymodel import make_tiny

    info = make_tiny(args.dir, seed=args.seed, gguf=args.gguf)
    print(json.dumps(info, indent=2))
    return 0


def cmd_serve(args) -> int:
    from evaluators.core.errors import BadInput
    from evaluators.models.llamacpp import LlamaServer

    if not 0 <= args.port <= 65535:
        raise BadInput(f"--port must be 0..65535, got {args.port}")
    server = LlamaServer(args.model, n_ctx=args.ctx, parallel=args.parallel, alias=args.alias, exact=args.exact,
                         port=args.port, extra_args=args.settings, threads=args.threads, host=args.host,
                         log_path=args.log, verbose=args.log is not None)
    signal.signal(signal.SIGTERM, _interrupt)  # SIGTERM stops like Ctrl-C: through `with`, child included
    with server:
        print(f"serving {server.model_path.name} as {server.model_name!r} at {server.base_url} "
              f"(OpenAI-compatible API: {server.base_url}/v1); Ctrl-C to stop", flush=True)
        try:
            code = server.wait()
        except KeyboardInterrupt:
            pass
        else:
            print(f"bananabench: error: the llama.cpp server exited with status {code}", file=sys.stderr)
            return 3
    print("stopped", flush=True)
    return 0


def cmd_download(args) -> int:
    from evaluators.core import data
    if args.files:
        revision = args.revision
        paths = []
        for name in args.files:
            path, revision = data.download_file(args.repo_id, name, repo_type=args.repo_type, revision=revision)
            paths.append(str(path))
        out = {"repo_id": args.repo_id, "repo_type": args.repo_type, "revision": revision, "files": paths}
    else:
        folder, revision = data.snapshot(args.repo_id, repo_type=args.repo_type, revision=args.revision,
                                         allow_patterns=args.include)
        out = {"repo_id": args.repo_id, "repo_type": args.repo_type, "revision": revision, "path": str(folder)}
    print(json.dumps(out, indent=2))
    return 0


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt
