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
        g.add_argument("--config", type=_configs, default=[], metavar="C[,C...]",
                       help="frozen configurations, e.g. level1_countdown,level1_mathir (`modebench datasets list`)")
    g.add_argument("--split", choices=SPLITS, default="eval", help="frozen split (default eval)")
    g.add_argument("--data-root", metavar="DIR", default=None,
                   help="a local modebench data/ folder instead of the verified cache")
    g.add_argument("--cache-dir", metavar="DIR", default=None,
                   help="modebench's verified cache (default $XDG_CACHE_HOME/modebench)")
    g.add_argument("--offline", action="store_true", help="use only verified cached splits; never download")


def _add_evaluate_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("grading")
    g.add_argument("--run", dest="run_metadata", metavar="RUN.json", default=None,
                   help="modebench run metadata (model, generation, prompt_condition); default: "
                        "<input stem>.run.json beside a single input, as `generate` writes it")
    g.add_argument("--min-defined-prompts", type=cliargs.positive_int, default=30, metavar="N",
                   help="PCMD reporting threshold: cells with fewer eligible prompts are reportable=false (default 30)")
    g.add_argument("--workers", type=_workers, default=1, metavar="N",
                   help="isolated modebench verifier workers, 1-8 (default 1)")
    g.add_argument("--allow-partial", action="store_true",
                   help="grade a subset of a frozen split (the run is not official)")


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
    from evaluators import api

    outcome = api.evaluate_modes(
        args.inputs, name=args.name, results=args.results, configs=args.config, split=args.split,
        data_root=args.data_root, cache_dir=args.cache_dir, offline=args.offline,
        allow_partial=args.allow_partial, run_metadata=args.run_metadata,
        min_defined_prompts=args.min_defined_prompts, workers=args.workers, resume=args.resume,
    )
    _print_cells(outcome)
    return outcome.exit_code
