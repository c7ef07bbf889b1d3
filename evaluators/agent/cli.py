"""`bananabench agent ...`: list, run, reference, grade, review, lint, validate, backfill, build-image."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
from pathlib import Path

from evaluators.core import cliargs
from evaluators.core.contract import HELD, Metric, RunStatus
from evaluators.core.errors import BadInput

EPILOG = ("Tasks live in the project's tasks/agent/<category>/<name>/, whatever the working directory (override "
          "with --tasks-dir or $BANANABENCH_AGENT_TASKS). "
          "Selectors --only/--exclude (task ids), --category and --tag take globs and repeat.")


def _add_selection(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tasks-dir", metavar="DIR", default=None, help="tasks root (default: the project's tasks/agent)")
    p.add_argument("--only", action="append", default=[], metavar="GLOB", help="task ids to include")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="task ids to leave out")
    p.add_argument("--category", dest="categories", action="append", default=[], metavar="GLOB",
                   help="categories to include")
    p.add_argument("--tag", dest="tags", action="append", default=[], metavar="GLOB",
                   help="tags to include (any matches)")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("agent", help="the banana-benchmark: the Pi coding agent on tasks in a podman sandbox",
                            description="The banana-benchmark: the Pi coding agent works on each task in a "
                                        "locked-down podman container; a hidden test decides pass or fail.",
                            epilog=EPILOG)
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    p = verbs.add_parser("list", help="list the tasks", description="List the tasks (after the selectors).")
    _add_selection(p)
    p.add_argument("--json", action="store_true", help="one JSON object per task")
    p.set_defaults(func=cmd_list)

    p = verbs.add_parser("run", help="run the agent on the selected tasks for one model",
                         description="Run Pi on the selected tasks against an OpenAI-compatible server "
                                     "(llama-server or a llama.cpp router). The same command resumes an "
                                     "interrupted run (finished attempts are kept, infrastructure errors retried); "
                                     "--rerun starts a new one.", epilog=EPILOG)
    cliargs.add_name(p, required=True)
    cliargs.add_results(p)
    cliargs.add_server(p, concurrency=False, note="; the host proxy adds the API key, the sandbox never sees it")
    _add_selection(p)
    p.add_argument("--limit", type=cliargs.positive_int, metavar="N", default=None,
                   help="only the first N selected tasks (the run is marked non-official)")
    p.add_argument("--attempts", type=cliargs.positive_int, default=1, metavar="N", help="attempts per task")
    p.add_argument("--parallel", type=cliargs.positive_int, default=None, metavar="N",
                   help="attempts at once (default: the server's slots)")
    p.add_argument("--thinking", default=None, metavar="LEVEL", help="Pi thinking level (off, minimal, low, medium, high, xhigh)")
    p.add_argument("--reasoning", action="store_true", help="declare the model a reasoning model to Pi")
    p.add_argument("--max-tokens", type=cliargs.positive_int, default=None, metavar="N", help="max tokens per reply")
    p.add_argument("--keep-workspaces", action="store_true", help="keep every attempt's final workspace")
    p.add_argument("--timeout-s", type=cliargs.non_negative_float, default=None, help="wall-clock limit per attempt")
    p.add_argument("--idle-s", type=cliargs.non_negative_float, default=None,
                   help="stop after this long without Pi events or model traffic")
    p.add_argument("--max-tool-calls", type=cliargs.positive_int, default=None, help="tool calls per attempt")
    p.add_argument("--workspace-mb", type=int, default=None, metavar="MIB",
                   help="size limit of each attempt's workspace file system, enforced by the kernel (default 2048; "
                        "the verification copy gets twice); 0 turns the limit off (needed without root)")
    p.add_argument("--rerun", action="store_true", help="start a new run instead of resuming")
    p.add_argument("--dry-run", action="store_true", help="print the attempts without running them")
    p.add_argument("--config", metavar="BENCH_TOML", default=None,
                   help="limits ([limits]) and Pi settings ([pi.settings]) file")
    p.add_argument("--image", default=None, help="sandbox image (default: bananabench-agent:full if built, "
                                                 "else the offline image, built on demand)")
    p.add_argument("--memory", default="4g", help="memory limit per container (default 4g)")
    p.add_argument("--pids", type=cliargs.positive_int, default=512, help="process limit per container")
    p.add_argument("--cpus", type=float, default=2.0, help="CPU limit per container")
    p.add_argument("--podman-connection", metavar="NAME[=N][,NAME...]", default=None,
                   help="run the attempts on these podman hosts (`podman system connection add`; `local` is this "
                        "machine), each with N attempts at once (default --parallel, else the server's slots "
                        "shared out); every host's sandbox is checked at start")
    p.set_defaults(func=cmd_run)

    p = verbs.add_parser("reference", help="a reference run: Pi applies each task's own solution (no model)",
                         description="Replay each selected task's reference solution (solution/) through Pi with a "
                                     "scripted stand-in for the model, in the real sandbox (diff, hidden "
                                     "verification, screenshots), and store it as a reference run: the site marks "
                                     "it as such on every page, never as a model's work. Graders see each "
                                     "frontend task's reference next to the models' attempts.", epilog=EPILOG)
    cliargs.add_results(p)
    _add_selection(p)
    p.add_argument("--name", default=None, help="the reference run's row name (default reference-solution)")
    p.add_argument("--rerun", action="store_true", help="start a new run instead of resuming")
    p.set_defaults(func=cmd_reference)

    p = verbs.add_parser("grade", help="record a 0-5 human grade for a manual task",
                         description="Record a human grade (0-5) for an attempt of a manual (frontend) task.")
    cliargs.add_results(p)
    p.add_argument("model", help="model name")
    p.add_argument("task", help="task id, e.g. frontend/kanban-board")
    p.add_argument("grade", type=int, help="0 to 5")
    p.add_argument("--attempt", type=cliargs.positive_int, default=1)
    p.add_argument("--note", default=None)
    p.set_defaults(func=cmd_grade)

    p = verbs.add_parser("review", help="accept or reject a held attempt (a pass that tripped the tamper checks)",
                         description="Decide on a held attempt: its tests passed, but its change trips the tamper "
                                     "checks, so it counts as not passed until a person looks at its flags and diff "
                                     "(on its attempt page). --accept counts it as what its tests earned, --reject "
                                     "as failed. The decision is stored beside the human grades and published; "
                                     "reviewing again changes it.")
    cliargs.add_results(p)
    p.add_argument("run_id", metavar="RUN", help="run id (see `bananabench runs` or the run page)")
    p.add_argument("task", help="task id, e.g. coding/python/lru-cache")
    p.add_argument("--attempt", type=cliargs.positive_int, default=1)
    decision = p.add_mutually_exclusive_group(required=True)
    decision.add_argument("--accept", dest="decision", action="store_const", const="accept",
                          help="the change is honest: count the attempt as its tests scored it")
    decision.add_argument("--reject", dest="decision", action="store_const", const="reject",
                          help="the change games the tests: count the attempt as failed")
    p.add_argument("--note", default=None, help="why (published with the decision)")
    p.set_defaults(func=cmd_review)

    p = verbs.add_parser("lint", help="check every task's category and tag scheme",
                         description="Load every task and check the category and tag scheme.")
    p.add_argument("--tasks-dir", metavar="DIR", default=None)
    p.set_defaults(func=cmd_lint)

    p = verbs.add_parser("validate", help="check that tasks fail on their start state and pass with their solution",
                         description="Each selected task must fail on its start state and pass with solution/, "
                                     "each side verified --runs times: every expected test proven fail-to-pass or "
                                     "pass-to-pass, none flaky, at least one fail-to-pass "
                                     "(manual tasks: their smoke check proven the same way, and the solution's "
                                     "page loads without errors). Uses podman; --native runs on the host WITHOUT isolation "
                                     "(trusted tasks only).")
    p.add_argument("globs", nargs="*", metavar="GLOB", help="task ids (globs); default all")
    p.add_argument("--tasks-dir", metavar="DIR", default=None)
    p.add_argument("--native", action="store_true", help="run on the host without podman (trusted tasks only)")
    p.add_argument("--image", default=None, help="sandbox image (podman mode)")
    p.add_argument("--json", action="store_true", help="print one JSON line per task (with per-test outcomes)")
    p.add_argument("--write-tests", action="store_true",
                   help="write the proven fail_to_pass / pass_to_pass tests (and the flaky ones left out) into "
                        "each task's [verify]")
    p.add_argument("--runs", type=cliargs.positive_int, default=3, metavar="N",
                   help="verify each side N times; a test whose outcome changes is flaky (default 3)")
    p.add_argument("--force", action="store_true",
                   help="validate tasks that the ledger (validated.json) holds as proven under today's code too")
    p.add_argument("--record", action="store_true",
                   help="write the results into the ledger (make validate-tasks does)")
    p.set_defaults(func=cmd_validate)

    p = verbs.add_parser("measure", help="measure real-issue tasks: fix size, repository size, tags, proven tests",
                         description="One line per task with a solution.patch: the project, the source files, "
                                     "lines and places its fix changes, the lines of source in its start state, the "
                                     "size and difficulty tags the rule gives (tasks/agent/README.md), the issue and "
                                     "fix dates, and the proven fail-to-pass, pass-to-pass and flaky test counts.")
    p.add_argument("globs", nargs="*", metavar="GLOB", help="task ids (globs); default all")
    p.add_argument("--tasks-dir", metavar="DIR", default=None)
    p.add_argument("--json", action="store_true", help="one JSON object per task")
    p.add_argument("--write-tags", action="store_true", help="set each task's size and difficulty tags by the rule")
    p.set_defaults(func=cmd_measure)

    p = verbs.add_parser("snapshot", help="(re)build a project's snapshot from a local clone",
                         description="Pack exactly the commits that the tasks pin in [repo] snapshot = OWNER+NAME "
                                     "(their trees, no history) from a local clone into the tasks root's "
                                     "repos/OWNER+NAME.pack.")
    p.add_argument("name", metavar="OWNER+NAME", help="the snapshot, as the tasks name it")
    p.add_argument("--from", dest="git_dir", required=True, metavar="GITDIR", help="a clone holding the commits")
    p.add_argument("--tasks-dir", metavar="DIR", default=None)
    p.set_defaults(func=cmd_snapshot)

    p = verbs.add_parser("backfill", help="recompute token and compaction metrics from saved event streams",
                         description="Recompute the event-derived metrics of agent attempts from their "
                                     "events.jsonl, then the run's scores.")
    cliargs.add_results(p)
    p.add_argument("--name", default=None, help="only this model's runs")
    p.add_argument("--run", dest="run_id", default=None, help="only this run")
    p.set_defaults(func=cmd_backfill)

    p = verbs.add_parser("build-image", help="build the sandbox image",
                         description="Build bananabench-agent:full from a Containerfile (needs a container "
                                     "registry) or, with --offline, the offline image: a tiny root file system "
                                     "that mounts the host's /usr read-only.")
    p.add_argument("--offline", action="store_true", help="build the offline image (no registry needed)")
    p.add_argument("--pi-version", default=None, help="install this Pi version instead of the pinned one")
    p.add_argument("--force", action="store_true", help="rebuild even if up to date")
    p.add_argument("--podman-connection", metavar="NAME", default=None,
                   help="build it on this podman host (`podman system connection add`) instead of this machine")
    p.set_defaults(func=cmd_build_image)

    if importlib.util.find_spec("evaluators.agent.corpus.importers") is not None:
        importlib.import_module("evaluators.agent.corpus.importers").register(verbs)


def _tasks(args) -> list:
    from evaluators.agent.corpus import datasets
    root = datasets.tasks_root(args.tasks_dir)
    return datasets.select(datasets.load_tasks(root), only=getattr(args, "only", []),
                           exclude=getattr(args, "exclude", []), categories=getattr(args, "categories", []),
                           tags=getattr(args, "tags", []))


def cmd_list(args) -> int:
    tasks = _tasks(args)
    for task in tasks:
        if args.json:
            print(json.dumps({"id": task.id, "title": task.title, "category": task.category, "tags": list(task.tags),
                              "grade": task.grade, "hash": task.hash}))
        else:
            print(f"{task.id:48s} {','.join(task.tags):32s} {task.title}{'  [manual]' if task.manual else ''}")
    if not args.json:
        print(f"{len(tasks)} task(s)", file=sys.stderr)
    return 0


def cmd_run(args) -> int:
    from evaluators.agent.attempts.run import AgentRunOptions, run_agent_benchmark

    summary = run_agent_benchmark(cliargs.options(AgentRunOptions, args))
    if summary.get("dry_run"):
        return 0
    _print_summary(summary)
    return 0


def cmd_reference(args) -> int:
    from evaluators.agent.attempts import replay
    from evaluators.store.store import Store

    summary = replay.run_reference(
        args.results, tasks_dir=args.tasks_dir, only=args.only, exclude=args.exclude, categories=args.categories,
        tags=args.tags, rerun=args.rerun, name=args.name or replay.NAME)
    _print_summary(summary)
    # A reference solution is honest work: each held one is a false positive of the tamper checks.
    attempts = Store(args.results).attempts(summary["run_id"])
    held = [a for a in attempts if a.status == HELD]
    print(f"  held           {len(held)} of {len(attempts)} (should be 0: each one is a tamper check to tune)")
    for a in held:
        print(f"    {a.item_id}: {'; '.join((a.extra or {}).get('tamper_flags') or [])[:300]}")
    return 0


def _print_summary(summary: dict) -> None:
    print(f"run {summary['run_id']}: artifacts in {summary['dir']}")
    for row in summary["scores"]:
        if row.scope == "overall" and row.metric in (Metric.SCORE, Metric.PASS_RATE, Metric.MANUAL_GRADE) or \
                row.metric.startswith("n_") and row.value:
            print(f"  {row.metric:14s} {row.value:.3f}" if row.metric[:2] != "n_" else
                  f"  {row.metric:14s} {int(row.value)}")


def cmd_grade(args) -> int:
    from evaluators.agent.attempts import metrics
    from evaluators.agent.attempts.run import BENCHMARK
    from evaluators.store import lookups
    from evaluators.store.store import Store

    if not 0 <= args.grade <= 5:
        raise BadInput(f"grade must be an integer from 0 to 5, not {args.grade}")
    store = Store(args.results)
    found = lookups.latest_attempt(store, args.model, BENCHMARK, args.task, args.attempt)
    if found is None:
        raise BadInput(f"no attempt {args.attempt} of {args.task} by model {args.model!r} in {store.path}")
    run_id, status, run_status = found
    if status != "manual":
        raise BadInput(f"{args.task} attempt {args.attempt} has status {status!r}; only manual tasks take grades")
    store.add_grade(args.model, args.task, args.attempt, args.grade, run_id=run_id, note=args.note)
    if run_status == RunStatus.FINISHED:
        store.replace_scores(run_id, metrics.compute_scores(store, run_id))
    print(f"graded {args.model} {args.task} attempt {args.attempt}: {args.grade}/5")
    return 0


def cmd_review(args) -> int:
    from evaluators.agent.attempts.review import review
    from evaluators.store.store import Store

    outcome = review(Store(args.results), args.run_id, args.task, args.attempt, args.decision, args.note)
    print(f"{args.task} attempt {args.attempt} of {args.run_id}: {args.decision}ed, now {outcome['status']}"
          + (f" (score {outcome['score']:g})" if outcome["score"] is not None else ""))
    return 0


def cmd_lint(args) -> int:
    from evaluators.agent.corpus import datasets, lint
    root = datasets.tasks_root(args.tasks_dir)
    problems = []
    tasks = []
    for directory in datasets.discover(root):
        try:
            tasks.append(datasets.load_task(directory, root))
        except BadInput as exc:
            problems.append(str(exc))
    problems += lint.lint(tasks)
    for problem in problems:
        print(problem)
    warnings = lint.warnings(tasks)
    for warning in warnings:
        print(f"warning: {warning}")
    quick = sum("quick" in t.tags for t in tasks)
    print(f"{len(tasks)} task(s), {quick} quick, {len(problems)} problem(s), {len(warnings)} warning(s)",
          file=sys.stderr)
    return 2 if problems else 0


def cmd_validate(args) -> int:
    from evaluators.agent.corpus import datasets
    from evaluators.agent.corpus import validate as v
    from evaluators.agent.corpus.ledger import Ledger

    root = datasets.tasks_root(args.tasks_dir)
    tasks = datasets.select(datasets.load_tasks(root), only=args.globs)
    if not tasks:
        raise BadInput(f"no task under {root} matches {args.globs}")
    ledger, sandbox = Ledger(root), "native" if args.native else "podman"
    held = [] if args.force else [t for t in tasks if ledger.holds(t, sandbox)]
    tasks = [t for t in tasks if t not in held]
    if held:
        print(f"{len(held)} task(s) proven in the ledger under today's code and toolchains, skipped "
              f"(--force validates them): {', '.join(t.id for t in held[:5])}{' ...' if len(held) > 5 else ''}",
              file=sys.stderr)
    if not tasks:
        print(f"{len(held)}/{len(held)} task(s) valid (ledger)", file=sys.stderr)
        return 0
    if args.native:
        print("validate --native: running task commands on this host WITHOUT isolation (trusted tasks only)",
              file=sys.stderr)
        runner, owner_ids = v.NativeRunner(), None
    else:
        from evaluators.agent.sandbox import image
        from evaluators.agent.sandbox import podman as pm
        from evaluators.agent.sandbox.containers import Sandbox

        podman = pm.require()
        box = Sandbox(podman, image.resolve(podman, args.image), owner=f"validate-{os.getpid()}")
        runner, owner_ids = v.PodmanRunner(box), podman.owner_ids()
    bad = 0
    for task in tasks:
        result = v.validate_task(task, runner, owner_ids, runs=args.runs)
        if args.write_tests and result.proof is not None:
            proof = v.write_tests(task, result)
            print(f"{task.id}: wrote {len(proof.fail_to_pass)} fail_to_pass, {len(proof.pass_to_pass)} pass_to_pass "
                  f"and {len(proof.flaky)} flaky test id(s) into [verify]", file=sys.stderr)
            task = datasets.load_task(task.dir, root)
            v.rejudge(task, result)
        bad += not result.ok
        if args.record:
            ledger.record(task, sandbox, result)
            ledger.save()
        if args.json:
            print(json.dumps(result.as_json()))
        else:
            print(f"{'ok  ' if result.ok else 'FAIL'} {task.id}: {result.describe()} ({result.seconds:.1f} s)")
            if not result.ok and result.solution is not None and not result.solution.passed:
                print("     solution verify output: " + result.solution.run.log.strip()[-600:].replace("\n", "\n     "))
    print(f"{len(tasks) - bad}/{len(tasks)} task(s) valid" + (f" (and {len(held)} in the ledger)" if held else ""),
          file=sys.stderr)
    return 2 if bad else 0


def cmd_measure(args) -> int:
    from collections import Counter

    from evaluators.agent.corpus import datasets, measure
    from evaluators.core import atomic
    root = datasets.tasks_root(args.tasks_dir)
    tasks = datasets.select(datasets.load_tasks(root), only=args.globs)
    rows, changed = [], 0
    for task in tasks:
        size = measure.measure(task)
        if size is None:
            continue
        rows.append(measure.row(task, size))
        tags = measure.expected_tags(task, size)
        if args.write_tags and tags != list(task.tags):
            path = task.dir / datasets.TASK_FILE
            atomic.write_text(path, measure.set_tags(path.read_text(encoding="utf-8"), tags), overwrite=True)
            changed += 1
    if not rows:
        raise BadInput(f"no task under {root} matching {args.globs or 'any id'} has a solution.patch to measure")
    if args.json:
        for r in rows:
            print(json.dumps(r))
    else:
        print(f"{'task':52s} {'project':30s} files lines places  repo  size  difficulty (tagged)  issue      fix"
              f"        f2p  p2p flaky")
        for r in rows:
            print(f"{r['task']:52s} {r['project']:30s} {r['files']:5d} {r['lines']:5d} {r['places']:6d} "
                  f"{r['repository'] / 1000:4.0f}k {r['size']:5s} {r['difficulty']:10s} ({r['tagged']:12s}) "
                  f"{r['issue_date'] or '?':10s} {r['fix_date'] or '?':10s} {r['fail_to_pass']:4d} "
                  f"{r['pass_to_pass']:4d} {r['flaky']:5d}")
        histogram = Counter(r["difficulty"] for r in rows)
        print("difficulty: " + ", ".join(f"{d} {histogram[d]}" for d in measure.DIFFICULTIES) + "; size: "
              + ", ".join(f"{s} {n}" for s, n in sorted(Counter(r["size"] for r in rows).items())))
    if args.write_tags:
        print(f"{changed} task(s) re-tagged", file=sys.stderr)
    return 0


def cmd_snapshot(args) -> int:
    from evaluators.agent.corpus import datasets, snapshots
    root = datasets.tasks_root(args.tasks_dir)
    if not datasets.SNAPSHOT_NAME.match(args.name):
        raise BadInput(f"OWNER+NAME: {args.name!r} is not of the form owner+name")
    dest = snapshots.path_of(root, args.name)
    made = snapshots.build(Path(args.git_dir), snapshots.pinned(datasets.load_tasks(root), args.name), dest)
    print(f"{dest}: {made['commits']} commit(s), {made['objects']} object(s), {made['bytes'] / 1024:.0f} KiB")
    return 0


def cmd_backfill(args) -> int:
    from evaluators.agent.attempts import metrics
    from evaluators.agent.attempts.run import BENCHMARK
    from evaluators.store.store import Store

    store = Store(args.results)
    runs = [r for r in store.runs(model=args.name, benchmark=BENCHMARK)
            if args.run_id is None or r.run_id == args.run_id]
    if not runs:
        raise BadInput("no agent run matches" + (f" run {args.run_id}" if args.run_id else "")
                       + (f" model {args.name}" if args.name else ""))
    for run in runs:
        n = metrics.backfill_run(store, run.run_id)
        print(f"{run.run_id}: {n} attempt(s) recomputed")
    return 0


def cmd_build_image(args) -> int:
    from evaluators.agent.sandbox import image
    from evaluators.agent.sandbox import podman as pm
    podman = pm.connect(args.podman_connection) if args.podman_connection else pm.require()
    if args.offline:
        built = image.build_offline(podman, pi_version=args.pi_version, force=args.force)
    else:
        built = image.build_full(podman, pi_version=args.pi_version)
    print(f"{built.name}: {built.kind} image, Pi {built.pi_version}, id {built.image_id[:12]}")
    return 0
