"""Spec features for lm-eval-style benchmarks: few-shot examples, the target delimiter, per-choice contexts
(Winogrande), rolling log-likelihood (perplexity), and chat specs with several accepted answers and few-shot
turns. The windows, the perplexity aggregates and the few-shot text are compared with lm-eval's own code;
each kind of spec runs end to end on the tiny model into the store."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from evaluators.loglik.spec import load_benchmark, read_items
from evaluators.models import rolling
from evaluators.specs.spec_data import locate
from evaluators.store.store import Store
from tests.conftest import run_cli

HF = ("--device", "cpu", "--dtype", "float32", "--threads", "1")


def write_spec(folder: Path, name: str, spec: str, records: list[dict], data: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / (data or f"{name}.jsonl")).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    path = folder / f"{name}.toml"
    path.write_text(spec, encoding="utf-8")
    return path


def scoring(store: Store, run_id: str) -> dict:
    """The scoring part of a stored run's configuration (what its signature covers)."""
    return store.run(run_id).config["spec"]["scoring"]


def loglik(spec: Path, results: Path, *args: str) -> dict:
    proc = run_cli("loglik", "run", "--bench", str(spec), "--results", str(results), "--name", "tiny", "--json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["runs"][0]


# -- rolling windows and perplexity, against lm-eval's functions ---------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 7, 8, 9, 15, 16, 17, 40])
@pytest.mark.parametrize("max_length", [1, 2, 8])
def test_rolling_windows_are_lm_evals_disjoint_windows(n, max_length):
    from lm_eval.utils import get_rolling_token_windows, make_disjoint_window

    tokens = list(range(100, 100 + n))
    theirs = [make_disjoint_window(w) for w in get_rolling_token_windows(tokens, prefix_token=1,
                                                                          max_seq_len=max_length, context_len=1)]
    ours = rolling.windows(tokens, 1, max_length)
    assert [(list(r.context), list(r.continuation)) for r in ours] == [(list(a), list(b)) for a, b in theirs]
    assert [t for r in ours for t in r.continuation] == tokens  # every token predicted once
    assert all(len(r.context) + len(r.continuation) - 1 <= max_length for r in ours)


def test_perplexities_sum_over_documents_like_lm_eval():
    from lm_eval.api.metrics import bits_per_byte, weighted_perplexity

    docs = [(-120.5, "A short page .\n It has words ."), (-3000.25, "é " * 400), (-7.0, "one")]
    totals = rolling.Totals.of([(ll, text, 1) for ll, text in docs])
    words = [(ll, rolling.count_words(text)) for ll, text in docs]
    nbytes = [(ll, rolling.count_bytes(text)) for ll, text in docs]
    got = totals.metrics()
    assert got["word_perplexity"] == pytest.approx(weighted_perplexity(words), rel=1e-12)
    assert got["byte_perplexity"] == pytest.approx(weighted_perplexity(nbytes), rel=1e-12)
    assert got["bits_per_byte"] == pytest.approx(bits_per_byte(nbytes), rel=1e-12)
    mean_of_ratios = sum(math.exp(-ll / w) for ll, w in words) / len(words)
    assert not math.isclose(got["word_perplexity"], mean_of_ratios, rel_tol=1e-3)


# -- few-shot text, against lm-eval's ConfigurableTask ------------------------------------------------------

QA = [{"id": f"q{i}", "q": f"Question {i}: what is {i} plus one?", "choices": [str(i + 1), str(i + 2), str(i)],
       "label": i % 3} for i in range(12)]
WINO = [{"sentence": f"The {a} did not fit in the {b} because _ was too {adj}.", "option1": f"the {a}",
         "option2": f"the {b}", "answer": str(1 + i % 2)}
        for i, (a, b, adj) in enumerate([("trophy", "suitcase", "big"), ("ball", "box", "small"),
                                          ("cake", "tin", "wide"), ("book", "bag", "thick"),
                                          ("sofa", "door", "large"), ("pen", "cup", "long"),
                                          ("lamp", "crate", "tall"), ("bike", "shed", "wide")])]

QA_SPEC = """\
id = "qa-fewshot"
title = "QA"
version = "1"
evaluator = "loglik"
headline = "acc"

[data]
path = "qa-fewshot.jsonl"

[record]
id = "id"
context = "{{ q }}\\nAnswer:"
choices = "choices"
answer = "label"

[scoring]
metrics = { acc = "sum" }

[fewshot]
count = 3
"""

WINO_SPEC = """\
id = "wino"
title = "Winogrande-style"
version = "1"
evaluator = "loglik"
headline = "acc"

[data]
path = "wino.jsonl"

[record]
contexts = "[sentence[:sentence.index('_')] ~ option1, sentence[:sentence.index('_')] ~ option2]"
continuation = "sentence[sentence.index('_') + 1:] | trim"
answer = "(answer | int) - 1"

[scoring]
metrics = { acc = "sum" }
"""

WINO_LM_EVAL = {
    "doc_to_text": "{{answer | int - 1}}",
    "doc_to_choice": "{{[sentence[:sentence.index('_')] ~ option1, sentence[:sentence.index('_')] ~ option2]}}",
    "doc_to_target": "{{sentence[sentence.index('_') + 1:] | trim}}",
}


def lm_eval_task(data: Path, count: int, sampler: str | None = None, **templates):
    from lm_eval.api.task import ConfigurableTask

    config = {"task": "t", "dataset_path": "json", "dataset_kwargs": {"data_files": {"test": str(data)}},
              "test_split": "test", "fewshot_split": "test", "output_type": "multiple_choice", "num_fewshot": count,
              **({"fewshot_config": {"sampler": sampler}} if sampler else {}), **templates}
    task = ConfigurableTask(config=config)
    task.set_fewshot_seed(1234)
    return task


@pytest.mark.parametrize("sampler", ["random", "first"])
def test_fewshot_text_is_lm_evals(tmp_path, monkeypatch, sampler):
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "datasets"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    spec = QA_SPEC + ("" if sampler == "random" else 'sampler = "first"\n')
    bench = load_benchmark(str(write_spec(tmp_path, "qa-fewshot", spec, QA)))
    (data,) = locate(bench.spec)
    loaded = read_items(bench, data)
    task = lm_eval_task(data.path, 3, None if sampler == "random" else "first_n",
                        doc_to_text="{{q}}\nAnswer:", doc_to_choice="{{choices}}", doc_to_target="{{label}}")
    for item, doc in zip(loaded.items, task.test_docs(), strict=True):
        assert loaded.prefix(item.id) + item.context == task.fewshot_context(doc, 3)
        assert loaded.prefix(item.id).count("Answer: ") == 3 and item.context not in loaded.prefix(item.id)
    assert len({loaded.prefix(i.id) for i in loaded.items}) > 1


def test_per_choice_fewshot_contexts_are_lm_evals(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "datasets"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    bench = load_benchmark(str(write_spec(tmp_path, "wino", WINO_SPEC + "\n[fewshot]\ncount = 2\n", WINO)))
    (data,) = locate(bench.spec)
    loaded = read_items(bench, data)
    task = lm_eval_task(data.path, 2, **WINO_LM_EVAL)
    for item, doc in zip(loaded.items, task.test_docs(), strict=True):
        theirs = task.fewshot_context(doc, 2)
        assert [loaded.prefix(item.id) + item.context_of(k) for k in range(2)] == theirs
        assert task.doc_to_target(doc) == item.choices[0] == item.choices[1]


SPLIT_SPEC = """\
id = "evals-fewshot"
title = "base-evals with examples from another split"
version = "1"
evaluator = "loglik"
headline = "acc"

[data]
manifest = "manifest.json"
format = "parquet"

[record]
id = "id"
context = "context"
choices = "choices"
answer = "label"

[scoring]
metrics = { acc = "sum" }
target_delimiter = ""

[fewshot]
count = 2
split = "tiny_hellaswag"
delimiter = "\\n###\\n"
description = "Complete the text.\\n\\n"
"""


def test_fewshot_examples_from_another_split_of_a_manifest(tmp_path):
    from tests.conftest import REPO

    spec = tmp_path / "evals-fewshot.toml"
    spec.write_text(SPLIT_SPEC, encoding="utf-8")
    bench = load_benchmark(str(spec))
    folder = str(REPO / "tasks" / "samples" / "base-evals")
    (pool_file,) = locate(bench.spec, folder, splits=["tiny_hellaswag"])
    pool = {i.id: i for i in read_items(bench, pool_file).items}
    (data,) = locate(bench.spec, folder, splits=["tiny_pythonio"])
    loaded = read_items(bench, data)
    for item in loaded.items:
        prefix = loaded.prefix(item.id)
        assert prefix.startswith("Complete the text.\n\n") and prefix.count("\n###\n") == 2
        examples = prefix.removeprefix("Complete the text.\n\n").split("\n###\n")[:2]
        assert all(any(e == p.solved("") for p in pool.values()) for e in examples)
    assert loaded.fewshot_source["path"].endswith("tiny_hellaswag-00000-of-00001.parquet")
    assert loaded.fewshot_source["sha256"] == pool_file.sha256


# -- end to end on the tiny model ---------------------------------------------------------------------------

@pytest.mark.slow
def test_winogrande_style_spec_scores_one_continuation_after_each_context(tiny_model, tmp_path):
    spec = write_spec(tmp_path, "wino", WINO_SPEC, WINO)
    hf = loglik(spec, tmp_path / "results", "--model", tiny_model["path"], *HF)
    gguf = loglik(spec, tmp_path / "results", "--model", tiny_model["gguf"], "--backend", "gguf", "--name", "tiny-q",
                  "--threads", "1")
    store = Store(tmp_path / "results")
    assert all(run["official"] and run["n_scored"] == len(WINO) for run in (hf, gguf))
    hf_rep = json.loads((Path(hf["dir"]) / "report.json").read_text())
    gguf_rep = json.loads((Path(gguf["dir"]) / "report.json").read_text())
    for a, b in zip(hf_rep["items"], gguf_rep["items"], strict=True):
        assert [c["logprob_sum"] for c in a["choices"]] == pytest.approx([c["logprob_sum"] for c in b["choices"]],
                                                                           abs=1e-3)
        sums = [c["logprob_sum"] for c in a["choices"]]
        assert a["prediction"] == (0 if sums[0] >= sums[1] else 1)
        assert sums[0] != sums[1]  # the same continuation, scored after two different contexts
        assert a["choices"][0]["n_tokens"] == a["choices"][1]["n_tokens"]
    attempts = store.attempts(hf["run_id"])
    assert sorted(a.reference for a in attempts) == sorted(str(int(r["answer"]) - 1) for r in WINO)
    assert scoring(store, hf["run_id"])["target_delimiter"] == " "


ARC = [{"id": f"arc-{i}", "question": q, "choices": {"text": list(opts), "label": ["A", "B", "C", "D"]},
        "answerKey": "ABCD"[k]}
       for i, (q, opts, k) in enumerate([
           ("Which gas do plants take in?", ("oxygen", "carbon dioxide", "helium", "neon"), 1),
           ("What melts ice fastest?", ("salt", "sand", "paper", "wood"), 0),
           ("Which is a mammal?", ("shark", "trout", "whale", "squid"), 2),
           ("What does a thermometer measure?", ("mass", "length", "time", "temperature"), 3),
           ("Which planet is closest to the Sun?", ("Mercury", "Venus", "Earth", "Mars"), 0),
           ("What do bees make?", ("silk", "honey", "milk", "wax paper"), 1),
           ("Which is a renewable resource?", ("coal", "oil", "wind", "gas"), 2),
           ("What force pulls objects down?", ("magnetism", "friction", "tension", "gravity"), 3),
           ("Water boils at sea level at", ("100 C", "50 C", "0 C", "10 C"), 0),
           ("Which organ pumps blood?", ("lung", "heart", "liver", "skin"), 1),
           ("A baby frog is a", ("calf", "kid", "tadpole", "cub"), 2),
           ("Which is a conductor?", ("rubber", "glass", "wood", "copper"), 3),
       ])]

ARC_SPEC = """\
id = "arc-5shot"
title = "ARC-like, 5-shot"
version = "1"
evaluator = "loglik"
headline = "acc_norm"

[data]
path = "arc-5shot.jsonl"

[record]
id = "id"
context = "Question: {{ question }}\\nAnswer:"
choices = "choices.text"
choice_labels = "choices.label"
answer = "answerKey"

[scoring]
metrics = { acc_norm = "chars", acc = "sum" }

[fewshot]
count = 5
seed = 7
"""


@pytest.mark.slow
def test_five_shot_spec_runs_and_records_its_examples(tiny_model, tmp_path):
    five = write_spec(tmp_path / "five", "arc-5shot", ARC_SPEC, ARC)
    zero = write_spec(tmp_path / "zero", "arc-5shot", ARC_SPEC.split("[fewshot]")[0], ARC)
    results = tmp_path / "results"
    shot = loglik(five, results, "--model", tiny_model["path"], *HF)
    plain = loglik(zero, results, "--model", tiny_model["path"], *HF, "--name", "tiny-0")
    store = Store(results)
    assert scoring(store, shot["run_id"])["fewshot"] == {"count": 5, "source": "own records", "seed": 7, "sampler": "random",
                                            "delimiter": "\n\n", "description": ""}
    assert "fewshot" not in scoring(store, plain["run_id"])
    by_id = {a.item_id: a for a in store.attempts(shot["run_id"])}
    zero_by_id = {a.item_id: a for a in store.attempts(plain["run_id"])}
    assert len(by_id) == len(ARC) and all(a.status == "ok" for a in by_id.values())
    assert all(by_id[k].tokens_in > 4 * zero_by_id[k].tokens_in for k in by_id)  # five solved examples first
    rep = json.loads((Path(shot["dir"]) / "report.json").read_text())
    assert rep["official"] and rep["config"]["scoring"]["fewshot"]["count"] == 5

    from transformers import AutoTokenizer  # the scored context is exactly the few-shot text + the question

    tok = AutoTokenizer.from_pretrained(tiny_model["path"])
    bench = load_benchmark(str(five))
    loaded = read_items(bench, locate(bench.spec)[0])
    for item in loaded.items:
        text = loaded.prefix(item.id) + item.context
        assert text.count("\n\nQuestion: ") == 5 and text.endswith(item.context)
        assert by_id[item.id].tokens_in == len(tok(text, add_special_tokens=False)["input_ids"])


def wikitext(seed: int, words: int) -> str:
    """A wikitext-style page: a heading, then sentences of plain words (deterministic)."""
    import random

    rnd = random.Random(seed)
    vocab = ("the river city north built during century population market bridge station school church "
             "was is of and in to a by with from its which after railway castle museum park").split()
    body = []
    while sum(len(s.split()) for s in body) < words:
        body.append(" ".join(rnd.choice(vocab) for _ in range(rnd.randint(6, 14))).capitalize() + " .")
    return f" = Page {seed} = \n\n " + " ".join(body) + " \n"


PAGES = [{"title": f"Page {i}", "page": wikitext(i, n), "section": "long" if n > 100 else "short"}
         for i, n in enumerate((30, 60, 400))]

ROLLING_SPEC = """\
id = "wiki-ppl"
title = "Wikitext-style perplexity"
version = "1"
evaluator = "loglik"
headline = "word_perplexity"

[data]
path = "wiki-ppl.jsonl"

[record]
id = "title"
text = "page"
category = "section"

[scoring]
kind = "rolling"
"""


def reference_logliks(model_dir: str, max_length: int) -> list[float]:
    """Each page's log-likelihood: lm-eval's windows scored by transformers directly."""
    import torch
    from lm_eval.utils import get_rolling_token_windows, make_disjoint_window
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    out = []
    for page in PAGES:
        tokens = tok(page["page"], add_special_tokens=False)["input_ids"]
        total = 0.0
        for ctx, cont in map(make_disjoint_window, get_rolling_token_windows(tokens, tok.bos_token_id, max_length, 1)):
            ids = torch.tensor([(ctx + cont)[:-1]])
            with torch.no_grad():
                logprobs = torch.log_softmax(model(ids).logits[0].double(), dim=-1)
            rows = logprobs[len(ctx) - 1:]
            total += float(sum(rows[j, t] for j, t in enumerate(cont)))
        out.append(total)
    return out


@pytest.mark.slow
def test_perplexity_spec_runs_on_hf_and_gguf_and_is_published(tiny_model, tmp_path):
    spec = write_spec(tmp_path, "wiki-ppl", ROLLING_SPEC, PAGES)
    results = tmp_path / "results"
    hf = loglik(spec, results, "--model", tiny_model["path"], *HF)
    short = loglik(spec, results, "--model", tiny_model["gguf"], "--backend", "gguf", "--n-ctx", "256",
                   "--threads", "1", "--name", "tiny-gguf-256")
    store = Store(results)
    assert [scoring(store, run["run_id"])["max_length"] for run in (hf, short)] == [2048, 256]
    for run, max_length in ((hf, 2048), (short, 256)):
        attempts = {a.item_id: a for a in store.attempts(run["run_id"])}
        expected = reference_logliks(tiny_model["path"], max_length)
        got = [attempts[p["title"]].score for p in PAGES]
        assert got == pytest.approx(expected, abs=2e-3)
        windows = [attempts[p["title"]].extra["windows"] for p in PAGES]
        assert windows[0] == 1 and (windows[2] > 3) == (max_length == 256)
        scores = {(s.scope, s.key, s.metric): s for s in store.scores(run["run_id"])}
        totals = rolling.Totals.of([(attempts[p["title"]].score, p["page"], 1) for p in PAGES]).metrics()
        for metric, value in totals.items():
            assert scores[("overall", "", metric)].value == pytest.approx(value, rel=1e-9)
            assert scores[("overall", "", metric)].n == len(PAGES)
        assert ("category", "long", "bits_per_byte") in scores
    bench = store.query("SELECT higher_is_better FROM benchmarks WHERE benchmark = 'wiki-ppl'").rows
    assert bench == [(False,)]

    site = tmp_path / "site"
    proc = run_cli("publish", "--results", str(results), "--out", str(site))
    assert proc.returncode == 0, proc.stderr
    page = (site / "benchmarks" / "wiki-ppl.html").read_text(encoding="utf-8")
    assert "Wikitext-style perplexity" in page and "word perplexity" in page
    assert "benchmarks/wiki-ppl.html" in (site / "index.html").read_text(encoding="utf-8")


# -- chat: accepted answers and few-shot turns --------------------------------------------------------------

CAPITALS = [{"n": f"c{i}", "country": c, "capital": caps} for i, (c, caps) in enumerate([
    ("France", ["Paris", "City of Paris"]), ("Japan", ["Tokyo"]), ("Italy", ["Rome", "Roma"]),
    ("Peru", ["Lima"]), ("Kenya", ["Nairobi"])])]

CHAT_SPEC = """\
id = "capitals"
title = "Capitals"
version = "1"
evaluator = "chat"
headline = "accuracy"

[data]
path = "capitals.jsonl"

[record]
id = "n"
question = "What is the capital of {{ country }}?"
answer = "capital"

[scoring]
answer = "exact"

[fewshot]
count = 2
"""


@pytest.mark.slow
def test_chat_spec_with_fewshot_turns_and_several_accepted_answers(tmp_path):
    from tests.mock_openai import MockOpenAI, Reply, Rule

    spec = write_spec(tmp_path, "capitals", CHAT_SPEC, CAPITALS)
    rules = [Rule(match="France", reply=Reply(content="It is the City of Paris.\nThe answer is City of Paris")),
             Rule(match="Italy", reply=Reply(content="The answer is Roma")),
             Rule(match="Japan", reply=Reply(content="The answer is Kyoto"))]
    with MockOpenAI(rules=rules, default="The answer is Lima") as mock:
        proc = run_cli("chat", "run", "--task", str(spec), "--base-url", mock.base_url, "--name", "m",
                       "--results", str(tmp_path / "results"), "--concurrency", "1")
        asked = [r.body["messages"] for r in mock.generation_requests()]
    assert proc.returncode == 0, proc.stderr
    assert len(asked) == len(CAPITALS)
    for messages in asked:
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
        examples = [m["content"] for m in messages[1:5:2]]
        assert messages[-1]["content"] not in examples  # never its own example
        for question, reply in zip(messages[1:5:2], messages[2:5:2], strict=True):
            record = next(r for r in CAPITALS if r["country"] in question["content"])
            assert reply["content"] == f"The answer is {record['capital'][0]}."
    store = Store(tmp_path / "results")
    (run,) = store.runs()
    verdicts = {a.item_id: a.status for a in store.attempts(run.run_id)}
    assert verdicts == {"c0": "correct", "c1": "wrong", "c2": "correct", "c3": "correct", "c4": "wrong"}
    france = next(a for a in store.attempts(run.run_id) if a.item_id == "c0")
    assert france.reference == "Paris" and france.extra["accepted"] == ["Paris", "City of Paris"]
    assert scoring(store, run.run_id)["fewshot"]["count"] == 2


# -- bad input ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("base", "edit", "line", "needle"), [
    (QA_SPEC, lambda t: t.replace("count = 3", "count = 12"), 20, "fewshot.count: 12 examples per item"),
    (QA_SPEC, lambda t: t + 'split = "train"\n', 21, "fewshot.split: only a benchmark whose data is a manifest"),
    (QA_SPEC, lambda t: t + 'sampler = "first"\nseed = 3\n', 22, "fewshot.seed: a seed goes with sampler"),
    (QA_SPEC, lambda t: t + 'path = "missing.jsonl"\n', 21, "fewshot.path: "),
    (QA_SPEC, lambda t: t + 'sampler = "balanced"\n', 21, "fewshot.sampler: must be one of random, first"),
    (QA_SPEC, lambda t: t.replace('metrics = { acc = "sum" }', 'metrics = { acc = "sum" }\ntarget_delimiter = 1'),
     18, "scoring.target_delimiter: must be a string"),
    (WINO_SPEC, lambda t: t.replace('answer = "(answer', 'context = "sentence"\nanswer = "(answer'), 11,
     "record.contexts: per-choice contexts (contexts, continuation) replace context and choices"),
    (ROLLING_SPEC, lambda t: t + 'metrics = { acc = "sum" }\n', 17, "scoring.metrics: not for a rolling benchmark"),
    (ROLLING_SPEC, lambda t: t.replace('"word_perplexity"', '"acc"'), 5,
     "headline: 'acc' is not one of a rolling benchmark's metrics"),
    (ROLLING_SPEC, lambda t: t + '\n[fewshot]\ncount = 1\n', 18, "fewshot: a rolling benchmark scores whole"),
    (ROLLING_SPEC, lambda t: t.replace('text = "page"', 'context = "page"'), 12,
     "record.context: not an item field of a rolling loglik benchmark"),
    (CHAT_SPEC, lambda t: t.replace('answer = "exact"', 'answer = "regex"\npattern = "is (.+)"'), 20,
     "fewshot.count: a regex answer's few-shot replies need record.target"),
    (CHAT_SPEC, lambda t: t + 'delimiter = "\\n"\n', 20, "fewshot.delimiter: a chat benchmark's examples are"),
    (CHAT_SPEC, lambda t: t.replace('answer = "exact"', 'answer = "letter"\nanswer_separator = "|"'), 17,
     "scoring.answer_separator: splits the answer text"),
    (CHAT_SPEC, lambda t: t.split("[fewshot]")[0].replace('answer = "capital"', 'answer = "capital"\ntarget = "x"'),
     14, "record.target: a few-shot example's reply: give [fewshot] count too"),
])
def test_bad_specs_name_file_line_and_key(tmp_path, base, edit, line, needle):
    name = next(line.split('"')[1] for line in base.splitlines() if line.startswith("id = "))
    records = {QA_SPEC: QA, WINO_SPEC: WINO, ROLLING_SPEC: PAGES, CHAT_SPEC: CAPITALS}[base]
    spec = write_spec(tmp_path, name, edit(base), records)
    proc = run_cli("benchmarks", "validate", str(spec))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{spec}:{line}: {needle}" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_validate_warns_when_spaced_choices_meet_a_spaced_delimiter(tmp_path):
    spaced = [{**r, "choices": [" " + c for c in r["choices"]]} for r in QA]
    spec = write_spec(tmp_path, "qa-fewshot", QA_SPEC, spaced)
    proc = run_cli("benchmarks", "validate", str(spec))
    assert proc.returncode == 0, proc.stderr
    assert "12 of 12 items have choices starting with whitespace" in proc.stderr
    assert f"{spec}:16" in proc.stderr and "target_delimiter = \"\"" in proc.stderr
    spec.write_text(QA_SPEC.replace('metrics = { acc = "sum" }', 'metrics = { acc = "sum" }\ntarget_delimiter = ""'))
    proc = run_cli("benchmarks", "validate", str(spec))
    assert proc.returncode == 0 and "whitespace" not in proc.stderr
