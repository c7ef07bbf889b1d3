"""A realistic results store for the publisher's tests, written through the core run API.

Every evaluator's conventions (ARCHITECTURE.md and the helper brief's "Store conventions") are
followed exactly: loglik (Base Bench, ids-only, with per-choice log-probs; base-evals splits),
chat (correct/wrong/unanswered/error, raw outputs and reasoning), agent (attempts with
metrics, artifacts, screenshots, checklist, grades, server fingerprint) and modes (cells
with the reportable flag). Model names and outputs carry HTML/JS payloads, and the ids-only
benchmark's item text carries a marker (`GATED_MARKER`) that must never be published.
"""

from __future__ import annotations

import random
import struct
import zlib
from pathlib import Path

import evaluators.agent as agent_evaluator
import evaluators.chat as chat_evaluator
import evaluators.loglik as loglik
import evaluators.modes as modes_evaluator
from evaluators.core.stats import fixed_item_elo, wilson_interval
from evaluators.runs.runs import RunSpec, start_run
from evaluators.store.records import AttemptRow, ChoiceRow, ScoreRow
from evaluators.store.store import Store

XSS_NAME = '<script>alert("name")</script><img src=x onerror=alert(1)>'
XSS_OUTPUT = ('<script>alert("raw")</script><img src=x onerror=alert(2)> '
              '<a href="javascript:alert(3)">click</a> [md](javascript:alert(4)) </td></tr><b>bold</b>')
GATED_MARKER = "GATEDTEXT"
MODELS = ("alpha-7b", "beta-3b", XSS_NAME)
CATEGORIES = ("language_completion", "commonsense", "world_knowledge", "context_tracking",
              "quantitative", "logical_reasoning", "code_completion")
CATEGORY_WEIGHT = dict(zip(CATEGORIES, (1.0, 1.1, 1.1, 1.2, 1.3, 1.35, 1.4), strict=True))
DIFFICULTY = {"easy": (1.0, 0), "medium": (1.5, 100), "hard": (2.25, 250)}


def png(width: int, height: int, rects: list[tuple[int, int, int, int, tuple[int, int, int]]]) -> bytes:
    """A PNG of filled rectangles (stand-in screenshots for the gallery), no imaging library needed."""
    pixels = [bytearray(b"\xff" * (3 * width)) for _ in range(height)]
    for x, y, w, h, rgb in rects:
        for row in pixels[max(y, 0):min(y + h, height)]:
            x0, x1 = max(x, 0), min(x + w, width)
            row[3 * x0:3 * x1] = bytes(rgb) * (x1 - x0)
    raw = b"".join(b"\x00" + bytes(row) for row in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def kanban(width: int, columns: int, accent: tuple[int, int, int], seed: int) -> bytes:
    """A kanban-board-like screenshot: a header bar, columns, cards of varying height."""
    rng = random.Random(seed)
    height = 400 if columns > 1 else 640
    rects = [(0, 0, width, 44, (38, 44, 58)), (16, 14, 90, 16, accent)]
    col_w = (width - 16 * (columns + 1)) // columns
    for c in range(columns):
        x = 16 + c * (col_w + 16)
        rects.append((x, 60, col_w, height - 76, (237, 240, 245)))
        rects.append((x + 10, 70, col_w // 2, 10, (120, 128, 140)))
        y = 92
        for _ in range(rng.randint(2, 5)):
            h = rng.randint(36, 70)
            if y + h > height - 24:
                break
            rects.append((x + 10, y, col_w - 20, h, (255, 255, 255)))
            rects.append((x + 10, y, 4, h, accent))
            rects.append((x + 22, y + 10, (col_w - 44) * rng.randint(4, 9) // 10, 8, (90, 98, 110)))
            y += h + 10
    return png(width, height, rects)


def _skill(model: str) -> float:
    return {"alpha-7b": 0.75, "beta-3b": 0.45}.get(model, 0.6)


def _acc_scores(correct: list[bool], metric: str = "accuracy", scope: str = "overall", key: str = "") -> dict:
    k, n = sum(correct), len(correct)
    low, high = wilson_interval(k, n)
    return ScoreRow(scope=scope, key=key, metric=metric, value=k / n if n else None, ci_low=low, ci_high=high,
                    n=n, extra={"ci_method": "wilson"})


def base_bench(store: Store, model: str, *, seed: int, official: bool = True, limit: int | None = None) -> str:
    rng = random.Random(seed)
    items = []
    for ci, cat in enumerate(CATEGORIES):
        for j, diff in enumerate(("easy", "medium", "hard", "medium")):
            weight, bump = DIFFICULTY[diff]
            items.append((f"{cat}-{j + 1:03d}", cat, diff, CATEGORY_WEIGHT[cat] * weight, 750 + 50 * ci + bump,
                          (ci + j) % 4))
    items = items[:limit] if limit else items
    spec = RunSpec(evaluator="loglik", benchmark="base-bench", model_name=model, benchmark_version="1.1",
                   artifact={"path": f"/models/{model}", "identity": {"sha256": f"{seed:064x}"}}, backend="hf",
                   dataset_sha256="2f563bb4" + "0" * 56, official=official, n_items=len(items),
                   scoring={"score_mode": "mean_logprob", "add_bos": False})
    with start_run(store, spec, policy="ids-only", benchmark_title="BananaMind Base Bench 1.1",
                   headline_metric="elo", presentation=loglik.PRESENTATION) as run:
        results = []
        for item_id, cat, diff, weight, item_elo, label in items:
            ok = rng.random() < _skill(model)
            pred = label if ok else (label + 1 + rng.randrange(3)) % 4
            means = [rng.uniform(-4, -2) for _ in range(4)]
            means[pred] = max(means) + 0.5
            run.record(
                AttemptRow(item_id=item_id, status="ok", correct=ok, score=float(ok), prediction=str(pred),
                           reference=str(label), category=cat, difficulty=diff, weight=weight,
                           extra={"item_elo": item_elo, "context": f"{GATED_MARKER} context of {item_id}",
                                  "continuations": [f" {GATED_MARKER} continuation {i}" for i in range(4)]}),
                choices=[ChoiceRow(idx=i, logprob_sum=m * 5, n_tokens=5, mean_logprob=m,
                                   extra={"text": f" {GATED_MARKER} continuation {i}"}) for i, m in enumerate(means)])
            results.append((cat, ok, item_elo, weight))
        scores = []

        def elo(rows, scope, key):
            fit = fixed_item_elo([r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows])
            return ScoreRow(scope=scope, key=key, metric="elo", value=fit.rating, ci_low=fit.ci_low,
                            ci_high=fit.ci_high, n=len(rows), extra={"ci_method": fit.method})

        scores.append(elo(results, "overall", ""))
        scores.append(_acc_scores([r[1] for r in results]))
        weighted = sum(r[3] for r in results if r[1]) / sum(r[3] for r in results)
        scores.append(ScoreRow(scope="overall", key="", metric="weighted_accuracy", value=weighted,
                               n=len(results)))
        for cat in CATEGORIES:
            rows = [r for r in results if r[0] == cat]
            if rows:
                scores.append(elo(rows, "category", cat))
                scores.append(_acc_scores([r[1] for r in rows], scope="category", key=cat))
        run.finish(scores, extra={"official_reason": "full data" if official else "--limit"})
        return run.run_id


def base_evals(store: Store, model: str, split: str, *, seed: int) -> str:
    rng = random.Random(seed)
    spec = RunSpec(evaluator="loglik", benchmark="base-evals", model_name=model, split=split,
                   artifact={"path": f"/models/{model}"}, backend="hf", official=True, n_items=12)
    with start_run(store, spec, policy="public", benchmark_title="base-evals", headline_metric="acc_norm",
                   presentation=loglik.PRESENTATION) as run:
        acc, acc_norm = [], []
        for i in range(12):
            item_id = f"{split}-{i:04d}"
            if i == 11:
                run.record(AttemptRow(item_id=item_id, status="rejected", category=split,
                                      extra={"reason": "ambiguous token boundary",
                                             "context": f"Context {i} <i>x</i>"}))
                continue
            a, b = rng.random() < _skill(model), rng.random() < _skill(model) + 0.05
            acc.append(a)
            acc_norm.append(b)
            run.record(AttemptRow(item_id=item_id, status="ok", correct=b, score=float(b),
                                  prediction="1" if b else "2", reference="1", category=split,
                                  extra={"correct_acc": a, "correct_acc_norm": b, "context": f"Context {i}: {XSS_OUTPUT}",
                                         "choices": [" one", " two", " three", " four"]}),
                       choices=[ChoiceRow(idx=j, logprob_sum=-j - rng.random(), n_tokens=2 + j,
                                          mean_logprob=(-j - 1) / (2 + j)) for j in range(4)])
        run.finish([_acc_scores(acc, "acc"), _acc_scores(acc_norm, "acc_norm"),
                    ScoreRow(scope="overall", key="", metric="n_rejected", value=1, n=12)])
        return run.run_id


def chat(store: Store, model: str, task: str, *, seed: int, n: int = 15, categories: tuple[str, ...] = (),
         fingerprint: str = "fp-llama-1") -> str:
    rng = random.Random(seed)
    number = task == "gsm8k"
    spec = RunSpec(evaluator="chat", benchmark=task, model_name=model,
                   artifact={"base_url": "http://127.0.0.1:8081", "model_id": model}, backend="server",
                   official=True, n_items=n, extra={"server_fingerprint": fingerprint})
    titles = {"arc": "ARC-Challenge", "mmlu": "MMLU (generative)", "gsm8k": "GSM8K"}
    counts = {"correct": 0, "wrong": 0, "unanswered": 0, "error": 0}
    by_cat: dict[str, list[bool]] = {}
    with start_run(store, spec, policy="public", benchmark_title=titles[task], headline_metric="accuracy",
                   presentation=chat_evaluator.PRESENTATION) as run:
        for i in range(n):
            roll = rng.random()
            status = ("error" if i == n - 1 else "unanswered" if roll > 0.92 else
                      "correct" if roll < _skill(model) else "wrong")
            counts[status] += 1
            ref = str(10 + i) if number else "ABCD"[i % 4]
            pred = {"correct": ref, "wrong": "99" if number else "ABCD"[(i + 1) % 4]}.get(status)
            cat = categories[i % len(categories)] if categories else None
            extra = {"raw": f"Let me think. {XSS_OUTPUT} The answer is {pred}" if pred else "",
                     "reasoning": f"thinking about item {i} <script>alert('think')</script>",
                     "server_fingerprint": fingerprint}
            if status == "error":
                extra = {"error": "HTTP 500 from server: <b>upstream</b> failed", "server_fingerprint": fingerprint}
            run.record(AttemptRow(item_id=f"{task}-{i:03d}", status=status,
                                  correct=None if status == "error" else status == "correct", prediction=pred,
                                  reference=ref, category=cat, wall_s=1.0 + i / 10, tokens_in=120 + i,
                                  tokens_out=300 + i, extra=extra))
            if cat and status != "error":
                by_cat.setdefault(cat, []).append(status == "correct")
        answered = [True] * counts["correct"] + [False] * (counts["wrong"] + counts["unanswered"])
        scores = [_acc_scores(answered)] + [
            ScoreRow(scope="overall", key="", metric=f"n_{k}", value=v, n=n) for k, v in counts.items()]
        scores += [_acc_scores(v, scope="category", key=k) for k, v in by_cat.items()]
        run.finish(scores)
        return run.run_id


AGENT_TASKS = (("smoke/hello", "smoke"), ("coding/two-sum", "coding"), ("frontend/kanban-board", "frontend"))


def agent(store: Store, model: str, *, seed: int, fingerprint: str = "fp-llama-1") -> str:
    rng = random.Random(seed)
    store.record_server_config(fingerprint, {"props": {"build_info": "b4242", "n_ctx": 65536,
                                                       "chat_template": "{{ messages }} <script>x</script>"},
                                             "mode": "single", "args": ["-c", "65536", "--jinja"]})
    spec = RunSpec(evaluator="agent", benchmark="banana-benchmark", model_name=model,
                   artifact={"base_url": "http://127.0.0.1:8081"}, backend="server", official=False,
                   n_items=len(AGENT_TASKS), extra={"server_fingerprint": fingerprint})
    per_task: dict[str, list[float]] = {}
    with start_run(store, spec, policy="public", benchmark_title="banana-benchmark",
                   headline_metric="score", presentation=agent_evaluator.PRESENTATION) as run:
        base = Path("runs") / run.run_id
        for task, cat in AGENT_TASKS:
            for attempt in (1, 2):
                rel = base / task / f"attempt-{attempt}"
                adir = store.root / rel
                adir.mkdir(parents=True, exist_ok=True)
                (adir / "final_message.md").write_text(f"Done with {task}. {XSS_OUTPUT}\n")
                (adir / "changes.diff").write_text("--- a/app.py\n+++ b/app.py\n+print('<script>x</script>')\n")
                (adir / "verify.log").write_text("ok 1 test_basic\n")
                extra = {"task_hash": f"hash-{task}", "title": task.split("/")[1].replace("-", " ").title(),
                         "tags": ["quick", cat], "artifacts": str(rel),
                         "tool_calls_by_name": {"bash": 3, "edit": 2}, "server_fingerprint": fingerprint}
                if cat == "frontend":
                    status, score = "manual", None
                    accent = ((229, 181, 0), (52, 120, 246), (220, 80, 90))[(seed + attempt) % 3]
                    (adir / "screenshot.png").write_bytes(kanban(640, 3, accent, seed + attempt))
                    (adir / "screenshot-mobile.png").write_bytes(kanban(200, 1, accent, seed + attempt))
                    ws = adir / "workspace"
                    ws.mkdir(exist_ok=True)
                    write_hostile_app(ws)
                    (adir / "checklist.md").write_text("# Checklist\n- [ ] columns render\n- [ ] <b>drag</b> works\n")
                    extra.update(screenshots={"desktop": str(rel / "screenshot.png"),
                                              "mobile": str(rel / "screenshot-mobile.png")},
                                 checklist=str(rel / "checklist.md"), workspace=str(rel / "workspace"))
                elif task == "smoke/hello" and attempt == 2:
                    status, score = "error", None
                    extra["error"] = "podman: container failed to start"
                elif cat == "coding" and attempt == 2:
                    status, score = "stuck", 0.0
                    extra["stuck_reason"] = "same tool call repeated 8 times: <script>bash</script>"
                else:
                    ok = rng.random() < _skill(model) + 0.2
                    status, score = ("passed", 1.0) if ok else ("failed", 0.0)
                    if not ok:
                        extra["reason"] = "none of 3 expected tests is in the grader's record"
                        extra["verdict"] = {"passed": False, "reason": extra["reason"], "expected": 3, "n_missing": 3}
                        extra["tamper_flags"] = [TAMPER_FLAG]
                metrics = {"verify_s": 1.5, "turns": 4 + attempt, "tool_calls": 5, "tool_errors": 0,
                           "tokens_input": 12000, "tokens_output": 900, "tokens_cache": 8000,
                           "context_peak": 15000, "context_peak_share": 0.23, "compactions": 0,
                           "llm_requests": 6, "prefill_tps": 850.5, "decode_tps": 42.1, "ttft_s": 0.8}
                run.record(AttemptRow(item_id=task, attempt=attempt, status=status, score=score,
                                      correct=None if score is None else score == 1.0, category=cat,
                                      wall_s=30.0 + attempt, extra=extra), metrics=metrics)
                if score is not None:
                    per_task.setdefault(task, []).append(score)
        task_means = {t: sum(v) / len(v) for t, v in per_task.items()}
        scores = [ScoreRow(scope="overall", key="", metric="score",
                           value=sum(task_means.values()) / len(task_means), n=len(task_means))]
        for task, cat in AGENT_TASKS:
            if task in task_means:
                scores.append(ScoreRow(scope="category", key=cat, metric="score", value=task_means[task], n=1))
                scores.append(ScoreRow(scope="task", key=task, metric="score", value=task_means[task], n=1))
        scores.append(ScoreRow(scope="overall", key="", metric="manual_grade", value=3.5, n=2))
        run.finish(scores)
    store.add_grade(model, "frontend/kanban-board", 1, 4, run_id=run.run_id, note="solid <em>layout</em>")
    store.add_grade(model, "frontend/kanban-board", 2, 3, run_id=run.run_id)
    return run.run_id


def modes(store: Store, model: str, *, seed: int) -> str:
    rng = random.Random(seed)
    spec = RunSpec(evaluator="modes", benchmark="modebench", model_name=model, benchmark_version="0.4.0",
                   artifact={"base_url": "http://127.0.0.1:8081"}, backend="server", official=False, n_items=6)
    cells = ("level1/countdown", "level1/graph")
    with start_run(store, spec, policy="public", benchmark_title="ModeBench", headline_metric="pass_at_k",
                   presentation=modes_evaluator.PRESENTATION) as run:
        scores = []
        all_pass = []
        for cell in cells:
            passes = []
            for p in range(3):
                item = f"{cell}/eval/{p}"
                group_pass = []
                for g in range(2):
                    ok_any = False
                    for d in range(2):
                        ok = rng.random() < _skill(model)
                        ok_any |= ok
                        run.record(AttemptRow(item_id=item, attempt=g * 2 + d + 1,
                                              status="verified" if ok else "wrong", correct=ok,
                                              prediction=f"{rng.randrange(9)} <svg onload=alert(5)>",
                                              category=cell,
                                              extra={"group": g, "canonical_key": f"k{rng.randrange(3)}",
                                                     "raw": f"answer {XSS_OUTPUT}"}))
                    group_pass.append(ok_any)
                passes.append(sum(group_pass) / len(group_pass))
            all_pass += passes
            extra = {"reportable": False, "defined_prompts": 2, "support": 3, "standard_error": 0.1}
            scores += [ScoreRow(scope="cell", key=cell, metric="pass_at_k", value=sum(passes) / len(passes),
                                n=len(passes), extra=extra),
                       ScoreRow(scope="cell", key=cell, metric="pcmd", value=rng.random(), n=2, extra=extra)]
        extra = {"reportable": False, "defined_prompts": 4, "support": 6}
        scores += [ScoreRow(scope="overall", key="", metric="pass_at_k", value=sum(all_pass) / len(all_pass),
                            n=len(all_pass), extra=extra),
                   ScoreRow(scope="overall", key="", metric="pcmd", value=0.4, n=4, extra=extra)]
        run.finish(scores)
        return run.run_id


def build(root: Path) -> dict:
    """Write the whole fixture store under `root`; returns ids the tests refer to."""
    store = Store(root)
    ids: dict = {"base_bench": {}, "chat": {}, "agent": {}}
    ids["old_alpha_base_bench"] = base_bench(store, "alpha-7b", seed=1)
    for i, model in enumerate(MODELS):
        ids["base_bench"][model] = base_bench(store, model, seed=10 + i, official=model != "beta-3b",
                                              limit=20 if model == "beta-3b" else None)
        for split in ("tiny_hellaswag", "tiny_pythonio"):
            base_evals(store, model, split, seed=20 + i)
        for j, task in enumerate(("arc", "gsm8k")):
            ids["chat"][(model, task)] = chat(store, model, task, seed=30 + 3 * i + j)
        chat(store, model, "mmlu", seed=40 + i, categories=("abstract_algebra", "anatomy", "astronomy"))
        ids["agent"][model] = agent(store, model, seed=50 + i)
        modes(store, model, seed=60 + i)
    # A newer non-official run (a --limit run) never displaces the official one on the leaderboard.
    ids["alpha_unofficial_latest"] = base_bench(store, "alpha-7b", seed=5, official=False, limit=7)
    hidden = base_bench(store, "hidden-model", seed=99)
    store.set_hidden(hidden, True)
    ids["hidden"] = hidden
    # An interrupted run: listed on the model page, never on the leaderboard.
    spec = RunSpec(evaluator="chat", benchmark="arc", model_name="beta-3b", official=True, n_items=5)
    with start_run(store, spec, benchmark_title="ARC-Challenge", headline_metric="accuracy",
                   presentation=chat_evaluator.PRESENTATION) as run:
        run.record(AttemptRow(item_id="arc-000", status="correct", correct=True, prediction="A",
                              reference="A"))
        ids["interrupted"] = run.run_id
    return ids


TAMPER_FLAG = "calc.py: exit hook or immediate exit: <script>alert('flag')</script>os._exit(0)"


# A model's app that tries everything from every file type a browser may run script from: each payload
# opens a dialog and calls out; published, none may do either outside the app's sandboxed frame.
LEAK = "http://127.0.0.1:9/leak"
PAYLOAD_JS = (f"alert('script ran');fetch('{LEAK}/fetch');new Image().src='{LEAK}/img';"
              "try{top.document.title='PWNED'}catch(e){}")
HOSTILE_FILES = {
    "evil.svg": f'<svg xmlns="http://www.w3.org/2000/svg"><script>{PAYLOAD_JS}</script></svg>',
    "evil.xhtml": f'<html xmlns="http://www.w3.org/1999/xhtml"><body><script>{PAYLOAD_JS}</script></body></html>',
    "evil.xml": f'<x:script xmlns:x="http://www.w3.org/1999/xhtml">{PAYLOAD_JS}</x:script>',
    "evil.html": f"<script>{PAYLOAD_JS}</script>",
    "evil.htm": f"<script>{PAYLOAD_JS}</script>",
    "evil.shtml": f"<script>{PAYLOAD_JS}</script>",
    "evil.mhtml": f"<script>{PAYLOAD_JS}</script>",
    "noext": f"<html><script>{PAYLOAD_JS}</script></html>",
    "fake.png": f"<html><script>{PAYLOAD_JS}</script></html>",
    "data.json": f"<html><script>{PAYLOAD_JS}</script></html>",
    "style.css": f"body {{ background: url('{LEAK}/css') }} h1 {{ color: #a70 }}",
}


def write_hostile_app(ws: Path) -> None:
    """A frontend attempt's kept workspace: a working app plus hostile files of every scriptable type."""
    ws.mkdir(exist_ok=True)
    (ws / "index.html").write_text(
        "<!doctype html><title>app</title><link rel=stylesheet href=style.css>"
        f"<link rel=prefetch href='{LEAK}/prefetch'><meta http-equiv=refresh content='1;url={LEAK}/refresh'>"
        "<h1>Kanban</h1><img src='https://example.com/tracker.png' alt=''><img src='evil.svg' alt=''>"
        f"<iframe src='evil.html'></iframe><script src='app.js'></script><script>{PAYLOAD_JS}</script>")
    (ws / "app.js").write_text(f"document.body.append('app ran');console.log('app ran');{PAYLOAD_JS}")
    for name, text in HOSTILE_FILES.items():
        (ws / name).write_text(text)
