"""`bananabench modes generate|evaluate|run`: sample k answers per ModeBench task, grade them, store every attempt."""

from __future__ import annotations

import argparse
import sys

from evaluators.core import cliargs

SPLITS = ("train", "dev", "eval")


def _configs(text: str) -> list[str]:
    configs = [c.strip() for c in text.split(",") if c.strip()]
    if not configs:
        raise argparse.ArgumentTypeError("expected one or more configuration names, e.g. level1_countdown")
    return configs


def _workers(text: str) -> int:
    value = cliargs.positive_int(text)
    if value > 8:
        raise argparse.ArgumentTypeError("modebench runs 1 to 8 verifier workers")
    return value


def _probability(text: str) -> float:
    value = cliargs.non_negative_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}")
    return value


def _add_frozen(p: argparse.ArgumentParser, *, with_config: bool) -> None:
    g = p.add_argument_group("frozen ModeBench splits (need `pip install 'bananabench[modes-data]'`)")
    if with_config:
        g.add_argument("--config", dest="configs", type=_configs, default=[], metavar="C[,C...]",
                       help="frozen configurations, e.g. level1_countdown,level1_mathir (`modebench datasets list`)")
    g.add_argument("--split", choices=SPLITS, default="eval", help="frozen split (default eval)")
    g.add_argument("--data-root", metavar="DIR", default=None,
                   help="a local modebench data/ folder instead of the verified cache")
    g.add_argument("--cache-dir", metavar="DIR", default=None,
                   help="modebench's verified cache (default $XDG_CACHE_HOME/modebench)")
    g.add_argument("--offline", action="store_true", help="use only verified cached splits; never download")


def _add_evaluate_options(p: argparse.ArgumentParser, *, with_run: bool = True) -> None:
    g = p.add_argument_group("grading")
    if with_run:
        g.add_argument("--run", dest="run_metadata", metavar="RUN.json", default=None,
                       help="modebench run metadata (model, generation, prompt_condition); default: "
                            "<input stem>.run.json beside a single input, as `generate` writes it")
    g.add_argument("--min-defined-prompts", type=cliargs.positive_int, default=30, metavar="N",
                   help="PCMD reporting threshold: cells with fewer eligible prompts are reportable=false (default 30)")
    g.add_argument("--workers", type=_workers, default=1, metavar="N",
                   help="isolated modebench verifier workers, 1-8 (default 1)")
    g.add_argument("--allow-partial", action="store_true",
                   help="grade a subset of a frozen split (the run is not official)")
    g.add_argument("--benchmark", dest="benchmark_name", metavar="NAME", default=None,
                   help="custom tasks: the name the site and reports show (default: the tasks or input file's stem; "
                        "the task set's hash stays in the run's signature)")


def _add_generate_options(p: argparse.ArgumentParser, *, out_required: bool) -> None:
    src = p.add_argument_group("tasks (one of)")
    tasks = src.add_mutually_exclusive_group(required=True)
    tasks.add_argument("--config", dest="configs", type=_configs, default=None, metavar="C[,C...]",
                       help="frozen configurations, e.g. level1_countdown,level1_mathir (`modebench datasets list`)")
    tasks.add_argument("--input", metavar="TASKS.jsonl", default=None,
                       help="custom task records {id, level, domain, problem, answer}, one per line")
    m = p.add_argument_group("model (one of --base-url and --model)")
    model = m.add_mutually_exclusive_group(required=True)
    model.add_argument("--model", metavar="PATH", default=None,
                       help="a local transformers model folder or hub id: sampled with transformers (needs [hf])")
    m.add_argument("--device", default=None, help="torch device for --model: cpu, cuda, cuda:N or auto (default auto)")
    m.add_argument("--dtype", default=None, choices=("float32", "bfloat16", "float16"),
                   help="torch dtype for --model (default float32)")
    cliargs.add_server(p, base_url_in=model)
    s = p.add_argument_group("sampling")
    s.add_argument("--k", type=cliargs.positive_int, default=8, help="draws per group (default 8)")
    s.add_argument("--groups", type=cliargs.positive_int, default=4,
                   help="independent groups of k draws per prompt (default 4; scores average over groups)")
    s.add_argument("--temperature", type=cliargs.non_negative_float, default=1.0, help="default 1")
    s.add_argument("--top-p", type=_probability, default=1.0, help="default 1")
    s.add_argument("--max-tokens", type=cliargs.positive_int, default=192, help="default 192")
    s.add_argument("--seed", type=int, default=0,
                   help="base seed: draw i of a prompt (counted from 0 across its groups) uses seed + i (default 0)")
    s.add_argument("--prompt-condition", choices=("registered_hints_v1", "python_level3_neutral_v1"),
                   default="registered_hints_v1", help="modebench prompt condition (default registered_hints_v1)")
    s.add_argument("--on-draw-error", choices=("stop", "empty"), default="stop",
                   help="a draw whose generation failed after retries: stop (exit 3; --resume retries it) or "
                        "empty (keep it as an empty response, graded malformed; declared in the run metadata)")
    s.add_argument("--limit", type=cliargs.positive_int, default=None, metavar="N",
                   help="only the first N tasks (a frozen split is then graded with --allow-partial)")
    p.add_argument("--out", metavar="RESPONSES.jsonl", required=out_required, default=None,
                   help="responses file to write (never overwritten); its run metadata goes to RESPONSES.run.json"
                   + ("" if out_required else " (default: RESULTS/modes-generations/NAME-<hash>.jsonl)"))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("modes", help="ModeBench: several correct solutions per problem? (solution diversity)",
                       description="Generate k answers per ModeBench task from a model, grade them with the "
                                   "modebench package and store every attempt and the per-cell accuracy, pass@k, "
                                   "distinct@k and PCMD.")
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)

    e = verbs.add_parser(
        "evaluate", help="grade saved responses with modebench and store every attempt",
        description="Grade saved responses with modebench.api.evaluate_file and ingest the receipts and journals. "
                    "INPUT is a file written by `bananabench modes generate` (its records carry `group`), or one "
                    "or more plain modebench response files, one per group. Exit 0 when modebench completed, "
                    "2 for bad input (nothing stored), 3 when modebench's evaluation failed (attempts stored, "
                    "no aggregate numbers).")
    e.add_argument("inputs", nargs="+", metavar="INPUT.jsonl", help="saved responses (several files = several groups)")
    cliargs.add_name(e)
    cliargs.add_results(e)
    cliargs.add_resume(e)
    _add_frozen(e, with_config=True)
    _add_evaluate_options(e)
    e.set_defaults(func=cmd_evaluate)

    g = verbs.add_parser(
        "generate", help="sample k draws x groups per task from a server or a local model",
        description="Sample --k draws in each of --groups groups per ModeBench task (prompts from "
                    "modebench.api.make_prompt; the answer never reaches the model), each draw with its own seed. "
                    "Writes RESPONSES.jsonl (one line per prompt and group: graded texts plus every raw draw) and "
                    "RESPONSES.run.json (modebench run metadata). Resumable per prompt and group with --resume.")
    _add_generate_options(g, out_required=True)
    cliargs.add_name(g)
    g.add_argument("--resume", action="store_true", help="continue an interrupted generation of --out")
    _add_frozen(g, with_config=False)
    g.set_defaults(func=cmd_generate)

    r = verbs.add_parser(
        "run", help="generate, then evaluate and store (one command)",
        description="`generate` followed by `evaluate` of what it wrote. --resume continues either phase.")
    _add_generate_options(r, out_required=False)
    cliargs.add_name(r)
    cliargs.add_results(r)
    cliargs.add_resume(r)
    _add_frozen(r, with_config=False)
    _add_evaluate_options(r, with_run=False)
    r.set_defaults(func=cmd_run)


def _print_cells(outcome, stream=None) -> None:
    stream = stream or sys.stdout
    print(f"run {outcome.run_id}: modebench evaluation {outcome.status}; {outcome.attempts} attempts stored",
          file=stream)
    if outcome.reason:
        print(outcome.reason, file=stream)
        return
    print("level domain             k  groups accuracy pass@k distinct@k PCMD    reportable", file=stream)

    def fmt(value):
        return "null" if value is None else f"{value:.4g}"

    for cell in outcome.cells:
        print(f"{cell.level:<5} {cell.domain:<18} {cell.k:<2} {cell.groups:<6} {fmt(cell.accuracy):<8} "
              f"{fmt(cell.pass_at_k):<6} {fmt(cell.distinct_at_k):<10} {fmt(cell.pcmd.get('d_mode')):<7} "
              f"{str(cell.reportable).lower()}", file=stream)
    if any(not c.reportable for c in outcome.cells):
        print("reportable=false: fewer eligible prompts than the PCMD threshold; do not read PCMD as a result.",
              file=stream)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from evaluators.modes.run import EvaluateOptions, evaluate

    outcome = evaluate(cliargs.options(EvaluateOptions, args))
    _print_cells(outcome)
    return outcome.exit_code


def cmd_generate(args: argparse.Namespace) -> int:
    from evaluators.modes.datasets import TaskSource
    from evaluators.modes.generate import GenerateOptions, ModelSource
    from evaluators.modes.run import generate_responses

    summary = generate_responses(cliargs.options(TaskSource, args), cliargs.options(ModelSource, args),
                                 cliargs.options(GenerateOptions, args))
    print(f"wrote {summary.out} ({summary.prompts} prompts x {summary.groups} groups, {summary.draws} draws, "
          f"{summary.failed_draws} failed) and {summary.run_metadata}")
    print(f"next: bananabench modes evaluate {summary.out}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from evaluators.modes.run import RunOptions, generate_and_evaluate

    outcome = generate_and_evaluate(cliargs.options(RunOptions, args))
    _print_cells(outcome)
    return outcome.exit_code
