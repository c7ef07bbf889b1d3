"""Adding a benchmark is one file: a loglik spec and a chat spec, each with field names and an answer kind
no built-in benchmark uses, run end to end on the tiny model (transformers for loglik, llama.cpp's server
for chat) and found on the published site."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluators.specs.spec import builtin_specs
from evaluators.store.store import Store
from tests.conftest import run_cli

pytestmark = pytest.mark.slow

# Letters as answers, a JSON list of records, choices inside objects, a metric of its own name.
LOGLIK_SPEC = '''\
id = "pet-facts"
title = "Pet facts (one-file benchmark)"
version = "0.1"
evaluator = "loglik"
headline = "per_char"
description = "which ending a base model finds likeliest, judged per character"

[data]
path = "pet-facts.json"

[record]
id = "uid"
context = "'Fact: ' ~ stem"
choices = "options | map(attribute='text') | list"
answer = "gold"
category = "topic"

[scoring]
metrics = { per_char = "chars", token_mean = "mean" }
tokenization = "separate"
'''

# A regular-expression answer read from a reply, a prompt template and system prompt of its own.
CHAT_SPEC = '''\
id = "colour-quiz"
title = "Colour quiz (one-file benchmark)"
version = "0.1"
evaluator = "chat"
headline = "accuracy"

[data]
path = "colour-quiz.jsonl"

[record]
id = "key"
question = "prompt_text"
answer = "target | lower"
category = "kind"

[scoring]
answer = "regex"
pattern = '(?i)colou?r:\\s*([a-z]+)'
max_tokens = 24
system = "Reply with one line of the form 'Colour: <name>'."
prompt = "{{ question }}\\nAnswer in one word."
'''

FACTS = [
    {"uid": f"f{i}", "stem": stem, "topic": topic, "gold": gold,
     "options": [{"text": t.strip()} for t in options]}
    for i, (stem, topic, gold, options) in enumerate([
        ("Cats like to sleep in the", "cats", "A", [" sun.", " ocean.", " freezer.", " engine."]),
        ("Dogs wag their", "dogs", "B", [" ears loudly.", " tails.", " spoons.", " roofs."]),
        ("A goldfish lives in", "fish", "C", [" a tree.", " the desert.", " water.", " a cloud."]),
        ("Parrots can learn to", "birds", "D", [" drive.", " knit.", " swim upstream.", " talk."]),
        ("Kittens drink", "cats", "A", [" milk.", " gravel.", " ink.", " sand."]),
        ("Puppies love to", "dogs", "B", [" file taxes.", " play.", " rust.", " evaporate."]),
    ])]
COLOURS = [{"key": f"c{i}", "prompt_text": q, "target": t, "kind": k} for i, (q, t, k) in enumerate([
    ("What colour is the sky on a clear day?", "Blue", "nature"),
    ("What colour is fresh grass?", "Green", "nature"),
    ("What colour is a ripe banana?", "Yellow", "food"),
    ("What colour is snow?", "White", "nature"),
])]


def write(folder: Path) -> tuple[Path, Path]:
    loglik, chat = folder / "pet-facts.toml", folder / "colour-quiz.toml"
    loglik.write_text(LOGLIK_SPEC, encoding="utf-8")
    chat.write_text(CHAT_SPEC, encoding="utf-8")
    (folder / "pet-facts.json").write_text(json.dumps(FACTS), encoding="utf-8")
    (folder / "colour-quiz.jsonl").write_text("".join(json.dumps(r) + "\n" for r in COLOURS), encoding="utf-8")
    return loglik, chat


def test_the_specs_use_what_no_builtin_uses():
    builtin = builtin_specs()
    fields = {expr for s in builtin for expr in s.record.values()}
    assert not {"uid", "stem", "gold", "topic", "key", "prompt_text", "target | lower", "kind"} & fields
    kinds = {(s.evaluator, s.scoring.data.get("answer")) for s in builtin}
    assert ("chat", "regex") not in kinds
    assert all(s.data.format != "json" for s in builtin)


def test_one_file_benchmarks_run_end_to_end_and_are_published(tiny_model, tmp_path):
    from evaluators.models.llamacpp import LlamaServer

    loglik_spec, chat_spec = write(tmp_path)
    results, site = tmp_path / "results", tmp_path / "site"
    for spec in (loglik_spec, chat_spec):
        proc = run_cli("benchmarks", "validate", str(spec))
        assert proc.returncode == 0, proc.stderr
        assert "every record mapped" in proc.stdout and "official" in proc.stdout

    proc = run_cli("loglik", "run", "--bench", str(loglik_spec), "--model", tiny_model["path"], "--name", "tiny",
                   "--results", str(results), "--device", "cpu", "--dtype", "float32", "--threads", "1")
    assert proc.returncode == 0, proc.stderr
    assert "per_char" in proc.stdout and "token_mean" in proc.stdout

    with LlamaServer(tiny_model["gguf"], n_ctx=1024, parallel=1, alias="tiny", threads=1) as server:
        proc = run_cli("chat", "run", "--task", str(chat_spec), "--base-url", server.base_url, "--name", "tiny",
                       "--results", str(results), "--concurrency", "1")
    assert proc.returncode == 0, proc.stderr

    store = Store(results)
    runs = {r.benchmark: r for r in store.runs()}
    assert set(runs) == {"pet-facts", "colour-quiz"}
    assert all(r.status == "finished" and r.official for r in runs.values())
    facts = store.attempts(runs["pet-facts"].run_id)
    assert len(facts) == 6 and {a.category for a in facts} == {"cats", "dogs", "fish", "birds"}
    assert sorted({a.reference for a in facts}) == ["0", "1", "2", "3"]  # the letters, as positions
    assert all(isinstance(a.extra["correct_token_mean"], bool) for a in facts)
    scores = {(s.scope, s.key, s.metric) for s in store.scores(runs["pet-facts"].run_id)}
    assert {("overall", "", "per_char"), ("overall", "", "token_mean"), ("category", "dogs", "per_char")} <= scores
    quiz = store.attempts(runs["colour-quiz"].run_id)
    assert len(quiz) == 4 and {a.reference for a in quiz} == {"blue", "green", "yellow", "white"}

    proc = run_cli("publish", "--results", str(results), "--out", str(site))
    assert proc.returncode == 0, proc.stderr
    for bench, title in (("pet-facts", "Pet facts (one-file benchmark)"),
                         ("colour-quiz", "Colour quiz (one-file benchmark)")):
        page = site / "benchmarks" / f"{bench}.html"
        assert page.is_file(), sorted(p.name for p in (site / "benchmarks").iterdir())
        assert title in page.read_text(encoding="utf-8")
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "benchmarks/pet-facts.html" in index and "benchmarks/colour-quiz.html" in index
