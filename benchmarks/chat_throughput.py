"""Answers per second of the chat evaluator's server backend: all slots busy vs one request at a time,
and two servers (replicas) vs one.

Starts `--servers` llama.cpp servers (xllamacpp, default 2) on a GGUF (default: the tiny local model,
built if needed) with `--parallel` slots each, asks the ARC sample questions (repeated to `--items`)
with a fixed budget (`ignore_eos`, so every answer has the same length): with `ServerBackend`'s
concurrency on the first server (= its slots), with one request at a time on it, and with every
server as replicas of one model (`--base-url` given once per server). The ways are measured
alternately `--rounds` times; prints one JSON line with the medians: answers_per_s,
sequential_answers_per_s, speedup_vs_sequential, replicas_answers_per_s and
speedup_replicas_vs_one_server. Two servers on one machine share its cores (`--threads` each):
the replica figure says what the balancing costs or gains there, not what a second machine would.

    python benchmarks/chat_throughput.py
    python benchmarks/chat_throughput.py --gguf model.gguf --parallel 8 --items 64 --max-tokens 256
    python benchmarks/chat_throughput.py --base-url http://host-a:8081 --base-url http://host-b:8081
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def requests_for(n: int, max_tokens: int):
    from evaluators.chat import spec as chat
    from evaluators.chat.run import messages_for
    from evaluators.models.backends.base import GenerationRequest
    from evaluators.specs.spec_data import locate

    task = chat.load_task("arc")
    (data,) = locate(task.spec, str(Path(__file__).resolve().parent.parent / "tasks" / "samples" / "chat"))
    items = chat.read_items(task, data)
    return [GenerationRequest(messages=messages_for(task, items[i % len(items)], False), max_tokens=max_tokens,
                              extra={"ignore_eos": True}) for i in range(n)]


def timed(backend, reqs) -> tuple[float, int]:
    t0 = time.perf_counter()
    results = dict(backend.generate(reqs))
    elapsed = time.perf_counter() - t0
    errors = [r.error for r in results.values() if r.error]
    if errors:
        raise SystemExit(f"generation failed: {errors[0]}")
    return elapsed, sum(r.tokens_out or 0 for r in results.values())


def measure(urls: list[str], args: argparse.Namespace) -> dict:
    """Alternate the ways `--rounds` times (a busy machine hits them alike); report medians."""
    from evaluators.models.backends.discovery import ServerOptions, discover
    from evaluators.models.backends.server import ServerBackend

    info = discover(urls[0])
    reqs = requests_for(args.items, args.max_tokens)
    concurrent = ServerBackend(info, concurrency=args.concurrency, stream=not args.no_stream)
    sequential = ServerBackend(info, concurrency=1, stream=not args.no_stream)
    replicated = None
    if len(urls) > 1:  # the same per-server concurrency on every replica
        replicated = ServerBackend(ServerOptions(base_url=urls).discover(), stream=not args.no_stream,
                                   concurrency=args.concurrency * len(urls) if args.concurrency else None)
    for backend in filter(None, (concurrent, replicated)):
        timed(backend, reqs[: backend.concurrency])  # warm-up: load pages, fill caches
    par, seq, rep = [], [], []
    for _ in range(args.rounds):
        par.append(timed(concurrent, reqs))
        seq.append(timed(sequential, reqs))
        if replicated is not None:
            rep.append(timed(replicated, reqs))
    par_s, par_tokens = statistics.median(t for t, _ in par), par[0][1]
    seq_s, seq_tokens = statistics.median(t for t, _ in seq), seq[0][1]
    return {
        "benchmark": "chat_throughput", "items": args.items, "max_tokens": args.max_tokens, "rounds": args.rounds,
        "slots": info.n_slots, "concurrency": concurrent.concurrency, "model": info.model_id,
        "stream": not args.no_stream,
        "answers_per_s": round(args.items / par_s, 3), "sequential_answers_per_s": round(args.items / seq_s, 3),
        "speedup_vs_sequential": round(statistics.median(s / p for (p, _), (s, _) in zip(par, seq, strict=True)), 3),
        "tokens_per_s": round(par_tokens / par_s, 1), "sequential_tokens_per_s": round(seq_tokens / seq_s, 1),
        **(replica_figures(par, rep, args.items, replicated) if replicated is not None else {}),
    }


def replica_figures(par: list[tuple[float, int]], rep: list[tuple[float, int]], items: int, backend) -> dict:
    """The replica set's answers/s and its speedup over one server (the median of the per-round ratios)."""
    return {"servers": len(backend.replicas.replicas), "replicas_concurrency": backend.concurrency,
            "replicas_answers_per_s": round(items / statistics.median(t for t, _ in rep), 3),
            "speedup_replicas_vs_one_server": round(statistics.median(p / r for (p, _), (r, _) in
                                                                      zip(par, rep, strict=True)), 3),
            "replicas_served": {r["url"]: r["served"] for r in backend.replicas.summary()}}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gguf", help="GGUF to serve (default: the tiny local model)")
    p.add_argument("--base-url", action="append", help="measure running servers instead of starting them; give it "
                   "once per replica (the first one is the one-server case)")
    p.add_argument("--servers", type=int, default=2, help="servers to start (default 2; 1 skips the replica case)")
    p.add_argument("--threads", type=int, default=None, help="llama.cpp threads per started server (default: its own)")
    p.add_argument("--parallel", type=int, default=4, help="server slots (default 4)")
    p.add_argument("--n-ctx", type=int, default=4096, help="total context, split over the slots (default 4096)")
    p.add_argument("--concurrency", type=int, default=None, help="requests in flight (default: the slots)")
    p.add_argument("--items", type=int, default=32, help="answers per measurement (default 32)")
    p.add_argument("--max-tokens", type=int, default=64, help="tokens per answer (default 64)")
    p.add_argument("--rounds", type=int, default=3, help="alternating measurements; medians reported (default 3)")
    p.add_argument("--no-stream", action="store_true", help="whole responses instead of SSE streams")
    args = p.parse_args()
    if args.base_url:
        print(json.dumps(measure(args.base_url, args)))
        return 0
    import contextlib

    from evaluators.models.llamacpp import LlamaServer

    gguf = args.gguf
    if gguf is None:
        from evaluators.models.tinymodel import cached_tiny

        gguf = cached_tiny(Path(__file__).resolve().parent.parent / ".cache" / "bench-models", gguf=True)["gguf"]
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(LlamaServer(gguf, n_ctx=args.n_ctx, parallel=args.parallel, alias="bench",
                                                   threads=args.threads)) for _ in range(max(1, args.servers))]
        print(json.dumps(measure([s.base_url for s in servers], args)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
