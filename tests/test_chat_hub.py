"""Chat datasets from the Hub (a local fake Hub, the real huggingface_hub code): pins, hashes, provenance."""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaluators.chat import spec as chat
from evaluators.store.store import Store
from tests.conftest import run_cli_process
from tests.fakehub import FakeHub
from tests.mock_openai import MockOpenAI
from tests.test_chat_benchmarks import SAMPLES_DIR


def parquet_of(name: str) -> bytes:
    rows = [json.loads(line) for line in (SAMPLES_DIR / f"{name}.jsonl").read_text().splitlines()]
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), buf)
    return buf.getvalue()


@pytest.fixture(scope="module")
def hub():
    with FakeHub() as fake:
        fake.gsm = fake.add_repo("tinyBenchmarks/tinyGSM8k", {"main/test-00000-of-00001.parquet": parquet_of("gsm8k"),
                                                              "main/train-00000-of-00001.parquet": b"unused",
                                                              "README.md": b"# tiny\n"}, repo_type="dataset")
        arc = chat.load_task("arc").spec.data
        fake.add_repo(arc.repo, {arc.file: parquet_of("arc")}, repo_type="dataset")
        fake.tag(arc.repo, arc.revision, repo_type="dataset")  # the pinned revision exists, with other bytes
        yield fake


# The CLI runs as a process here: huggingface_hub reads the fake hub's address once, when it is imported.


@pytest.mark.slow
def test_download_at_the_pinned_revision_is_recorded(hub, tmp_path):
    results = tmp_path / "results"
    with MockOpenAI(default="#### 14") as mock:
        proc = run_cli_process("chat", "run", "--task", "gsm8k", "--base-url", mock.base_url, "--name", "m",
                       "--results", str(results), env=hub.env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    [run] = Store(results).runs()
    source = run.extra["data_source"]
    assert source["kind"] == "hub" and source["repo"] == "tinyBenchmarks/tinyGSM8k" and source["revision"] == hub.gsm
    assert source["file"] == "main/test-00000-of-00001.parquet" and len(source["sha256"]) == 64
    assert run.benchmark_version == "1"
    assert run.official and run.n_items == 10


def test_a_file_that_differs_from_the_pinned_hash_is_refused(hub, tmp_path):
    with MockOpenAI(default="The answer is A") as mock:
        proc = run_cli_process("chat", "run", "--task", "arc", "--base-url", mock.base_url, "--name", "m",
                       "--results", str(tmp_path / "results"), env=hub.env(tmp_path))
    assert proc.returncode == 3 and "differs from the pinned" in proc.stderr
    assert not mock.generation_requests()
