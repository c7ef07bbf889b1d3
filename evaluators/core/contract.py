"""The contract between evaluators and `publish`: the words and keys written to the store and read back.

Evaluators write these into `runs.status`, `attempts.status`, `scores.metric`, `attempts.extra`,
`scores.extra` and `runs.extra`; `publish` and `report` read them. Both sides take them from here,
so a key cannot drift between the writer and the reader. Attempt statuses other than `ERROR` are an
evaluator's own words (shown as they are); `ERROR` alone means the same to every reader: the
infrastructure failed, so the attempt counts as neither right nor wrong.
"""

from __future__ import annotations

from typing import TypedDict


class RunStatus:
    """`runs.status`: a run is `running` until it finishes, fails, or is interrupted (resumable)."""

    RUNNING = "running"
    INTERRUPTED = "interrupted"
    FAILED = "failed"
    FINISHED = "finished"


# `attempts.status` of an infrastructure failure: excluded from every rate, retried by --resume.
ERROR = "error"
ERROR_STATUSES = (ERROR,)
# `attempts.status` of an attempt whose checks passed but whose change tripped the tamper checks: it counts as
# not passed (score 0, correct false) in every score until a person reviews it (`reviews` table); an accepted
# one becomes passed, a rejected one failed. Pages list held attempts apart, with their flags and diff.
HELD = "held"
# `attempts.status` that says only "scored" (loglik items): `correct` holds the verdict, shown as right/wrong.
SCORED_STATUS = "ok"


class Metric:
    """`scores.metric` names that readers treat specially (the rest are shown by name)."""

    ACCURACY = "accuracy"  # share of items answered correctly (chat; Base Bench's mean log-prob pick)
    ACC = "acc"  # choice benchmarks: the largest summed continuation log-prob is the pick
    ACC_NORM = "acc_norm"  # the largest mean log-prob per continuation token
    ACC_CHARS = "acc_chars"  # the largest log-prob per continuation character
    WEIGHTED_ACCURACY = "weighted_accuracy"  # accuracy with each item counted by its weight
    ELO = "elo"  # fixed-item rating fitted to the items' ratings and weights
    SCORE = "score"  # mean item score (agent tasks: 1 passed, partial credit, 0 otherwise)
    PASS_RATE = "pass_rate"
    PASS_AT_K = "pass_at_k"  # share of (item, group) pairs with any correct attempt
    DISTINCT_AT_K = "distinct_at_k"
    PCMD = "pcmd"
    MANUAL_GRADE = "manual_grade"  # human 0-5 grade
    N_REJECTED = "n_rejected"  # items that could not be scored (never counted as wrong)
    WORD_PERPLEXITY = "word_perplexity"  # rolling log-likelihood: exp(-sum loglik / sum words), lower is better
    BYTE_PERPLEXITY = "byte_perplexity"  # exp(-sum loglik / sum UTF-8 bytes)
    BITS_PER_BYTE = "bits_per_byte"  # -sum loglik / sum bytes / ln 2


# Metrics where a smaller value is the better result (a benchmark headlined by one says so in the store).
LOWER_IS_BETTER = frozenset({Metric.WORD_PERPLEXITY, Metric.BYTE_PERPLEXITY, Metric.BITS_PER_BYTE})


# Metrics with one right-or-wrong verdict per item: paired by exact McNemar.
VERDICT_METRICS = frozenset({Metric.ACCURACY, Metric.ACC, Metric.ACC_NORM, Metric.ACC_CHARS})


class AttemptKey:
    """Keys of `attempts.extra` that readers use; evaluators may add others (shown as they are)."""

    ITEM_ELO = "item_elo"  # the item's fixed rating: diffs refit the Elo on paired items
    POINT_WEIGHT = "point_weight"
    GROUP = "group"  # the attempt's group of k draws (pass@k is computed per group)
    SERVER_FINGERPRINT = "server_fingerprint"  # the server configuration that answered
    ERROR = "error"  # why the infrastructure failed
    REASON = "reason"  # why an item could not be scored
    ACCEPTED = "accepted"  # every answer graded as correct, when an item accepts several (the reference is the first)
    STUCK_REASON = "stuck_reason"
    RAW = "raw"  # the model's whole response
    REASONING = "reasoning"  # its thinking trace (never graded)
    # Agent attempts: content hash, title and tags of the task, tool calls, and files under the
    # results folder (relative paths): artifacts folder, screenshots {view: path}, checklist, app.
    TASK_HASH = "task_hash"
    TITLE = "title"
    TAGS = "tags"
    TOOL_CALLS_BY_NAME = "tool_calls_by_name"
    ARTIFACTS = "artifacts"
    SCREENSHOTS = "screenshots"
    CHECKLIST = "checklist"
    WORKSPACE = "workspace"
    APP = "app"
    HOST = "host"  # the podman host an agent attempt ran on
    VERDICT = "verdict"  # the grader's summary of the checks it ran
    ARTIFACT_ERRORS = "artifact_errors"  # files of the attempt that could not be produced
    # Agent attempts: the tamper flags (each one holds a pass), notes on changes grading never sees, the
    # changed paths (the first ones; `n_changed_paths` counts all), and what a held attempt had earned
    # ({"status", "score"}: what an accepting review gives it).
    TAMPER_FLAGS = "tamper_flags"
    N_TAMPER_FLAGS = "n_tamper_flags"  # all of them (`tamper_flags` keeps the first ones)
    TAMPER_NOTES = "tamper_notes"
    CHANGED_PATHS = "changed_paths"
    N_CHANGED_PATHS = "n_changed_paths"
    HELD = "held"
    REVIEW = "review"  # the person's decision on a held attempt: {"decision", "note", "at"}
    # Agent attempts on tasks with fail_to_pass / pass_to_pass tests (as SWE-bench reports them):
    # {"fixed": n, "fail_to_pass": m, "broke": k, "pass_to_pass": j}; words from `target_tests_words`.
    TARGET_TESTS = "target_tests"
    RANK = "rank"  # the torchrun rank that scored a loglik item (several processes only)
    VERDICT_PREFIX = "correct_"

    @staticmethod
    def verdict(metric: str) -> str:
        """`correct_<metric>`: an attempt's verdict under another metric's rule than its own `correct`."""
        return AttemptKey.VERDICT_PREFIX + metric


def target_tests_words(counts: dict) -> str:
    """"fixed 2 of 3 target tests, broke 1 of 170" from an attempt's `target_tests`."""
    return (f"fixed {counts['fixed']} of {counts['fail_to_pass']} target test{'s' if counts['fail_to_pass'] != 1 else ''}"
            f", broke {counts['broke']} of {counts['pass_to_pass']}")


# Keys of `attempts.extra` that describe the item, not the model's attempt at it (the prompt, its choices and
# metadata): the site publishes them once per benchmark version, beside each run's outcomes.
ITEM_KEYS = (
    AttemptKey.ITEM_ELO, AttemptKey.POINT_WEIGHT, "messages", "letters", "content_hash", "index", "context",
    "continuations", "choices", "problem", "level", "domain", "config", "cell", "k", "prompt_sha256",
    "reference_sha256",
)

# Keys of `attempts.extra` that say why an attempt has no verdict, in the order readers look.
MESSAGE_KEYS = (AttemptKey.ERROR, AttemptKey.STUCK_REASON, AttemptKey.REASON)


class CommonExtra(TypedDict, total=False):
    """`attempts.extra` keys any evaluator may write, meaning what `AttemptKey` says. Each evaluator declares its
    own extra on top of this (`AttemptExtra` in its package); readers take only declared keys."""

    error: str
    reason: str
    server_fingerprint: str
    raw: str
    reasoning: str | None


class ScoreKey:
    """Keys of `scores.extra`."""

    REPORTABLE = "reportable"  # False: the number must not be read as a result (shown with a mark)
    CI_METHOD = "ci_method"


class BenchmarkKey:
    """Keys of `benchmarks.extra`."""

    PRESENTATION = "presentation"  # what the site shows of its runs, declared by the evaluator (`core.presentation`)


class RunKey:
    """Keys of `runs.extra`."""

    OUT_DIR = "out_dir"  # the run's artifact folder
    REPORT = "report"  # its report file, relative to the results folder
    OFFICIAL_REASONS = "official_reasons"
    SERVER_FINGERPRINT = "server_fingerprint"
    # What a reference run is, in words (e.g. a task's own solution replayed): the site shows such a run as
    # a reference run on every page, never as a model's work.
    REFERENCE_RUN = "reference_run"
