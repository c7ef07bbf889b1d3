"""Throughput of `bananabench modes generate` against a server: parallel seeded requests vs one at a time.

Each draw has its own seed, so draws cannot share a request; what makes generation fast is keeping
`--concurrency` requests in flight. A scripted OpenAI-compatible stand-in answers every request after
a fixed latency (a model's decode time); the naive baseline is the same generator with concurrency 1.
Prints one JSON line: draws, seconds for each, and the speedup.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--latency", type=float, default=0.05, help="seconds the stand-in takes per answer (0.05)")
    p.add_argument("--concurrency", type=int, default=8, help="requests in flight for the measured run (8)")
    p.add_argument("--k", type=int, default=4, help="draws per group (4)")
    p.add_argument("--groups", type=int, default=2, help="groups per prompt (2)")
    args = p.parse_args()

    from evaluators.models.backends.server import ServerBackend
    from evaluators.modes.datasets import load_custom_tasks
    from evaluators.modes.demo import walkthrough_files
    from evaluators.modes.generate import GenerateOptions, generate
    from tests.mock_openai import MockOpenAI, Reply, Rule

    with tempfile.TemporaryDirectory() as tmp, MockOpenAI(
            rules=[Rule(match=lambda b: True, reply=lambda b: Reply(content="\\boxed{1}", delay_s=args.latency))],
    ) as mock:
        tasks = load_custom_tasks(walkthrough_files(Path(tmp))["tasks"])
        seconds = {}
        for label, concurrency in (("serial", 1), ("concurrent", args.concurrency)):
            backend = ServerBackend.connect(mock.base_url, concurrency=concurrency)
            model = {"id": "bench", "revision": "x", "artifact": {}}
            opts = GenerateOptions(out=Path(tmp) / f"{label}.jsonl", name="bench", k=args.k, groups=args.groups)
            start = time.perf_counter()
            summary = generate(tasks, backend, model, "server", opts)
            seconds[label] = time.perf_counter() - start
    print(json.dumps({
        "benchmark": "modes_generate", "draws": summary.draws, "latency_s": args.latency,
        "concurrency": args.concurrency, "serial_s": round(seconds["serial"], 3),
        "concurrent_s": round(seconds["concurrent"], 3),
        "speedup": round(seconds["serial"] / seconds["concurrent"], 2),
    }))


if __name__ == "__main__":
    main()
