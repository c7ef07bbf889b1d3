"""Run lifecycle with real processes: resume, signature checks, locks after kill -9, SIGTERM, secrets."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluators.core import atomic
from evaluators.core.errors import BadInput
from evaluators.core.secrets import register_secret
from evaluators.runs.runs import RunLock, RunSpec, signature_diff, start_run
from evaluators.store.records import AttemptRow
from evaluators.store.store import Store, utcnow
from tests.conftest import REPO, cli_env

FAKE = str(REPO / "tests" / "helpers" / "fake_eval.py")


def fake(results: Path, model: str, n: int, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, FAKE, str(results), model, str(n), *args], env=cli_env(env),
                          cwd=REPO, capture_output=True, text=True, timeout=300)


def start_fake(results: Path, model: str, n: int, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, FAKE, str(results), model, str(n), *args], env=cli_env(),
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_items(proc: subprocess.Popen, k: int) -> list[str]:
    lines = []
    while len([x for x in lines if x.startswith("DONE")]) < k:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        lines.append(line.strip())
    return lines


def item_rows(results: Path) -> list[tuple]:
    return Store(results).query(
        "SELECT item_id, count(*) FROM attempts GROUP BY item_id ORDER BY item_id").rows


@pytest.mark.slow
def test_kill9_then_resume_gives_identical_results_and_no_duplicates(results):
    reference = fake(results.parent / "ref", "m", 12)
    assert reference.returncode == 0, reference.stderr
    proc = start_fake(results, "m", 12, "--sleep", "0.1")
    wait_for_items(proc, 4)
    proc.kill()
    proc.wait()
    st = Store(results)
    assert st.runs()[0].status == "running"  # the crash left it behind
    done = fake(results, "m", 12, "--resume")
    assert done.returncode == 0, done.stderr
    assert "resumed=True" in done.stdout
    assert item_rows(results) == [(f"item-{i}", 1) for i in sorted(range(12), key=lambda i: f"item-{i}")]
    assert len(st.runs()) == 1 and st.runs()[0].status == "finished"
    ref = Store(results.parent / "ref")
    cols = "item_id, status, correct, score, prediction, reference, category"
    q = f"SELECT {cols} FROM attempts ORDER BY item_id"
    assert st.query(q).rows == ref.query(q).rows
    assert st.query("SELECT count(*) FROM choices").rows == [(24,)]
    assert st.scores(st.runs()[0].run_id)[0].value == ref.scores(ref.runs()[0].run_id)[0].value


@pytest.mark.slow
def test_resume_with_different_signature_is_refused_naming_the_field(results):
    proc = start_fake(results, "m", 10, "--sleep", "0.2")
    wait_for_items(proc, 2)
    proc.kill()
    proc.wait()
    refused = fake(results, "m", 10, "--resume", "--scoring", "other")
    assert refused.returncode == 2
    assert "scoring.mode" in refused.stderr and "cannot resume" in refused.stderr
    assert len(Store(results).runs()) == 1  # nothing new written
    fresh = fake(results, "m", 10, "--scoring", "other")  # without --resume a new run starts
    assert fresh.returncode == 0 and "resumed=False" in fresh.stdout
    assert len(Store(results).runs()) == 2


@pytest.mark.slow
def test_lock_blocks_a_second_run_and_is_recovered_after_kill9(results):
    holder = start_fake(results, "m", 100, "--sleep", "0.2")
    wait_for_items(holder, 1)
    second = fake(results, "m", 3)
    assert second.returncode == 2 and "in progress" in second.stderr and f"pid\": {holder.pid}" in second.stderr
    other_model = fake(results, "other", 3)  # a different (model, benchmark) is not blocked
    assert other_model.returncode == 0, other_model.stderr
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    after = fake(results, "m", 3)
    assert after.returncode == 0, after.stderr
    assert "recovered a stale lock" in after.stderr
    assert not list((results / "locks").glob("*.lock"))  # cleaned up on exit


@pytest.mark.slow
def test_sigterm_keeps_finished_items_and_marks_run_interrupted(results):
    proc = start_fake(results, "m", 50, "--sleep", "0.2")
    wait_for_items(proc, 3)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    st = Store(results)
    run = st.runs()[0]
    assert run.status == "interrupted"
    n_done = len(st.attempts(run.run_id))
    assert 3 <= n_done < 50
    assert not list((results / "locks").glob("*.lock"))
    resumed = fake(results, "m", 50, "--resume")
    assert resumed.returncode == 0
    assert f"done={n_done}" in resumed.stdout
    assert st.query("SELECT count(*), count(DISTINCT item_id) FROM attempts").rows == [(50, 50)]


def test_run_lock_in_process(tmp_path):
    a = RunLock(tmp_path / "x.lock", "x").acquire()
    with pytest.raises(BadInput, match="in progress"):
        RunLock(tmp_path / "x.lock", "x").acquire()
    a.release()
    RunLock(tmp_path / "x.lock", "x").acquire().release()


def test_retry_statuses_are_not_done_on_resume(results):
    spec = RunSpec(evaluator="fake", benchmark="b", model_name="m", retry_statuses=("error",))
    with start_run(Store(results), spec) as run:
        run.record(AttemptRow(item_id="ok-item", status="correct"))
        run.record(AttemptRow(item_id="infra", status="error"))
    with start_run(Store(results), spec, resume=True) as run:
        assert run.resumed
        assert run.is_done("ok-item") and not run.is_done("infra")
        run.record(AttemptRow(item_id="infra", status="correct"))
        run.finish()
    rows = Store(results).query("SELECT item_id, status FROM attempts ORDER BY 1").rows
    assert rows == [("infra", "correct"), ("ok-item", "correct")]


def test_torn_journal_line_is_ignored_on_resume(results):
    spec = RunSpec(evaluator="fake", benchmark="b", model_name="m")
    st = Store(results)
    with start_run(st, spec) as run:
        run.flush_every_s = 3600  # keep rows only in the journal, as if the process died
        run.record(AttemptRow(item_id="a", status="ok", started_at=utcnow(), wall_s=0.5))
        run._buffer = {k: [] for k in run._buffer}
        journal = run.dir / "attempts.jsonl"
    with open(journal, "a") as fh:
        fh.write('{"attempt": {"item_id": "b"')  # torn write
    with start_run(st, spec, resume=True) as run:
        assert run.done == {("a", 1)}
        assert st.attempts(run.run_id)[0].started_at is not None


def test_signature_diff_names_nested_fields():
    old = {"model": {"weights": "a", "dtype": "float32"}, "scoring": {"bos": False}}
    new = {"model": {"weights": "a", "dtype": "bfloat16"}, "scoring": {"bos": False}, "extra": 1}
    diffs = signature_diff(old, new)
    assert [d.split(" ")[0] for d in diffs] == ["extra", "model.dtype"]


def test_out_dir_of_finished_run_is_never_overwritten(results, tmp_path):
    spec = RunSpec(evaluator="fake", benchmark="b", model_name="m")
    out = tmp_path / "out"
    with start_run(Store(results), spec, out_dir=out) as run:
        run.finish()
    assert (out / "run_config.json").exists()
    with pytest.raises(BadInput, match="not empty"):
        start_run(Store(results), spec, out_dir=out)


def test_atomic_write_refuses_overwrite_and_leaves_no_temp_files(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    atomic.write_json(target, {"a": 1})
    with pytest.raises(BadInput, match="already exists"):
        atomic.write_json(target, {"a": 2})
    assert json.loads(target.read_text()) == {"a": 1}
    atomic.write_json(target, {"a": 3}, overwrite=True)
    assert json.loads(target.read_text()) == {"a": 3}

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", disk_full)
    with pytest.raises(OSError):
        atomic.write_json(tmp_path / "half.json", {"a": 1})
    with pytest.raises(OSError):
        atomic.write_json(target, {"a": 4}, overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    assert json.loads(target.read_text()) == {"a": 3}


def test_secrets_never_reach_config_store_or_logs(results):
    token = "hf_SECRETsecretSECRET123"
    res = fake(results, "m", 2, "--token", token)
    assert res.returncode == 0
    register_secret(token)
    st = Store(results)
    blob = json.dumps(st.query("SELECT * FROM runs").dicts(), default=str)
    assert token not in blob and "<redacted>" in blob
    run_dir = Path(st.runs()[0].extra["out_dir"])
    for path in run_dir.rglob("*"):
        assert token not in path.read_text()
    assert token not in res.stderr + res.stdout


def test_log_filter_masks_registered_secrets(capsys):
    import logging

    from evaluators.core import logs
    logs.setup()
    register_secret("sk-live-abcdef123456")
    logging.getLogger("bananabench").warning("calling with key %s", "sk-live-abcdef123456")
    err = capsys.readouterr().err
    assert "sk-live-abcdef123456" not in err and "<redacted>" in err


def test_progress_lines_without_terminal(capsys):
    from evaluators.runs.progress import Progress

    p = Progress(4, "scoring", interval_s=0)
    for _ in range(4):
        p.update()
    p.close()
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith("scoring 4/4 (100%)") and "it/s" in lines[-1]
    assert "\r" not in "".join(lines)


def test_staged_directory_appears_whole_or_not_at_all(tmp_path):
    dest = tmp_path / "task"
    with pytest.raises(RuntimeError):
        with atomic.staged_directory(dest) as tmp:
            (tmp / "half.txt").write_text("x")
            raise RuntimeError("crash while building")
    assert not dest.exists() and list(tmp_path.iterdir()) == []
    dest.mkdir()
    (dest / "old.txt").write_text("old")
    with atomic.staged_directory(dest) as tmp:
        (tmp / "new.txt").write_text("new")
        assert (dest / "old.txt").exists()  # the old folder stays until the new one is complete
    assert [p.name for p in dest.iterdir()] == ["new.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["task"]


def test_cached_directory_is_built_whole_once_and_a_failed_build_leaves_nothing(tmp_path):
    dest, calls = tmp_path / "cache" / "item", []

    def crash(tmp):
        tmp.mkdir()
        (tmp / "half.txt").write_text("x")
        raise RuntimeError("crash while building")

    def build(tmp):
        calls.append(tmp)
        tmp.mkdir()
        (tmp / "READY").write_text("whole")

    with pytest.raises(RuntimeError):
        atomic.cached_directory(dest, crash, marker="READY")
    assert sorted(p.name for p in dest.parent.iterdir()) == ["item.lock"]  # nothing half-built stays
    dest.mkdir()  # unfinished (no marker): built again
    assert atomic.cached_directory(dest, build, marker="READY") == dest and (dest / "READY").read_text() == "whole"
    assert atomic.cached_directory(dest, build, marker="READY") == dest and len(calls) == 1
    assert sorted(p.name for p in dest.parent.iterdir()) == ["item", "item.lock"]


DIES_BUILDING = """import sys, time
from pathlib import Path
from evaluators.core import atomic

def build(tmp):
    tmp.mkdir()
    (tmp / "half.txt").write_text("x")
    Path(sys.argv[2]).touch()
    time.sleep(600)

atomic.cached_directory(sys.argv[1], build, marker="READY")
"""


def test_cached_directory_after_a_builder_killed_mid_build_is_built_whole_by_the_next(tmp_path):
    """kill -9 while holding the lock: the kernel frees the lock, the next process clears the half-built folder."""
    dest, started = tmp_path / "cache" / "item", tmp_path / "started"
    proc = subprocess.Popen([sys.executable, "-c", DIES_BUILDING, str(dest), str(started)], cwd=REPO, env=cli_env())
    try:
        for _ in range(3000):
            if started.exists() or proc.poll() is not None:
                break
            time.sleep(0.01)
        assert started.exists(), "the builder never started"
    finally:
        proc.kill()
        proc.wait()
    assert (dest.parent / "item.tmp" / "half.txt").exists() and not dest.exists()

    def build(tmp):
        tmp.mkdir()
        (tmp / "READY").write_text("whole")

    assert atomic.cached_directory(dest, build, marker="READY") == dest
    assert sorted(p.name for p in dest.iterdir()) == ["READY"]
    assert sorted(p.name for p in dest.parent.iterdir()) == ["item", "item.lock"]
