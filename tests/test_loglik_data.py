"""Base Bench / base-evals data validation through their specs, and the offline base-evals build (no model
needed)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaluators.core.errors import BadInput
from evaluators.loglik import basebench
from evaluators.loglik.run import parse_bench
from evaluators.loglik.sources import build
from evaluators.loglik.spec import Items, load_benchmark, official_reasons, read_items
from evaluators.runs.runs import sha256_file
from evaluators.specs.spec_data import DataFile, locate
from tests.conftest import REPO, run_cli

SAMPLES = REPO / "tasks" / "samples"
CATS = [("language_completion", 1.0, (750, 850, 1000)), ("commonsense", 1.1, (800, 900, 1050)),
        ("world_knowledge", 1.1, (800, 900, 1050)), ("context_tracking", 1.2, (850, 950, 1100)),
        ("quantitative", 1.3, (900, 1000, 1150)), ("logical_reasoning", 1.35, (950, 1050, 1200)),
        ("code_completion", 1.4, (950, 1050, 1200))]


DIFFICULTIES = tuple(basebench.DIFFICULTY_WEIGHTS)


def official_shaped() -> list[dict]:
    """350 records with the official counts (7×50, 117/117/116, 88/88/87/87)."""
    records = []
    for i in range(350):
        name, weight, elos = CATS[i // 50]
        k = i % 3
        diff = DIFFICULTIES[k]
        records.append({"id": f"{name}-{i % 50 + 1:03d}", "version": "1.1", "category": name, "difficulty": diff,
                        "category_weight": weight, "difficulty_weight": basebench.DIFFICULTY_WEIGHTS[diff],
                        "item_elo": elos[k], "context": f"Context number {i} ends here",
                        "continuations": [" one.", " two.", " three.", " four."], "label": i % 4,
                        "score_mode": "mean_logprob", "tags": ["t"]})
    return records


def write(path: Path, records: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def load(name: str, path: Path, splits: list[str] | None = None) -> list[tuple[DataFile, Items, list[str]]]:
    """Each data file of the benchmark at `path`, its items, and why a run over it would not be official."""
    bench = load_benchmark(name)
    out = []
    for data in locate(bench.spec, str(path), splits=splits):
        items = read_items(bench, data)
        out.append((data, items, official_reasons(bench, items.items, data)))
    return out


def error_of(path: Path) -> str:
    with pytest.raises(BadInput) as info:
        load("base-bench", path)
    return str(info.value)


def test_sample_data_is_valid_and_marked_non_official():
    [(_data, items, reasons)] = load("base-bench", SAMPLES / "base-bench")
    assert len({i.category for i in items.items}) == 7
    assert any("SHA-256" in r for r in reasons) and any("examples instead of 350" in r for r in reasons)


def test_official_shaped_data_only_misses_the_checksum(tmp_path):
    [(data, items, reasons)] = load("base-bench", write(tmp_path / "data" / "test.jsonl", official_shaped()).parent.parent)
    assert data.path.name == "test.jsonl"
    assert len(reasons) == 1 and "not the official" in reasons[0]
    assert items.category_rows["commonsense"] == ["Commonsense", "World Knowledge"]
    assert items.category_rows["quantitative"] == ["Quantitative"]


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda r: r.__setitem__(2, '{"id": "x", "version": "1.1", "categ'), "test.jsonl:3: invalid JSON"),
    (lambda r: r[1].__setitem__("label", "1"), "test.jsonl:2: label: must be an integer, not a string"),
    (lambda r: r[1].__setitem__("label", True), "test.jsonl:2: label: must be an integer, not a boolean"),
    (lambda r: r[4].__setitem__("label", 4), "test.jsonl:5: label: must be 0 to 3, not 4"),
    (lambda r: r[3].__setitem__("id", r[0]["id"]), "test.jsonl:4: id: duplicate id 'language_completion-001' "
                                                   "(first on line 1)"),
    (lambda r: r[0]["continuations"].__setitem__(2, "three."), "test.jsonl:1: continuations[2]: must begin with "
                                                                "whitespace"),
    (lambda r: r[0].__setitem__("continuations", [" a", " b", " c"]), "test.jsonl:1: continuations: must hold 4"),
    (lambda r: r[6].pop("tags"), "test.jsonl:7: tags: missing field"),
    (lambda r: r[6].__setitem__("answer", 1), "test.jsonl:7: answer: unknown field"),
    (lambda r: r[0].__setitem__("version", "1.0"), "test.jsonl:1: version: must be '1.1'"),
    (lambda r: r[0].__setitem__("difficulty", "trivial"), "test.jsonl:1: difficulty: must be one of easy"),
    (lambda r: r[1].__setitem__("difficulty_weight", 2.0), "test.jsonl:2: difficulty_weight: must be 1.5"),
    (lambda r: r[0].__setitem__("context", ""), "test.jsonl:1: context: must not be empty"),
    (lambda r: r[0].__setitem__("score_mode", "sum"), "test.jsonl:1: score_mode: must be 'mean_logprob'"),
    (lambda r: r.__setitem__(0, "[1, 2]"), "test.jsonl:1: a record must be a JSON object"),
])
def test_schema_errors_name_file_line_and_field(tmp_path, mutate, expected):
    records = official_shaped()
    mutate(records)
    message = error_of(write(tmp_path / "test.jsonl", records))
    assert expected in message, message


def test_category_consistency_against_the_seed_table(tmp_path):
    records = official_shaped()
    records[60]["category_weight"] = 1.25
    assert "a.jsonl:61: category_weight: 1.25 differs from 1.1 on line 51" in error_of(
        write(tmp_path / "a.jsonl", records))

    records = official_shaped()
    for r in records[:50]:
        r["category_weight"] = 1.25
    assert "b.jsonl:1: category_weight: 1.25 matches no Base Bench 1.1 category weight" in error_of(
        write(tmp_path / "b.jsonl", records))

    records = official_shaped()
    records[3]["item_elo"] = 800  # an easy Commonsense Elo inside Language Completion
    assert "c.jsonl:4: item_elo: 800 is not the easy item Elo of a category with weight 1.0 (750)" in error_of(
        write(tmp_path / "c.jsonl", records))

    records = official_shaped()
    for r in records[150:200]:  # context_tracking pretends to be a third 1.1 category
        r["category_weight"] = 1.1
        r["item_elo"] = {"easy": 800, "medium": 900, "hard": 1050}[r["difficulty"]]
    assert "d.jsonl:151: category: 'context_tracking' is one category too many with weight 1.1" in error_of(
        write(tmp_path / "d.jsonl", records))


def test_non_utf8_names_line(tmp_path):
    path = write(tmp_path / "test.jsonl", official_shaped()[:3])
    raw = path.read_bytes().split(b"\n")
    raw[1] = raw[1].replace(b"Context", b"Cont\xffext")
    path.write_bytes(b"\n".join(raw))
    assert "test.jsonl:2: not valid UTF-8" in error_of(path)


def test_cli_validate_bad_data_exits_2_and_run_creates_nothing(tmp_path):
    records = official_shaped()
    records[9]["label"] = 7
    bad = write(tmp_path / "bad" / "data" / "test.jsonl", records)
    proc = run_cli("benchmarks", "validate", "base-bench", "--data", str(bad.parent.parent))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].endswith("test.jsonl:10: label: must be 0 to 3, not 7")
    results = tmp_path / "results"
    proc = run_cli("loglik", "run", "--bench", "base-bench", "--model", str(tmp_path / "no-model"),
                   "--local-data", str(bad), "--results", str(results))
    assert proc.returncode == 2, proc.stderr
    assert "test.jsonl:10: label" in proc.stderr
    assert not (results / "bananabench.duckdb").exists() and not (results / "runs").exists()


def test_cli_validate_reports_official_status():
    proc = run_cli("benchmarks", "validate", "base-bench", "--data", str(SAMPLES / "base-bench"))
    assert proc.returncode == 0, proc.stderr
    assert "21 item(s) selected" in proc.stdout and "non-official:" in proc.stdout


def test_parse_bench(tmp_path):
    assert parse_bench("base-bench") == ("base-bench", None)
    assert parse_bench("base-evals") == ("base-evals", None)
    assert parse_bench("base-evals:tiny_hellaswag,tiny_pythonio,tiny_hellaswag") == (
        "base-evals", ["tiny_hellaswag", "tiny_pythonio"])
    assert parse_bench("./my-bench.toml") == ("./my-bench.toml", None)
    assert parse_bench("specs/my-bench.toml:a,b") == ("specs/my-bench.toml", ["a", "b"])
    with pytest.raises(BadInput, match="empty split list"):
        parse_bench("base-evals:,")
    with pytest.raises(BadInput, match="unknown benchmark 'mmlu_base'"):
        load_benchmark("mmlu_base")
    with pytest.raises(BadInput, match="is a chat benchmark, not a loglik one"):
        load_benchmark("mmlu")
    with pytest.raises(BadInput, match="base-bench has no splits"):
        locate(load_benchmark("base-bench").spec, str(SAMPLES / "base-bench"), splits=["x"])


# -- base-evals folders and manifests -------------------------------------------------------------------

def test_sample_base_evals_verify_against_manifest():
    splits = load("base-evals", SAMPLES / "base-evals")
    assert [data.split for data, _, _ in splits] == list(load_benchmark("base-evals").build.sources)
    assert all(item.choices[0].startswith(" ") for _, items, _ in splits for item in items.items)


def _pinned_split(folder: Path, name: str, rows: int, revision: str | None = None) -> Path:
    """A base-evals folder with one split named `name`, `rows` rows, its manifest naming the pinned source."""
    source = load_benchmark("base-evals").build.sources[name]
    repo, pinned, source_split = source.repo, source.revision, source.source_split
    records = [{"id": f"{name}-{i:05d}", "context": f"Question {i}:", "choices": [" a", " b", " c", " d"],
                "label": i % 4} for i in range(rows)]
    path = folder / "data" / f"{name}-00000-of-00001.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(records), path)
    manifest = {"format": "bananabench.base-evals.manifest/1", "splits": {name: {
        "path": path.relative_to(folder).as_posix(), "sha256": sha256_file(path), "rows": rows,
        "source": {"repo": repo, "revision": revision or pinned, "split": source_split}}}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def test_base_evals_official_needs_the_pinned_source_and_the_full_split(tmp_path):
    """Official is what the base-evals source defines (pinned revisions, 500-row splits), not any manifest
    that agrees with its own files."""
    for data, items, reasons in load("base-evals", SAMPLES / "base-evals"):
        assert reasons == [f"{len(items.items)} rows, not the 500 of the official {data.split} split"]
    [(_, _, reasons)] = load("base-evals", _pinned_split(tmp_path / "full", "tiny_hellaswag", 500))
    assert reasons == []
    [(_, _, reasons)] = load("base-evals", _pinned_split(tmp_path / "moved", "tiny_hellaswag", 500, revision="main"))
    assert reasons == ["source Rowan/hellaswag@main, not the pinned "
                       "Rowan/hellaswag@218ec52e09a7e7462a5400043bb9a69a41d06b76"]
    folder = tmp_path / "custom"
    _pinned_split(folder, "tiny_logicmark", 500)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["splits"] = {"tiny_custom": {k: v for k, v in manifest["splits"]["tiny_logicmark"].items()
                                          if k != "source"}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    [(_, _, reasons)] = load("base-evals", folder)
    assert reasons == ["tiny_custom is not one of the 7 base-evals splits"]
    proc = run_cli("benchmarks", "validate", "base-evals", "--data", str(SAMPLES / "base-evals"))
    assert proc.returncode == 0 and "non-official: 5 rows, not the 500 of the official tiny_arithmark_2_0" in proc.stdout


def test_manifest_mismatches_are_bad_input(tmp_path):
    folder = tmp_path / "evals"
    shutil.copytree(SAMPLES / "base-evals", folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["splits"]["tiny_hellaswag"]["rows"] = 4
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BadInput, match=r"manifest.json: splits.tiny_hellaswag.rows: .* has 3 rows, the manifest says 4"):
        load("base-evals", folder, ["tiny_hellaswag"])
    with pytest.raises(BadInput, match="no split 'tiny_mmlu'"):
        load("base-evals", folder, ["tiny_mmlu"])
    table = pq.read_table(folder / manifest["splits"]["tiny_pythonio"]["path"]).to_pylist()
    table[1]["label"] = 9
    pq.write_table(pa.Table.from_pylist(table), folder / manifest["splits"]["tiny_pythonio"]["path"])
    with pytest.raises(BadInput, match="splits.tiny_pythonio.sha256: .* the manifest says"):
        load("base-evals", folder, ["tiny_pythonio"])
    manifest["splits"]["tiny_pythonio"]["sha256"] = sha256_file(folder / manifest["splits"]["tiny_pythonio"]["path"])
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BadInput, match=r"tiny_pythonio-00000-of-00001.parquet:2: answer: must be 0 to 3, not 9"):
        load("base-evals", folder, ["tiny_pythonio"])
    (folder / "manifest.json").unlink()
    proc = run_cli("benchmarks", "validate", "base-evals", "--data", str(folder))
    assert proc.returncode == 2 and "no manifest.json" in proc.stderr


# -- the offline build ------------------------------------------------------------------------------------

BASE_EVALS = load_benchmark("base-evals")


def big_arithmark(root: Path, n: int = 640) -> list[dict]:
    rng = random.Random(7)
    rows = []
    for i in range(n):
        a, b = rng.randint(1, 99), rng.randint(1, 99)
        n_opts = 3 if i % 17 == 0 else 6 if i % 5 == 0 else 4
        opts = [float(a + b + d) for d in range(n_opts)]
        rng.shuffle(opts)
        rows.append({"id": f"m{i}", "expression": f"{a} + {b} =", "options": opts,
                     "answer_index": opts.index(float(a + b)), "answer": float(a + b)})
    path = root / "AxiomicLabs" / "ArithMark-2.0" / "data" / "train-00000-of-00001.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return rows


def test_build_samples_500_with_random_42_and_keeps_answers(tmp_path):
    rows = big_arithmark(tmp_path / "src")
    manifest = build.build(BASE_EVALS, tmp_path / "src", tmp_path / "out", splits=["tiny_arithmark_2_0"])
    entry = manifest["splits"]["tiny_arithmark_2_0"]
    pool = [i for i, r in enumerate(rows) if len(r["options"]) >= 4]
    rng = random.Random(42)
    expected = [pool[k] for k in sorted(rng.sample(range(len(pool)), 500))]
    assert entry["rows"] == 500 and entry["source"]["indices"] == expected
    assert entry["source"]["excluded"]["fewer_than_4_choices"] == len(rows) - len(pool)
    built = pq.read_table(tmp_path / "out" / entry["path"]).to_pylist()
    assert [b["id"] for b in built] == [f"tiny_arithmark_2_0-{i:05d}" for i in expected]
    for b, src_index in zip(built, expected, strict=True):
        src = rows[src_index]
        assert len(b["choices"]) == 4
        answer = int(src["answer"])
        assert b["choices"][b["label"]] == f" {answer}"
        kept = entry["source"]["kept_choices"].get(str(src_index))
        if len(src["options"]) > 4:
            assert kept == sorted(kept) and src["answer_index"] in kept
        else:
            assert kept is None
    assert load("base-evals", tmp_path / "out")[0][0].sha256 == entry["sha256"]


def test_build_is_deterministic_and_applies_source_rules(tmp_path):
    src = SAMPLES / "base-evals-sources"
    first = build.build(BASE_EVALS, src, tmp_path / "a")
    second = build.build(BASE_EVALS, src, tmp_path / "b")
    assert {k: v["sha256"] for k, v in first["splits"].items()} == {k: v["sha256"] for k, v in second["splits"].items()}
    # The committed sample splits are exactly what the build produces.
    committed = json.loads((SAMPLES / "base-evals" / "manifest.json").read_text())
    assert {k: v["sha256"] for k, v in committed["splits"].items()} == {
        k: v["sha256"] for k, v in first["splits"].items()}
    a3 = first["splits"]["tiny_arithmark_3_0"]["source"]
    assert a3["excluded"]["rule"] == 1 and 2 not in a3["indices"]  # time_session without a duration
    splits = {data.split: items for data, items, _ in load("base-evals", tmp_path / "a")}
    assert all("EXTRA" not in i.context for i in splits["tiny_openbookqa"].items)  # the main config
    assert splits["tiny_truthfulqa"].items[0].context.startswith("Q: ") and splits["tiny_truthfulqa"].items[0].context.endswith("\nA:")
    py = splits["tiny_pythonio"].items
    assert py[0].context == "Input: print(2 + 3)\nOutput:" and py[0].choices[0] == " 5"
    assert "\r" not in "".join(i.context for i in py)
    hs = splits["tiny_hellaswag"].items[0]
    assert hs.context == "Baking cookies: A woman pours flour into a bowl. She"
    assert (tmp_path / "a" / "sources" / "Rowan" / "hellaswag" / "README.md").is_file()
    for name, split in splits.items():
        assert all(not i.context[-1].isspace() for i in split.items)
        assert all(c.startswith(" ") and not c.startswith("  ") for i in split.items for c in i.choices
                   if name != "tiny_pythonio")


def test_build_reads_sources_inside_a_path_that_contains_a_cache_folder(tmp_path):
    """Only `.cache` folders inside a source repo are skipped, not one above the checkout (e.g. ~/.cache/...)."""
    sources = tmp_path / ".cache" / "checkout" / "sources"
    shutil.copytree(SAMPLES / "base-evals-sources", sources)
    (sources / "Rowan" / "hellaswag" / ".cache").mkdir()
    (sources / "Rowan" / "hellaswag" / ".cache" / "validation-stale.jsonl").write_text('{"not": "a row"}\n')
    built = build.build(BASE_EVALS, sources, tmp_path / "out")
    committed = json.loads((SAMPLES / "base-evals" / "manifest.json").read_text())
    assert {k: v["sha256"] for k, v in built["splits"].items()} == {
        k: v["sha256"] for k, v in committed["splits"].items()}


def test_build_refuses_non_empty_output_and_missing_sources(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x").write_text("keep")
    proc = run_cli("loglik", "build", "base-evals", "--sources", str(SAMPLES / "base-evals-sources"),
                   "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "not empty" in proc.stderr
    proc = run_cli("loglik", "build", "base-evals", "--sources", str(tmp_path / "out"), "--out", str(tmp_path / "o2"))
    assert proc.returncode == 2 and "no local copy of AxiomicLabs/ArithMark-2.0" in proc.stderr
    assert not (tmp_path / "o2").exists()
