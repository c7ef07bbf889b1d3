"""The built-in chat benchmarks' data through their specs: located errors, ARC label normalisation, the
fixed selections, content-based ids and hashes, local copies of the pinned files."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaluators.chat import spec as chat
from evaluators.chat.run import ALL, resolve_tasks
from evaluators.core.errors import BadInput
from evaluators.specs.spec_data import locate
from tests.conftest import REPO

SAMPLES_DIR = REPO / "tasks" / "samples" / "chat"


def items(name: str, data: Path = SAMPLES_DIR) -> list[chat.Item]:
    task = chat.load_task(name)
    (located,) = locate(task.spec, str(data))
    return chat.read_items(task, located)


def one(name: str, record: dict, index: int = 0) -> chat.Item:
    from evaluators.specs.records import RecordMapper

    task = chat.load_task(name)
    return chat.item(task, RecordMapper(task.spec).map(record), index, index + 1)


def test_sample_files_load_for_every_task():
    arc, mmlu, gsm = items("arc"), items("mmlu"), items("gsm8k")
    assert len(arc) == 12 and len(gsm) == 10
    # MMLU: the first 2 of each subject, subjects in file order
    assert [i.category for i in mmlu] == ["astronomy"] * 2 + ["college_mathematics"] * 2 + \
        ["high_school_geography"] * 2 + ["world_religions"] * 2
    (data,) = locate(chat.load_task("arc").spec, str(SAMPLES_DIR))
    assert not data.pinned and data.source["kind"] == "local" and len(chat.dataset_sha256(arc)) == 64


def test_arc_numeric_labels_and_option_counts_become_letters():
    by_id = {i.item_id: i for i in items("arc")}
    renewable = by_id["Sample_ARC_003"]  # labels 1-4, key "4"
    assert renewable.letters == "ABCD" and renewable.gold == "D"
    assert by_id["Sample_ARC_004"].letters == "ABC" and by_id["Sample_ARC_004"].gold == "B"
    assert by_id["Sample_ARC_005"].letters == "ABCDE" and by_id["Sample_ARC_005"].gold == "C"


def test_ids_and_hashes_are_stable_and_content_based():
    rec = {"question": "Q?", "subject": "astronomy", "choices": ["a", "b", "c", "d"], "answer": 2}
    first, again = one("mmlu", rec, 0), one("mmlu", dict(rec), 7)
    assert first.item_id == again.item_id and first.item_id.startswith("astronomy/") and first.gold == "C"
    changed = one("mmlu", {**rec, "answer": 1})
    assert changed.item_id == first.item_id and changed.content_hash != first.content_hash
    gsm = one("gsm8k", {"question": "2+2?", "answer": "2+2=4\n#### 4"})
    assert gsm.item_id.startswith("gsm8k/") and gsm.gold == "4"
    assert one("gsm8k", {"question": "x", "answer": "#### 1,000.0"}).gold == "1000"


@pytest.mark.parametrize("task,record,needle", [
    ("arc", {"question": "", "choices": {"text": ["a", "b"], "label": ["A", "B"]}, "answerKey": "A"}, "question"),
    ("arc", {"question": "q", "choices": ["a", "b"], "answerKey": "A"}, "choices"),
    ("arc", {"question": "q", "choices": {"text": ["a", "b"], "label": ["A"]}, "answerKey": "A"}, "choice_labels"),
    ("arc", {"question": "q", "choices": {"text": ["a", "b"], "label": ["A", "A"]}, "answerKey": "A"}, "duplicate"),
    ("arc", {"question": "q", "choices": {"text": ["a", "b"], "label": ["A", "B"]}, "answerKey": "C"}, "answerKey"),
    ("mmlu", {"question": "q", "subject": "s", "choices": ["a", "b"], "answer": 5}, "answer"),
    ("mmlu", {"question": "q", "subject": "s", "choices": "ab", "answer": 0}, "choices"),
    ("mmlu", {"question": "q", "choices": ["a", "b"], "answer": 0}, "subject"),
    ("gsm8k", {"question": "q", "answer": "no final number"}, "answer"),
])
def test_bad_records_name_file_line_field_and_spec_line(tmp_path, task, record, needle):
    path = tmp_path / f"{task}.jsonl"
    good = {"arc": {"id": "x1", "question": "q", "choices": {"text": ["a", "b"], "label": ["A", "B"]}, "answerKey": "A"},
            "mmlu": {"question": "ok", "subject": "s", "choices": ["a", "b"], "answer": 0},
            "gsm8k": {"question": "ok", "answer": "#### 1"}}[task]
    path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(BadInput) as err:
        items(task, tmp_path)
    assert f"{path}:2: " in str(err.value) and needle in str(err.value)
    assert f"{task}.toml:" in str(err.value)  # where the spec maps that field


def test_bad_json_and_duplicates(tmp_path):
    (tmp_path / "gsm8k.jsonl").write_text('{"question": "a", "answer": "#### 1"}\n{oops\n')
    with pytest.raises(BadInput, match=r"gsm8k.jsonl:2: invalid JSON"):
        items("gsm8k", tmp_path)
    (tmp_path / "gsm8k.jsonl").write_text('{"question": "a", "answer": "#### 1"}\n' * 2)
    with pytest.raises(BadInput, match="appears twice"):
        items("gsm8k", tmp_path)
    with pytest.raises(BadInput, match="no data for arc_challenge_chat here"):
        items("arc", tmp_path)
    with pytest.raises(BadInput, match="no such file"):
        items("arc", tmp_path / "missing")


def test_hub_layout_parquet_copy_is_recognised(tmp_path):
    rows = [json.loads(line) for line in (SAMPLES_DIR / "arc.jsonl").read_text().splitlines()]
    task = chat.load_task("arc")
    target = tmp_path / task.spec.data.file
    target.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), target)
    (data,) = locate(task.spec, str(tmp_path))
    assert data.path == target and not data.pinned  # not the pinned file, byte for byte
    assert [i.item_id for i in chat.read_items(task, data)] == [r["id"] for r in rows]


def test_selection_rules(tmp_path):
    rows = [{"question": f"{s}{n}", "subject": s, "choices": ["a", "b"], "answer": 0}
            for n, s in enumerate("babbaa")]
    (tmp_path / "mmlu.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [i.question for i in items("mmlu", tmp_path)] == ["b0", "b2", "a1", "a4"]
    (tmp_path / "gsm8k.jsonl").write_text("".join(json.dumps({"question": f"q{n}", "answer": "#### 1"}) + "\n"
                                                  for n in range(120)))
    assert len(items("gsm8k", tmp_path)) == 100


def test_task_names():
    assert [t.name for t in resolve_tasks(["arc", "MMLU"])] == ["arc", "mmlu"]
    assert {t.name for t in resolve_tasks([ALL])} == {"arc", "mmlu", "gsm8k"}
    assert [t.spec.id for t in resolve_tasks(["arc", "arc_challenge_chat"])] == ["arc_challenge_chat"]
    with pytest.raises(BadInput, match="unknown benchmark 'hellaswag'"):
        resolve_tasks(["arc", "hellaswag"])
    with pytest.raises(BadInput, match="is a loglik benchmark, not a chat one"):
        resolve_tasks(["base-bench"])


def test_pins_are_recorded():
    for task in resolve_tasks([ALL]):
        data = task.spec.data
        assert data.repo and data.revision and task.scoring.max_tokens in (1024, 2048), task.name
    for name in ("arc", "mmlu"):
        data = chat.load_task(name).spec.data
        assert len(data.revision) == 40 and len(data.sha256) == 64 and data.file
