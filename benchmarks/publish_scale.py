"""`bananabench publish` at leaderboard scale, against the builder it replaced, in one run.

Fills a fresh results store with synthetic runs shaped like the real evaluators' (50 models ×
Base Bench, seven base-evals splits, ARC/MMLU/GSM8K with their prompts, the agent benchmark and
ModeBench cells; about 1,000,000 attempt rows plus per-choice log-probs, agent metrics, artifacts
and scores). Then it publishes the store with the builder of commit 6ddb572 (extracted from git
at run time, run in its own process) and with ours (`--full`), each after a warm-up, the median
of `--rounds`; then ours incrementally, with nothing changed and after adding one run.

Prints one JSON line: size, file count, wall and CPU seconds, the idle 2-core estimate and the
ratios against the baseline, and whether each target of issue 23 is met (site ≤ 100 MB and
5,000 files, full publish ≤ 20 s, incremental publish after one new run ≤ 3 s).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import evaluators.agent  # noqa: E402
import evaluators.chat  # noqa: E402
import evaluators.loglik  # noqa: E402
import evaluators.modes  # noqa: E402
from evaluators.core.contract import BenchmarkKey  # noqa: E402
from evaluators.core.stats import fixed_item_elo  # noqa: E402
from evaluators.store.records import RunRow  # noqa: E402
from evaluators.store.store import Store, utcnow  # noqa: E402

# What each evaluator declares the site shows of its runs (the real runs register it through start_run).
PRESENTATIONS = {e.__name__.rsplit(".", 1)[1]: e.PRESENTATION
                 for e in (evaluators.loglik, evaluators.chat, evaluators.agent, evaluators.modes)}

SPLITS = ("tiny_arithmark_2_0", "tiny_arithmark_3_0", "tiny_hellaswag", "tiny_logicmark", "tiny_openbookqa",
          "tiny_pythonio", "tiny_truthfulqa")
CATEGORIES = ("language_completion", "commonsense", "world_knowledge", "context_tracking", "quantitative",
              "logical_reasoning", "code_completion")
CELLS = tuple(f"level{lv}/{d}" for lv in (1, 2) for d in ("countdown", "graph", "python", "mathir", "pantryplan"))


def plan(models: int, target_rows: int) -> list[dict]:
    """One entry per run: benchmark, split, items, attempts per item; ModeBench fills up to the target."""
    fixed = []
    for m in range(models):
        name = f"model-{m:02d}"
        fixed.append(dict(model=name, bench="base-bench", split=None, items=350, attempts=1, kind="loglik"))
        fixed += [dict(model=name, bench="base-evals", split=s, items=500, attempts=1, kind="loglik") for s in SPLITS]
        fixed += [dict(model=name, bench=b, split=None, items=n, attempts=1, kind="chat")
                  for b, n in (("arc", 100), ("mmlu", 114), ("gsm8k", 100))]
        fixed.append(dict(model=name, bench="banana-benchmark", split=None, items=60, attempts=3, kind="agent"))
    used = sum(r["items"] * r["attempts"] for r in fixed)
    per_model = max(0, target_rows - used) // models
    prompts = max(1, per_model // 16)  # 16 draws per prompt (two groups of 8)
    for m in range(models):
        fixed.append(dict(model=f"model-{m:02d}", bench="modebench", split=None, items=prompts, attempts=16,
                          kind="modes"))
    return fixed


def fill(store: Store, runs: list[dict], first: int = 0) -> int:
    now = utcnow()
    benches = [("base-bench", "loglik", "ids-only", "elo", "BananaMind Base Bench 1.1"),
               ("base-evals", "loglik", "public", "acc_norm", "base-evals"),
               ("arc", "chat", "public", "accuracy", "ARC-Challenge"), ("mmlu", "chat", "public", "accuracy", "MMLU"),
               ("gsm8k", "chat", "public", "accuracy", "GSM8K"),
               ("banana-benchmark", "agent", "public", "score", "banana-benchmark"),
               ("modebench", "modes", "public", "pass_at_k", "ModeBench")]
    with store.write() as con:
        for name, evaluator, policy, headline, title in benches:
            store.ensure_benchmark(name, evaluator, policy=policy, headline_metric=headline, title=title, con=con,
                                   extra={BenchmarkKey.PRESENTATION: PRESENTATIONS[evaluator].to_json()})
        for i, r in enumerate(runs):
            r["run_id"] = f"{r['model']}_{r['bench']}{'-' + r['split'] if r['split'] else ''}_{first + i:05d}"
            r["skill"] = 0.3 + 0.6 * (int(r["model"][-2:]) % 50) / 50
            store.insert_run(RunRow(run_id=r["run_id"], evaluator=r["kind"], benchmark=r["bench"], split=r["split"],
                                    model_name=r["model"], official=r["kind"] != "agent", status="finished",
                                    started_at=now, finished_at=now, n_items=r["items"],
                                    config={"scoring": "default"}, artifact={"path": f"/models/{r['model']}"}),
                             con=con)
        con.execute("CREATE TEMP TABLE plan (run_id VARCHAR, bench VARCHAR, kind VARCHAR, items INT, "
                    "attempts INT, skill DOUBLE)")
        con.executemany("INSERT INTO plan VALUES (?, ?, ?, ?, ?, ?)",
                        [[r["run_id"], r["bench"], r["kind"], r["items"], r["attempts"], r["skill"]] for r in runs])
        cats = "['" + "','".join(CATEGORIES) + "']"
        cells = "['" + "','".join(CELLS) + "']"
        con.execute(f"""
            INSERT INTO attempts
            SELECT run_id, item_id, attempt,
                   CASE kind WHEN 'loglik' THEN 'ok'
                             WHEN 'chat' THEN (CASE WHEN h % 97 = 0 THEN 'error' WHEN h % 13 = 0 THEN 'unanswered'
                                                    WHEN ok THEN 'correct' ELSE 'wrong' END)
                             WHEN 'agent' THEN (CASE WHEN h % 41 = 0 THEN 'error' WHEN ok THEN 'passed' ELSE 'failed' END)
                             ELSE (CASE WHEN ok THEN 'verified' ELSE 'wrong' END) END,
                   ok, CASE WHEN ok THEN 1.0 ELSE 0.0 END,
                   CAST(h % 4 AS VARCHAR), CAST(hash(item_id) % 4 AS VARCHAR),
                   CASE bench WHEN 'base-bench' THEN {cats}[1 + (i // 50) % 7]
                              WHEN 'modebench' THEN {cells}[1 + i % 10] WHEN 'mmlu' THEN 'subject_' || (i % 57)
                              WHEN 'banana-benchmark' THEN ['coding', 'bugfix', 'frontend', 'feature'][1 + i % 4] END,
                   ['easy', 'medium', 'hard'][1 + i % 3], 1.0 + (i % 3) * 0.5, NULL, 1.0 + (h % 100) / 10.0,
                   100 + h % 400, 50 + h % 900,
                   CASE kind WHEN 'chat' THEN json_object('raw', 'Let me think step by step about question ' || i ||
                                  '. The options are A, B, C and D. The answer is ' || CAST(h % 4 AS VARCHAR) || '.',
                                  'reasoning', 'reasoning trace ' || h,
                                  'messages', json_array(json_object('role', 'user', 'content',
                                      'Question ' || i || ' of ' || bench || ': which of these is right? A) the first '
                                      || 'option B) the second option C) the third option D) the fourth option. '
                                      || 'Answer with the letter.')))
                             WHEN 'loglik' THEN json_object('item_elo', 750 + (i // 50) % 7 * 50 + (i % 3) * 100)
                             WHEN 'agent' THEN json_object('artifacts', 'runs/' || run_id || '/' || item_id
                                                           || '/attempt-' || attempt, 'server_fingerprint', 'fp-1')
                             ELSE json_object('group', (attempt - 1) // 8, 'canonical_key', 'k' || (h % 5),
                                              'raw', 'answer ' || (h % 97)) END
            FROM (
                SELECT p.run_id, p.bench, p.kind, r.range // p.attempts AS i, r.range % p.attempts + 1 AS attempt,
                       p.bench || '-' || lpad(CAST(r.range // p.attempts AS VARCHAR), 5, '0') AS item_id,
                       hash(p.run_id, r.range) AS h,
                       (hash(p.run_id, r.range) % 1000) / 1000.0 < p.skill AS ok
                FROM plan p, range(p.items * p.attempts) r)""")
        con.execute("""
            INSERT INTO choices
            SELECT a.run_id, a.item_id, c.range, -(c.range + 1) * 3.0, 3, -(c.range + 1.0), NULL
            FROM attempts a JOIN plan p USING (run_id), range(4) c WHERE p.kind = 'loglik'""")
        con.execute("""
            INSERT INTO attempt_metrics
            SELECT a.run_id, a.item_id, a.attempt, m.name, (hash(a.run_id, a.item_id, a.attempt, m.name) % 1000) / 10.0
            FROM attempts a JOIN plan p USING (run_id),
                 (SELECT unnest(['verify_s', 'turns', 'tool_calls', 'tool_errors', 'tokens_input', 'tokens_output',
                                 'tokens_cache', 'context_peak', 'context_peak_share', 'compactions', 'llm_requests',
                                 'prefill_tps', 'decode_tps', 'ttft_s']) AS name) m
            WHERE p.kind = 'agent'""")
        # Accuracy-type scores in bulk, Wilson-free (the numbers only need the right shape).
        con.execute("""
            INSERT INTO scores
            SELECT a.run_id, 'overall', '', b.headline_metric, avg(CASE WHEN a.correct THEN 1.0 ELSE 0.0 END),
                   NULL, NULL, count(*), '{}'
            FROM attempts a JOIN runs r USING (run_id) JOIN benchmarks b ON b.benchmark = r.benchmark
            WHERE a.status <> 'error' AND b.headline_metric <> 'elo' AND a.run_id IN (SELECT run_id FROM plan)
            GROUP BY a.run_id, b.headline_metric""")
        con.execute("""
            INSERT INTO scores
            SELECT a.run_id, CASE WHEN r.benchmark = 'modebench' THEN 'cell' ELSE 'category' END, a.category,
                   b.headline_metric, avg(CASE WHEN a.correct THEN 1.0 ELSE 0.0 END), NULL, NULL, count(*),
                   '{"reportable": true}'
            FROM attempts a JOIN runs r USING (run_id) JOIN benchmarks b ON b.benchmark = r.benchmark
            WHERE a.category IS NOT NULL AND a.status <> 'error' AND b.headline_metric <> 'elo'
                  AND a.run_id IN (SELECT run_id FROM plan)
            GROUP BY ALL""")
        elo_runs = [r["run_id"] for r in runs if r["bench"] == "base-bench"]
        rows = con.execute("SELECT run_id, category, correct, CAST(json_extract(extra, '$.item_elo') AS DOUBLE), "
                           "weight FROM attempts WHERE run_id IN (SELECT unnest(?)) ORDER BY ALL", [elo_runs]).fetchall()
        by_run: dict[str, list] = {}
        for row in rows:
            by_run.setdefault(row[0], []).append(row[1:])
        scores = []
        for run_id, items in by_run.items():
            groups = {"": items} | {c: [x for x in items if x[0] == c] for c in CATEGORIES}
            for key, group in groups.items():
                fit = fixed_item_elo([x[1] for x in group], [x[2] for x in group], [x[3] for x in group])
                scores.append([run_id, "overall" if key == "" else "category", key, "elo", fit.rating, fit.ci_low,
                               fit.ci_high, len(group), json.dumps({"ci_method": fit.method})])
        if scores:
            con.executemany("INSERT INTO scores VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", scores)
        agent = con.execute("SELECT json_extract_string(a.extra, '$.artifacts') FROM attempts a "
                            "JOIN plan p USING (run_id) WHERE p.kind = 'agent'").fetchall()
        total = con.execute("SELECT count(*) FROM attempts WHERE run_id IN (SELECT run_id FROM plan)").fetchone()[0]
        con.execute("DROP TABLE plan")
    # Every agent attempt has its artifacts on disk, as a real run leaves them.
    for (rel,) in agent:
        folder = store.root / rel
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "final_message.md").write_text("Implemented the change and ran the tests.\n" * 20)
        (folder / "changes.diff").write_text("--- a/src/app.py\n+++ b/src/app.py\n" + "+    return x\n" * 60)
        (folder / "verify.log").write_text("PASSED test_case\n" * 40)
    return total


BASELINE_COMMIT = "6ddb572"  # the builder issue 23 measured: every run's item text in its own pages
RUNNER = """
import dataclasses, json, sys
from evaluators.store.store import Store
from evaluators.publish.builder import publish
kwargs = json.loads(sys.argv[3])
result = publish(Store(sys.argv[1]), sys.argv[2], **kwargs)
print(json.dumps(dataclasses.asdict(result), default=str))
"""


def baseline_code(work: Path) -> Path:
    """Today's builder, extracted from git at run time into `work` (never importable from the package)."""
    folder = work / f"baseline-{BASELINE_COMMIT}"
    if not folder.is_dir():
        folder.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", BASELINE_COMMIT, "evaluators", "templates"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def baseline_store(store: Store, work: Path) -> Store:
    """A copy of the store the baseline can open: its schema log ends at version 3, the last the baseline knows
    (version 4 only adds each benchmark's presentation to `benchmarks.extra`, which the baseline never reads)."""
    copy = Store(work / "results-baseline")
    copy.root.mkdir(parents=True, exist_ok=True)
    shutil.copy2(store.path, copy.path)
    with copy.write() as con:
        con.execute("DELETE FROM schema_migrations WHERE version > 3")
    return copy


def run_publish(code: Path, store: Store, site: Path, **kwargs) -> dict:
    """One publish in a fresh process importing the package from `code`; its BuildResult as a dict."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(store.root), str(site), json.dumps(kwargs)],
                          cwd=code, env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(code: Path, store: Store, site: Path, rounds: int, **kwargs) -> dict:
    """A warm-up publish, then `rounds` timed ones: the median round's figures."""
    run_publish(code, store, site, **kwargs)
    results = sorted((run_publish(code, store, site, **kwargs) for _ in range(rounds)), key=lambda r: r["cpu_seconds"])
    return results[len(results) // 2]


def idle_estimate(r: dict) -> float:
    """On an idle 2-core machine the wall time is about the larger of the main thread's CPU time and half
    the process's (the background threads run beside it)."""
    return round(max(r["main_thread_cpu_seconds"], r["cpu_seconds"] / 2), 1)


def summary(r: dict) -> dict:
    return {"wall_s": r["seconds"], "cpu_s": r["cpu_seconds"], "main_thread_cpu_s": r["main_thread_cpu_seconds"],
            "idle_2core_estimate_s": idle_estimate(r), "files": r["files"], "site_mb": round(r["bytes"] / 1e6, 1),
            "pages_written": r["pages"], "leaderboard_kb": round(r["leaderboard_bytes"] / 1024, 1),
            "timings": r["timings"]}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=int, default=50)
    p.add_argument("--rows", type=int, default=1_000_000, help="attempt rows to aim for (default 1,000,000)")
    p.add_argument("--rounds", type=int, default=3, help="timed publishes per builder after a warm-up (default 3)")
    p.add_argument("--keep", metavar="DIR", help="build in DIR and keep the store and sites")
    args = p.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="publish-scale-"))
    store = Store(work / "results")
    t0 = time.perf_counter()
    runs = plan(args.models, args.rows)
    attempts = fill(store, runs)
    fill_s = time.perf_counter() - t0
    base = measure(baseline_code(work), baseline_store(store, work), work / "site-baseline", args.rounds)
    ours = measure(REPO, store, work / "site", args.rounds, full=True)
    # Incremental: nothing changed, then one more run (a new model's ARC run) added.
    same = run_publish(REPO, store, work / "site")
    fill(store, [dict(model=f"model-{args.models:02d}", bench="arc", split=None, items=100, attempts=1,
                      kind="chat")], first=len(runs))
    added = run_publish(REPO, store, work / "site")
    out = {
        "benchmark": "publish_scale", "models": args.models, "attempts": attempts, "rounds": args.rounds,
        "baseline": {"commit": BASELINE_COMMIT, **summary(base)}, "ours_full": summary(ours),
        "incremental_unchanged": summary(same), "incremental_one_run_added": summary(added),
        "cpu_ratio_baseline_over_ours": round(base["cpu_seconds"] / ours["cpu_seconds"], 2),
        "idle_estimate_ratio_baseline_over_ours": round(idle_estimate(base) / idle_estimate(ours), 2),
        "targets": {"site_mb": 100, "files": 5000, "full_publish_idle_s": 20, "incremental_one_run_s": 3},
        "meets": {"site_mb": ours["bytes"] / 1e6 <= 100, "files": ours["files"] <= 5000,
                  "full_publish_idle_s": idle_estimate(ours) <= 20,
                  "incremental_one_run_s": idle_estimate(added) <= 3},
        "fill_s": round(fill_s, 1),
    }
    print(json.dumps(out))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
