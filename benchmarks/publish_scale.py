"""How long `bananabench publish` takes on a big store, and how big its leaderboard page gets.

Fills a fresh results store with synthetic runs shaped like the real evaluators' (50 models ×
Base Bench, seven base-evals splits, ARC/MMLU/GSM8K, the agent benchmark and ModeBench cells;
about 1,000,000 attempt rows plus per-choice log-probs, agent metrics and scores), then times a
full publish, CSV and Parquet exports included. The naive baseline for the heaviest part — the
item-level data of every run — queries each run's attempts and encodes them row by row in
Python, as a straightforward implementation would; ours builds each run's JSON inside DuckDB.

Prints one JSON line. Targets: publish ≤ 20 s on a 2-core machine, leaderboard page ≤ 200 KB.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluators.core.stats import fixed_item_elo  # noqa: E402
from evaluators.core.store import Store, utcnow  # noqa: E402
from evaluators.publish.builder import publish  # noqa: E402
from evaluators.publish.queries import Queries  # noqa: E402

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


def fill(store: Store, runs: list[dict]) -> int:
    now = utcnow()
    benches = [("base-bench", "loglik", "ids-only", "elo", "BananaMind Base Bench 1.1"),
               ("base-evals", "loglik", "public", "acc_norm", "base-evals"),
               ("arc", "chat", "public", "accuracy", "ARC-Challenge"), ("mmlu", "chat", "public", "accuracy", "MMLU"),
               ("gsm8k", "chat", "public", "accuracy", "GSM8K"),
               ("banana-benchmark", "agent", "public", "score", "banana-benchmark"),
               ("modebench", "modes", "public", "pass_at_k", "ModeBench")]
    with store.write() as con:
        for name, evaluator, policy, headline, title in benches:
            store.ensure_benchmark(name, evaluator, policy=policy, headline_metric=headline, title=title, con=con)
        for i, r in enumerate(runs):
            r["run_id"] = f"{r['model']}_{r['bench']}{'-' + r['split'] if r['split'] else ''}_{i:05d}"
            r["skill"] = 0.3 + 0.6 * int(r["model"][-2:]) / 50
            store.insert_run({"run_id": r["run_id"], "evaluator": r["kind"], "benchmark": r["bench"],
                              "split": r["split"], "model_name": r["model"], "official": r["kind"] != "agent",
                              "status": "finished", "started_at": now, "finished_at": now, "n_items": r["items"],
                              "config": {"scoring": "default"}, "artifact": {"path": f"/models/{r['model']}"}},
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
                   CAST(h % 4 AS VARCHAR), CAST((h // 7) % 4 AS VARCHAR),
                   CASE bench WHEN 'base-bench' THEN {cats}[1 + (i // 50) % 7]
                              WHEN 'modebench' THEN {cells}[1 + i % 10] WHEN 'mmlu' THEN 'subject_' || (i % 57)
                              WHEN 'banana-benchmark' THEN ['coding', 'bugfix', 'frontend', 'feature'][1 + i % 4] END,
                   ['easy', 'medium', 'hard'][1 + i % 3], 1.0 + (i % 3) * 0.5, NULL, 1.0 + (h % 100) / 10.0,
                   100 + h % 400, 50 + h % 900,
                   CASE kind WHEN 'chat' THEN json_object('raw', 'Let me think step by step about question ' || i ||
                                  '. The options are A, B, C and D. The answer is ' || CAST(h % 4 AS VARCHAR) || '.',
                                  'reasoning', 'reasoning trace ' || h)
                             WHEN 'loglik' THEN json_object('item_elo', 750 + (i // 50) % 7 * 50 + (i % 3) * 100)
                             WHEN 'agent' THEN json_object('artifacts', 'runs/' || run_id || '/' || item_id
                                                           || '/attempt-' || attempt, 'server_fingerprint', 'fp-1')
                             ELSE json_object('group', (attempt - 1) // 8, 'canonical_key', 'k' || (h % 5)) END
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
            WHERE a.status <> 'error' AND b.headline_metric <> 'elo' GROUP BY a.run_id, b.headline_metric""")
        con.execute("""
            INSERT INTO scores
            SELECT a.run_id, CASE WHEN r.benchmark = 'modebench' THEN 'cell' ELSE 'category' END, a.category,
                   b.headline_metric, avg(CASE WHEN a.correct THEN 1.0 ELSE 0.0 END), NULL, NULL, count(*),
                   '{"reportable": true}'
            FROM attempts a JOIN runs r USING (run_id) JOIN benchmarks b ON b.benchmark = r.benchmark
            WHERE a.category IS NOT NULL AND a.status <> 'error' AND b.headline_metric <> 'elo'
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
        con.executemany("INSERT INTO scores VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", scores)
        agent = con.execute("SELECT json_extract_string(a.extra, '$.artifacts') FROM attempts a "
                            "JOIN plan p USING (run_id) WHERE p.kind = 'agent'").fetchall()
        total = con.execute("SELECT count(*) FROM attempts").fetchone()[0]
    # Every agent attempt has its artifacts on disk, as a real run leaves them.
    for (rel,) in agent:
        folder = store.root / rel
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "final_message.md").write_text("Implemented the change and ran the tests.\n" * 20)
        (folder / "changes.diff").write_text("--- a/src/app.py\n+++ b/src/app.py\n" + "+    return x\n" * 60)
        (folder / "verify.log").write_text("PASSED test_case\n" * 40)
    return total


def naive_items(store: Store) -> float:
    """The straightforward way: one query per run, rows encoded one by one in Python."""
    t0 = time.perf_counter()
    with store.read() as con:
        run_ids = [r[0] for r in con.execute("SELECT run_id FROM runs WHERE evaluator <> 'agent'").fetchall()]
        for run_id in run_ids:
            rows = con.execute("SELECT item_id, attempt, status, correct, score, prediction, reference, category, "
                               "difficulty, wall_s, tokens_in, tokens_out, extra FROM attempts WHERE run_id = ? "
                               "ORDER BY item_id, attempt", [run_id]).fetchall()
            choices: dict[str, list] = {}
            for item, idx, lp, n, mean in con.execute(
                    "SELECT item_id, idx, logprob_sum, n_tokens, mean_logprob FROM choices WHERE run_id = ? "
                    "ORDER BY item_id, idx", [run_id]).fetchall():
                choices.setdefault(item, []).append([idx, lp, n, mean])
            json.dumps([[*r[:12], json.loads(r[12]) if r[12] else None, choices.get(r[0])] for r in rows])
    return time.perf_counter() - t0


def ours_items(store: Store) -> float:
    t0 = time.perf_counter()
    with Queries.open(store) as q:
        wanted = sorted(r["run_id"] for r in q.runs() if q.benchmark(r["benchmark"]).evaluator != "agent")
        for _run_id, _payload in q.items_json(wanted):
            pass
    return time.perf_counter() - t0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=int, default=50)
    p.add_argument("--rows", type=int, default=1_000_000, help="attempt rows to aim for (default 1,000,000)")
    p.add_argument("--baseline", action="store_true", help="also time a publish with --baseline model-00 "
                                                           "(49 paired diff pages)")
    p.add_argument("--keep", metavar="DIR", help="build in DIR and keep the store and site")
    args = p.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="publish-scale-"))
    store = Store(work / "results")
    t0 = time.perf_counter()
    attempts = fill(store, plan(args.models, args.rows))
    fill_s = time.perf_counter() - t0
    naive_s = naive_items(store)
    ours_s = ours_items(store)
    result = publish(store, work / "site")
    out = {
        "benchmark": "publish_scale", "models": args.models, "attempts": attempts,
        "publish_s": result.seconds, "publish_cpu_s": result.cpu_seconds,
        "publish_main_thread_cpu_s": result.main_thread_cpu_seconds, "target_publish_s": 20,
        # On an idle 2-core machine the wall time is about the larger of the two.
        "idle_2core_estimate_s": round(max(result.main_thread_cpu_seconds, result.cpu_seconds / 2), 1), "pages": result.pages, "files": result.files,
        "site_mb": round(result.bytes / 1e6, 1), "leaderboard_kb": round(result.leaderboard_bytes / 1024, 1),
        "target_leaderboard_kb": 200, "timings": result.timings,
        "items_s": round(ours_s, 2), "naive_items_s": round(naive_s, 2),
        "items_speedup_vs_naive": round(naive_s / ours_s, 1), "fill_s": round(fill_s, 1),
    }
    if args.baseline:
        again = publish(store, work / "site", baselines=["model-00"])
        out["publish_with_baseline_s"] = again.seconds
        out["publish_with_baseline_cpu_s"] = again.cpu_seconds
    print(json.dumps(out))
    if not args.keep:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
