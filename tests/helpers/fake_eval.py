"""A minimal evaluator built on the core run API, driven by the lifecycle tests as a real process.

usage: fake_eval.py RESULTS MODEL N_ITEMS [--sleep S] [--resume] [--scoring X] [--benchmark B]
Records item-0..item-(N-1) (correct when the index is even), then finishes with an accuracy score.
"""

import argparse
import sys
import time

from evaluators.core.errors import BananaError
from evaluators.runs.runs import RunSpec, start_run
from evaluators.store.records import AttemptRow, ChoiceRow, ScoreRow
from evaluators.store.store import Store


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("results")
    p.add_argument("model")
    p.add_argument("n", type=int)
    p.add_argument("--sleep", type=float, default=0.0)
    p.add_argument("--resume", action="store_true")
    p.add_argument("--scoring", default="default")
    p.add_argument("--benchmark", default="fake-bench")
    p.add_argument("--token", default=None)
    args = p.parse_args()
    spec = RunSpec(evaluator="fake", benchmark=args.benchmark, model_name=args.model,
                   artifact={"path": "/models/x", "identity": {"weights": "abc"}},
                   scoring={"mode": args.scoring}, options={"api_key": args.token}, n_items=args.n)
    try:
        with start_run(Store(args.results), spec, resume=args.resume) as run:
            print(f"RUN {run.run_id} resumed={run.resumed} done={len(run.done)}", flush=True)
            for i in range(args.n):
                if run.is_done(f"item-{i}"):
                    continue
                time.sleep(args.sleep)
                run.record(AttemptRow(item_id=f"item-{i}", status="ok", correct=i % 2 == 0,
                                      score=float(i % 2 == 0), prediction=f"p{i}", reference=f"r{i}",
                                      category=f"c{i % 3}"),
                           choices=[ChoiceRow(idx=j, logprob_sum=-float(j), n_tokens=1, mean_logprob=None)
                                    for j in range(2)])
                print(f"DONE item-{i}", flush=True)
            run.flush()
            acc = run.store.query("SELECT avg(score) FROM attempts WHERE run_id = ?", [run.run_id]).rows[0][0]
            run.finish([ScoreRow(scope="overall", key="", metric="accuracy", value=acc, n=args.n)])
    except BananaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
