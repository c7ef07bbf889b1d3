"""The DuckDB store: schema and migrations, idempotent rows, merge, export policy, concurrency."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from evaluators import api
from evaluators.core.errors import BadInput
from evaluators.store import store as store_mod
from evaluators.store.export import export_store
from evaluators.store.merge import merge_store
from evaluators.store.records import AttemptRow, RunRow, ScoreRow, columns
from evaluators.store.schema import SCHEMA_VERSION
from evaluators.store.store import Store, utcnow
from tests.conftest import REPO, cli_env


def make_run(store: Store, run_id: str, model: str = "m", benchmark: str = "b", status: str = "finished",
             official: bool = True, policy: str = "public", **extra) -> None:
    store.ensure_benchmark(benchmark, "fake", policy=policy)
    store.insert_run(RunRow(run_id=run_id, evaluator="fake", benchmark=benchmark, model_name=model, status=status,
                            official=official, started_at=utcnow(),
                            finished_at=utcnow() if status == "finished" else None, **extra))


def attempt(run_id: str, item: str, **kw) -> dict:
    return {"run_id": run_id, "item_id": item, "attempt": 1, "status": "ok", "correct": True,
            "prediction": f"pred-{item}", "reference": f"ref-{item}", "extra": {"raw": f"raw text {item}"}, **kw}


def test_new_store_has_latest_schema_and_all_tables(tmp_path):
    s = Store(tmp_path)
    assert s.schema_version() == SCHEMA_VERSION
    tables = {r[0] for r in s.query("SELECT table_name FROM information_schema.tables").rows}
    assert {"models", "runs", "attempts", "scores", "grades", "choices", "benchmarks", "attempt_metrics",
            "server_configs", "current_runs", "schema_migrations"} <= tables
    cols = [r[0] for r in s.query("DESCRIBE attempts").rows]
    for required in ("run_id", "item_id", "attempt", "status", "correct", "score", "prediction", "reference",
                     "category", "difficulty", "weight", "started_at", "wall_s", "tokens_in", "tokens_out", "extra"):
        assert required in cols


def test_migration_from_version_1_keeps_data(tmp_path):
    path = tmp_path / "bananabench.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description VARCHAR, applied_at TIMESTAMP)")
    version, description, statements = store_mod.MIGRATIONS[0]
    for statement in statements:
        con.execute(statement)
    con.execute("INSERT INTO schema_migrations VALUES (1, 'initial', now())")
    con.execute("INSERT INTO models VALUES ('old-model', now(), NULL, NULL)")
    con.close()
    s = Store(tmp_path)
    assert s.schema_version() == SCHEMA_VERSION
    assert s.query("SELECT name FROM models").rows == [("old-model",)]
    assert s.query("SELECT count(*) FROM attempt_metrics").rows == [(0,)]


def test_newer_schema_is_refused(tmp_path):
    s = Store(tmp_path)
    s.schema_version()
    con = duckdb.connect(str(s.path))
    con.execute("INSERT INTO schema_migrations VALUES (999, 'future', now())")
    con.close()
    with pytest.raises(BadInput, match="newer than this bananabench"):
        Store(tmp_path).schema_version()


def test_attempt_rows_are_idempotent_by_key(tmp_path):
    s = Store(tmp_path)
    make_run(s, "r1")
    s.upsert("attempts", [attempt("r1", "a"), attempt("r1", "b")])
    s.upsert("attempts", [attempt("r1", "a", correct=False), attempt("r1", "a", correct=False)])
    rows = s.attempts("r1")
    assert [(r.item_id, r.correct) for r in rows] == [("a", False), ("b", True)]
    assert rows[0].extra == {"raw": "raw text a"}
    with pytest.raises(ValueError, match="unknown columns"):
        s.upsert("attempts", [{**attempt("r1", "c"), "bogus": 1}])


def test_reads_give_back_the_records_written(tmp_path):
    s = Store(tmp_path)
    s.ensure_benchmark("b", "fake")
    run = RunRow(run_id="r1", evaluator="fake", benchmark="b", model_name="m", status="finished",
                 started_at=utcnow(), benchmark_version="2", split="dev", artifact={"kind": "hf", "sha": "abc"},
                 backend="hf", config={"signature": {"seed": 1}}, signature="sig", dataset_sha256="d" * 64,
                 official=True, finished_at=utcnow(), software_version="1.0", host="box", n_items=2,
                 extra={"out_dir": "/x", "nested": [1, {"a": None}]})
    s.insert_run(run)
    assert s.run("r1") == run and s.runs() == [run] and s.current_runs() == [run]
    assert s.latest_run("m", "b", "dev") == run and s.latest_run("m", "b", "dev", unfinished=True) is None
    assert s.run("nope") is None and s.latest_run("m", "b") is None
    rows = [AttemptRow(item_id="i1", status="correct", attempt=2, correct=True, score=1.0, prediction="A",
                       reference="A", category="c", difficulty="easy", weight=0.5, started_at=utcnow(), wall_s=1.25,
                       tokens_in=10, tokens_out=3, extra={"raw": "The answer is A"}),
            AttemptRow(item_id="i2", status="error")]
    s.upsert("attempts", [columns(r, run_id="r1") for r in rows])
    assert s.attempts("r1") == rows
    assert api.runs(s) == api.current_runs(tmp_path) == [run] and api.attempts(tmp_path, "r1") == rows
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.run("r1").status = "failed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.attempts("r1")[0]["status"]  # the dict reads of before fail loudly, not silently


def test_failed_transaction_writes_nothing(tmp_path):
    s = Store(tmp_path)
    make_run(s, "r1")
    with pytest.raises(RuntimeError):
        with s.write() as con:
            s.upsert("attempts", [attempt("r1", "a")], con=con)
            raise RuntimeError("boom")
    assert s.attempts("r1") == []


def test_current_runs_prefers_official_then_latest_and_skips_hidden(tmp_path):
    s = Store(tmp_path)
    make_run(s, "r-old-official", official=True)
    make_run(s, "r-new-unofficial", official=False)
    make_run(s, "r-running", status="running")
    assert [r.run_id for r in s.current_runs()] == ["r-old-official"]
    make_run(s, "r-newer-official", official=True)
    assert [r.run_id for r in s.current_runs()] == ["r-newer-official"]
    s.set_hidden("r-newer-official", True)
    assert [r.run_id for r in s.current_runs()] == ["r-old-official"]
    with pytest.raises(BadInput):
        s.set_hidden("nope", True)


def test_rename_model(tmp_path):
    s = Store(tmp_path)
    make_run(s, "r1", model="a")
    make_run(s, "r2", model="b")
    s.add_grade("a", "frontend/x", 1, 4)
    assert s.rename_model("a", "c") == 1
    assert {r.model_name for r in s.runs()} == {"b", "c"}
    assert s.query("SELECT model_name FROM grades").rows == [("c",)]
    with pytest.raises(BadInput, match="already exists"):
        s.rename_model("c", "b")
    with pytest.raises(BadInput, match="no model"):
        s.rename_model("zzz", "y")
    with pytest.raises(BadInput):
        s.add_grade("c", "t", 1, 6)


def test_merge_brings_runs_without_duplicates(tmp_path):
    here, gpu = Store(tmp_path / "here"), Store(tmp_path / "gpu")
    make_run(here, "shared-run", status="running")
    here.upsert("attempts", [attempt("shared-run", "a")])
    make_run(gpu, "shared-run", status="finished")
    gpu.upsert("attempts", [attempt("shared-run", "a"), attempt("shared-run", "b")])
    make_run(gpu, "gpu-only", model="big")
    gpu.upsert("attempts", [attempt("gpu-only", "x")])
    gpu.replace_scores("gpu-only", [ScoreRow(scope="overall", key="", metric="accuracy", value=1.0, n=1)])
    counts = merge_store(here, tmp_path / "gpu")
    assert counts["runs"] == 2
    assert here.run("shared-run").status == "finished"
    assert len(here.attempts("shared-run")) == 2
    assert here.scores("gpu-only")[0].value == 1.0
    again = merge_store(here, tmp_path / "gpu" / "bananabench.duckdb")
    assert again["runs"] == 0
    assert here.query("SELECT count(*) FROM attempts").rows == [(3,)]
    assert gpu.query("SELECT count(*) FROM runs").rows == [(2,)]  # source untouched
    with pytest.raises(BadInput):
        merge_store(here, tmp_path / "missing")
    with pytest.raises(BadInput):
        merge_store(here, tmp_path / "here")


def test_a_merge_that_fails_half_way_writes_nothing_and_lets_the_next_one_in(tmp_path, monkeypatch):
    """The source is attached to the process's one DuckDB instance; a failure must not leave it there."""
    from evaluators.store import merge

    here, gpu = Store(tmp_path / "here"), Store(tmp_path / "gpu")
    make_run(gpu, "gpu-only", model="big")
    real_copy = merge._copy_rows

    def copy_then_fail(c):
        real_copy(c)
        raise OSError("disk full")

    monkeypatch.setattr(merge, "_copy_rows", copy_then_fail)
    with pytest.raises(OSError, match="disk full"):
        merge_store(here, tmp_path / "gpu")
    assert here.query("SELECT count(*) FROM runs").rows == [(0,)]  # rolled back
    monkeypatch.setattr(merge, "_copy_rows", real_copy)
    assert merge_store(here, tmp_path / "gpu")["runs"] == 1  # `other` was detached: the name is free again


def test_export_drops_item_text_of_ids_only_benchmarks(tmp_path):
    s = Store(tmp_path / "r")
    make_run(s, "gated", benchmark="gated-bench", policy="ids-only")
    make_run(s, "open", benchmark="open-bench")
    s.upsert("attempts", [attempt("gated", "g1"), attempt("open", "o1")])
    export_store(s, tmp_path / "pub", "parquet")
    rows = {r["item_id"]: r for r in pq.read_table(tmp_path / "pub" / "attempts.parquet").to_pylist()}
    assert rows["g1"]["prediction"] is None and rows["g1"]["extra"] is None and rows["g1"]["correct"] is True
    assert rows["o1"]["prediction"] == "pred-o1"
    blob = b"".join(p.read_bytes() for p in (tmp_path / "pub").iterdir())
    assert b"raw text g1" not in blob and b"pred-g1" not in blob
    export_store(s, tmp_path / "private", "csv", private=True)
    assert "raw text g1" in (tmp_path / "private" / "attempts.csv").read_text()
    with pytest.raises(BadInput, match="not empty"):
        export_store(s, tmp_path / "pub", "csv")
    s.set_hidden("open", True)
    export_store(s, tmp_path / "visible", "parquet")
    assert [r["run_id"] for r in pq.read_table(tmp_path / "visible" / "runs.parquet").to_pylist()] == ["gated"]
    assert {r["run_id"] for r in pq.read_table(tmp_path / "visible" / "attempts.parquet").to_pylist()} == {"gated"}
    export_store(s, tmp_path / "everything", "parquet", include_hidden=True)
    assert len(pq.read_table(tmp_path / "everything" / "runs.parquet")) == 2
    with pytest.raises(BadInput, match="format"):
        export_store(s, tmp_path / "x", "xml")


WRITER = """
import sys
from evaluators.store.records import RunRow
from evaluators.store.store import Store, utcnow
s = Store(sys.argv[1], lock_timeout=120)
rid = sys.argv[2]
s.ensure_benchmark('b', 'fake')
s.insert_run(RunRow(run_id=rid, evaluator='fake', benchmark='b', model_name=rid, status='running',
                    started_at=utcnow()))
for i in range(int(sys.argv[3])):
    s.upsert('attempts', [{'run_id': rid, 'item_id': str(i), 'attempt': 1, 'status': 'ok'}])
    s.query('SELECT count(*) FROM attempts')
"""


@pytest.mark.slow
def test_two_writer_processes_both_complete(tmp_path):
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), f"w{k}", "60"], env=cli_env(), cwd=REPO,
                         stderr=subprocess.PIPE, text=True)
        for k in range(2)
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    s = Store(tmp_path)
    assert s.query("SELECT run_id, count(*) FROM attempts GROUP BY 1 ORDER BY 1").rows == [("w0", 60), ("w1", 60)]



def _blocked_on_flock(pid: int) -> bool:
    """Whether process `pid` is waiting for an flock (a `->` waiter line in /proc/locks)."""
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[1] == "->" and fields[2] == "FLOCK" and fields[5] == str(pid):
            return True
    return False


def test_opening_waits_while_another_process_is_creating_the_file(tmp_path):
    """DuckDB creates the file before writing its header; nobody may open it half-created."""
    import fcntl
    import time

    path = tmp_path / "bananabench.duckdb"
    guard = open(tmp_path / ".bananabench.duckdb.lock", "a")
    fcntl.flock(guard, fcntl.LOCK_EX)  # we are "creating" the database...
    path.write_bytes(b"")  # ...and DuckDB has not written the header yet
    code = "import sys; from evaluators.store.store import Store; print(Store(sys.argv[1]).schema_version())"
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], env=cli_env(), cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # It waits for the creator (blocked on the guard's flock, as /proc/locks shows) instead of failing.
    deadline = time.monotonic() + 120
    while not _blocked_on_flock(proc.pid):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the opener never waited on the creation guard"
        time.sleep(0.02)
    path.unlink()
    duckdb.connect(str(path)).close()  # the creation finishes
    fcntl.flock(guard, fcntl.LOCK_UN)
    guard.close()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert out.strip() == str(SCHEMA_VERSION)
