"""Benchmark specs: the format's checks (every key, file:line errors), record mapping, selection, and
`bananabench benchmarks list|show|validate`."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from evaluators.core.errors import BadInput
from evaluators.specs.records import select
from evaluators.specs.spec import SelectSpec, builtin_specs, load_spec, resolve
from evaluators.specs.spec_data import locate
from tests.conftest import REPO, run_cli

SAMPLES = REPO / "tasks" / "samples"

QUIZ = """\
id = "pub-quiz"
title = "Pub quiz"
version = "2"
evaluator = "chat"
headline = "accuracy"
description = "questions answered in words"

[data]
path = "quiz.jsonl"

[record]
id = "qid"
question = "Q: {{ prompt_text }}"
answer = "target"
category = "round"

[select]
per_category = 2

[scoring]
answer = "exact"
max_tokens = 64
"""


def write_spec(folder: Path, text: str = QUIZ, records: list[dict] | None = None) -> Path:
    spec = folder / "quiz.toml"
    spec.write_text(textwrap.dedent(text))
    rows = records if records is not None else [
        {"qid": f"q{i}", "prompt_text": f"What is {i} in words?", "target": f"number {i}", "round": f"r{i % 2}"}
        for i in range(5)]
    (folder / "quiz.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return spec


def error_of(fn, *args) -> str:
    with pytest.raises(BadInput) as info:
        fn(*args)
    return str(info.value)


def test_every_builtin_spec_parses_with_its_evaluator():
    from evaluators.benchmarks_cli import _evaluator

    specs = builtin_specs()
    assert {s.evaluator for s in specs} == {"loglik", "chat"}
    for spec in specs:
        module = _evaluator(spec)
        assert spec.headline in module.describe(module.parse(spec))["metrics"]


@pytest.mark.parametrize(("edit", "line", "needle"), [
    (lambda t: t.replace('version = "2"', 'version = 2'), 3, "version: must be a string, not an integer"),
    (lambda t: t.replace('headline = "accuracy"', 'headlines = "accuracy"'), 5, "headlines: unknown key; did you mean 'headline'"),
    (lambda t: t.replace('evaluator = "chat"', 'evaluator = "vibes"'), 4, "evaluator: must be one of loglik, chat"),
    (lambda t: t.replace('per_category = 2', 'per_category = 2\nfirst = 3'), 18, "select.per_category: choose one"),
    (lambda t: t.replace('answer = "exact"', 'answer = "essay"'), 21, "scoring.answer: must be one of letter"),
    (lambda t: t.replace('max_tokens = 64', 'max_token = 64'), 22, "scoring.max_token: unknown key"),
    (lambda t: t.replace('answer = "target"', 'answer = "target |"'), 14, "record.answer: not a valid expression"),
    (lambda t: t.replace('answer = "target"', 'reply = "target"'), 14, "record.reply: not an item field"),
    (lambda t: t.replace('headline = "accuracy"', 'headline = "f1"'), 5, "headline: a chat benchmark's headline"),
    (lambda t: t.replace('[select]', '[select\n'), 17, "not valid TOML"),
])
def test_spec_errors_name_file_line_and_key(tmp_path, edit, line, needle):
    spec = write_spec(tmp_path, edit(QUIZ))
    proc = run_cli("benchmarks", "validate", str(spec))
    assert proc.returncode == 2, proc.stderr
    assert f"quiz.toml:{line}: " in proc.stderr and needle in proc.stderr, proc.stderr


def test_record_errors_name_the_data_line_the_field_and_the_spec_line(tmp_path):
    rows = [{"qid": "a", "prompt_text": "x", "target": "y", "round": "r"},
            {"qid": "b", "prompt_text": "x", "round": "r"},
            {"qid": "c", "prompt_text": "x", "target": "y", "round": "r"}]
    spec = write_spec(tmp_path, records=rows)
    proc = run_cli("benchmarks", "validate", str(spec))
    assert proc.returncode == 2
    assert "quiz.jsonl:2: answer: the record has no such field" in proc.stderr
    assert "quiz.toml:14)" in proc.stderr
    rows[1] = {"qid": "a", "prompt_text": "x", "target": "y", "round": "r"}
    write_spec(tmp_path, records=rows)
    proc = run_cli("benchmarks", "validate", str(spec))
    assert proc.returncode == 2 and "quiz.jsonl:2: id: item 'a' appears twice (first on line 1)" in proc.stderr


def test_validate_maps_every_record_and_reports_official_status(tmp_path):
    spec = write_spec(tmp_path)
    proc = run_cli("benchmarks", "validate", str(spec))
    assert proc.returncode == 0, proc.stderr
    assert "every record mapped; 4 item(s) selected" in proc.stdout and "  official" in proc.stdout
    proc = run_cli("benchmarks", "validate", "gsm8k", "--data", str(SAMPLES / "chat"))
    assert proc.returncode == 0 and "10 item(s) selected" in proc.stdout and "non-official" in proc.stdout
    proc = run_cli("benchmarks", "validate", "base-bench", "--data", str(SAMPLES / "base-bench"))
    assert proc.returncode == 0 and "21 item(s)" in proc.stdout and "examples instead of 350" in proc.stdout


def test_mapping_expressions_templates_and_helpers(tmp_path):
    from evaluators.chat import spec as chat

    text = QUIZ.replace('answer = "target"', '''answer = \'\'\'target | regex('number (\\\\d+)')\'\'\'''')
    text = text.replace('id = "qid"', 'id = "round ~ \'/\' ~ content_id(prompt_text)"')
    task = chat.parse(load_spec(write_spec(tmp_path, text)))
    (data,) = locate(task.spec)
    items = chat.read_items(task, data)
    assert [i.gold for i in items] == ["0", "2", "1", "3"]  # grouped per round, 2 each
    assert items[0].question == "Q: What is 0 in words?" and items[0].item_id.startswith("r0/")
    assert len(items[0].item_id) == len("r0/") + 12


def test_selection_rules():
    items = [("a", "x"), ("b", "y"), ("c", "x"), ("d", "x"), ("e", "y")]
    cat = lambda item: item[1]  # noqa: E731
    assert select(items, SelectSpec(first=2), cat) == items[:2]
    assert select(items, SelectSpec(per_category=2), cat) == [("a", "x"), ("c", "x"), ("b", "y"), ("e", "y")]
    sampled = select(items, SelectSpec(sample=3, seed=42), cat)
    assert len(sampled) == 3 and sampled == sorted(sampled, key=items.index)  # file order kept
    assert sampled == select(items, SelectSpec(sample=3, seed=42), cat)
    assert select(items, SelectSpec(sample=9), cat) == items


def test_resolve_by_id_alias_or_file_and_by_evaluator(tmp_path):
    assert resolve("arc").id == "arc_challenge_chat" and resolve("arc_challenge_chat").builtin
    assert resolve(str(write_spec(tmp_path))).id == "pub-quiz"
    assert "unknown benchmark 'hellaswag'" in error_of(resolve, "hellaswag")
    assert "is a chat benchmark, not a loglik one" in error_of(resolve, "arc", "loglik")
    assert "no such file" in error_of(resolve, str(tmp_path / "missing.toml"))


def test_data_location_needs_data_or_a_spec_location(tmp_path):
    spec = resolve("base-evals")
    assert "base-evals needs --data" in error_of(locate, spec)
    assert "no split 'tiny_nope'" in error_of(locate, spec, str(SAMPLES / "base-evals"), None, ["tiny_nope"])
    assert len(locate(spec, str(SAMPLES / "base-evals"))) == 7
    assert "has no splits" in error_of(locate, resolve("arc"), str(SAMPLES / "chat"), None, ["x"])


def test_list_and_show():
    proc = run_cli("benchmarks", "list", "--json")
    assert proc.returncode == 0
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert {r["id"] for r in rows} == {s.id for s in builtin_specs()}
    proc = run_cli("benchmarks", "show", "mmlu", "--json")
    shown = json.loads(proc.stdout)
    assert shown["select"] == {"per_category": 2} and shown["scoring"]["answer"] == "letter"
    assert "Answer with one of" in shown["scoring"]["prompt"]  # the default template, resolved
    assert run_cli("benchmarks", "show", "nope").returncode == 2


LOGLIK = """\
id = "endings"
title = "Endings"
version = "1"
evaluator = "loglik"
headline = "acc"

[data]
path = "endings.jsonl"

[record]
context = "text"
choices = "endings"
answer = "right"

[scoring]
metrics = { acc = "sum" }
"""


@pytest.mark.parametrize(("edit", "line", "needle"), [
    (lambda t: t.replace('acc = "sum"', 'acc = "max"'), 16, "scoring.metrics: acc: the rule must be one of sum, mean"),
    (lambda t: t.replace('acc = "sum"', 'per_token = "mean"'), 16, "'per_token': use lower-case letters"),
    (lambda t: t.replace('acc = "sum"', 'elo = "mean"'), 16, "'elo' is reserved"),
    (lambda t: t.replace('headline = "acc"', 'headline = "elo"'), 5, "'elo' is not one of this benchmark's metrics"),
    (lambda t: t + 'weighted = true\n', 17, "scoring.weighted: needs record.weight"),
    (lambda t: t + '[build]\nseed = 1\nsample = 5\n', 17, "give [data] manifest"),
    (lambda t: t.replace('answer = "right"', 'answer = "right"\nquestion = "text"'), 14, "record.question: not an item"),
])
def test_loglik_spec_errors_name_file_line_and_key(tmp_path, edit, line, needle):
    spec = tmp_path / "endings.toml"
    spec.write_text(edit(LOGLIK))
    (tmp_path / "endings.jsonl").write_text(json.dumps({"text": "The sky is", "endings": [" blue", " loud"],
                                                        "right": 0}) + "\n")
    proc = run_cli("benchmarks", "validate", str(spec))
    assert proc.returncode == 2, proc.stderr
    assert f"endings.toml:{line}: " in proc.stderr and needle in proc.stderr, proc.stderr


def test_loglik_answers_by_index_letter_or_label(tmp_path):
    from evaluators.loglik.items import choice_index

    assert [choice_index(v, 4, None) for v in (2, "2", "c", " D ")] == [2, 2, 2, 3]
    assert choice_index("no", 2, ["yes", "no"]) == 1
    for bad, message in ((4, "must be 0 to 3"), (True, "not a boolean"), ("maybe", "not 'maybe'")):
        with pytest.raises(ValueError, match=message):
            choice_index(bad, 4, None)


def readme_specs() -> list[str]:
    """The TOML examples of docs/add-a-benchmark.md."""
    import re

    return re.findall(r"```toml\n(.*?)```", (REPO / "docs" / "add-a-benchmark.md").read_text(), re.S)


def test_the_readme_examples_are_valid_specs(tmp_path):
    loglik, chat = readme_specs()
    (tmp_path / "capitals.toml").write_text(loglik)
    (tmp_path / "conversions.toml").write_text(chat)
    (tmp_path / "capitals.jsonl").write_text("".join(json.dumps(
        {"qid": f"q{i}", "country": c, "options": [" Paris", " Rome", " Lima", " Oslo"], "correct": k,
         "continent": cont}) + "\n" for i, (c, k, cont) in enumerate(
        [("France", 0, "Europe"), ("Italy", 1, "Europe"), ("Peru", "C", "South America")])))
    (tmp_path / "conversions.jsonl").write_text(json.dumps(
        {"key": "k1", "amount": 1, "unit_from": "inch", "unit_to": "cm", "expected": "2.54"}) + "\n")
    for name, selected in (("capitals", 3), ("conversions", 1)):
        proc = run_cli("benchmarks", "validate", str(tmp_path / f"{name}.toml"))
        assert proc.returncode == 0, proc.stderr
        assert f"{selected} item(s) selected" in proc.stdout and "  official" in proc.stdout
    from evaluators.chat.extract import grade

    task = resolve(str(tmp_path / "conversions.toml"))
    pattern = task.scoring.data["pattern"]
    assert grade("regex", "1 inch is 2.54 cm, so:\n2.54", "", "2.54", "stop", pattern) == ("correct", "2.54")
