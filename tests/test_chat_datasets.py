"""Chat task data: validation with located errors, ARC label normalisation, the fixed selections."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaluators.chat.datasets import (
    SAMPLES_DIR,
    TASKS,
    item_from_record,
    load_task,
    local_file,
    select,
    task_names,
)
from evaluators.core.errors import BadInput


def test_sample_files_load_for_every_task():
    arc = load_task("arc", data=SAMPLES_DIR)
    mmlu = load_task("mmlu", data=SAMPLES_DIR)
    gsm = load_task("gsm8k", data=SAMPLES_DIR)
    assert len(arc.items) == 12 and len(gsm.items) == 10
    # MMLU: the first 2 of each subject, subjects in file order
    assert [i.category for i in mmlu.items] == ["astronomy"] * 2 + ["college_mathematics"] * 2 + \
        ["high_school_geography"] * 2 + ["world_religions"] * 2
    assert not arc.official_source and arc.source["kind"] == "local"
    assert arc.version.startswith("local:") and len(arc.dataset_sha256) == 64
    assert load_task("arc", data=SAMPLES_DIR, limit=3).items == arc.items[:3]


def test_arc_numeric_labels_and_option_counts_become_letters():
    items = {i.item_id: i for i in load_task("arc", data=SAMPLES_DIR).items}
    renewable = items["Sample_ARC_003"]  # labels 1-4, key "4"
    assert renewable.letters == "ABCD" and renewable.gold == "D"
    assert items["Sample_ARC_004"].letters == "ABC" and items["Sample_ARC_004"].gold == "B"
    assert items["Sample_ARC_005"].letters == "ABCDE" and items["Sample_ARC_005"].gold == "C"


def test_ids_and_hashes_are_stable_and_content_based():
    rec = {"question": "Q?", "subject": "astronomy", "choices": ["a", "b", "c", "d"], "answer": 2}
    one, two = item_from_record("mmlu", rec, 0), item_from_record("mmlu", dict(rec), 7)
    assert one.item_id == two.item_id and one.item_id.startswith("astronomy/") and one.gold == "C"
    changed = item_from_record("mmlu", {**rec, "answer": 1}, 0)
    assert changed.item_id == one.item_id and changed.content_hash != one.content_hash
    gsm = item_from_record("gsm8k", {"question": "2+2?", "answer": "2+2=4\n#### 4"}, 0)
    assert gsm.item_id.startswith("gsm8k/") and gsm.gold == "4"
    assert item_from_record("gsm8k", {"question": "x", "answer": "#### 1,000.0"}, 0).gold == "1000"


@pytest.mark.parametrize("task,record,needle", [
    ("arc", {"question": "", "choices": {"text": ["a"], "label": ["A"]}, "answerKey": "A"}, "question"),
    ("arc", {"question": "q", "choices": ["a", "b"], "answerKey": "A"}, "choices"),
    ("arc", {"question": "q", "choices": {"text": ["a", "b"], "label": ["A"]}, "answerKey": "A"}, "choices"),
    ("arc", {"question": "q", "choices": {"text": ["a", "b"], "label": ["A", "A"]}, "answerKey": "A"}, "duplicate"),
    ("arc", {"question": "q", "choices": {"text": ["a", "b"], "label": ["A", "B"]}, "answerKey": "C"}, "answerKey"),
    ("mmlu", {"question": "q", "subject": "s", "choices": ["a", "b"], "answer": 5}, "answer"),
    ("mmlu", {"question": "q", "subject": "s", "choices": "ab", "answer": 0}, "choices"),
    ("mmlu", {"question": "q", "choices": ["a", "b"], "answer": 0}, "subject"),
    ("gsm8k", {"question": "q", "answer": "no final number"}, "answer"),
])
def test_bad_records_name_file_line_and_field(tmp_path, task, record, needle):
    path = tmp_path / f"{task}.jsonl"
    good = {"arc": {"id": "x1", "question": "q", "choices": {"text": ["a", "b"], "label": ["A", "B"]}, "answerKey": "A"},
            "mmlu": {"question": "ok", "subject": "s", "choices": ["a", "b"], "answer": 0},
            "gsm8k": {"question": "ok", "answer": "#### 1"}}[task]
    path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(BadInput) as err:
        load_task(task, data=tmp_path)
    assert f"{path}:2: " in str(err.value) and needle in str(err.value)


def test_bad_json_and_duplicates(tmp_path):
    (tmp_path / "gsm8k.jsonl").write_text('{"question": "a", "answer": "#### 1"}\n{oops\n')
    with pytest.raises(BadInput, match=r"gsm8k.jsonl:2: invalid JSON"):
        load_task("gsm8k", data=tmp_path)
    (tmp_path / "gsm8k.jsonl").write_text('{"question": "a", "answer": "#### 1"}\n' * 2)
    with pytest.raises(BadInput, match="appears twice"):
        load_task("gsm8k", data=tmp_path)
    with pytest.raises(BadInput, match="no data for task arc"):
        load_task("arc", data=tmp_path)
    with pytest.raises(BadInput, match="no such file"):
        load_task("arc", data=tmp_path / "missing")


def test_hub_layout_parquet_copy_is_recognised(tmp_path):
    rows = [json.loads(line) for line in (SAMPLES_DIR / "arc.jsonl").read_text().splitlines()]
    target = tmp_path / TASKS["arc"].hub_file
    target.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), target)
    assert local_file(TASKS["arc"], tmp_path) == target
    data = load_task("arc", data=tmp_path)
    assert [i.item_id for i in data.items] == [r["id"] for r in rows]
    assert not data.official_source  # not the pinned file, byte for byte


def test_selection_rules():
    def mmlu(subject: str, n: int):
        return item_from_record("mmlu", {"question": f"{subject}{n}", "subject": subject, "choices": ["a", "b"],
                                         "answer": 0}, n)
    items = [mmlu("b", 0), mmlu("a", 1), mmlu("b", 2), mmlu("b", 3), mmlu("a", 4), mmlu("a", 5)]
    assert [i.question for i in select("mmlu", items)] == ["b0", "b2", "a1", "a4"]
    gsm = [item_from_record("gsm8k", {"question": f"q{n}", "answer": "#### 1"}, n) for n in range(120)]
    assert len(select("gsm8k", gsm)) == 100


def test_task_names():
    assert task_names("arc, MMLU") == ["arc", "mmlu"]
    assert task_names("all") == ["arc", "mmlu", "gsm8k"]
    with pytest.raises(BadInput, match="unknown task hellaswag"):
        task_names("arc,hellaswag")


def test_pins_are_recorded():
    for name, task in TASKS.items():
        assert task.repo and task.revision and task.max_tokens in (1024, 2048), name
    assert len(TASKS["arc"].revision) == 40 and len(TASKS["mmlu"].revision) == 40
    assert Path(SAMPLES_DIR).is_dir()
