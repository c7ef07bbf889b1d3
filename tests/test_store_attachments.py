"""The store's one in-process DuckDB instance: threads share a file's attachment, and the lock goes with the last user."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator

import duckdb
import pytest

from evaluators.store.store import Store, StoreBusy
from tests.conftest import REPO, cli_env

OTHER_PROCESS = """
import sys
from evaluators.store.store import Store, StoreBusy
s = Store(sys.argv[1], lock_timeout=0.3)
for action in sys.stdin:
    try:
        if action.strip() == 'read':
            print(s.query('SELECT count(*) FROM models').rows[0][0], flush=True)
        else:
            s.ensure_model('from-the-other-process')
            print('wrote', flush=True)
    except StoreBusy as exc:
        print('busy', exc, flush=True)
"""


@contextlib.contextmanager
def other_process(root) -> Iterator[Callable[[str], str]]:
    """Another process on the store: ask it to `read` or `write` (each within 0.3 s), get what it got."""
    proc = subprocess.Popen([sys.executable, "-c", OTHER_PROCESS, str(root)], env=cli_env(), cwd=REPO, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def ask(action: str) -> str:
        proc.stdin.write(action + "\n")
        proc.stdin.flush()
        answer = proc.stdout.readline().strip()
        assert answer, proc.communicate(timeout=60)[1]
        return answer

    try:
        yield ask
    finally:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err


def test_threads_write_and_read_one_store_at_once_and_leave_it_unlocked(tmp_path):
    store = Store(tmp_path)
    store.ensure_model("seed")
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(15):
                store.ensure_model(f"t{k}-{i}")
                assert store.query("SELECT count(*) FROM models WHERE name = ?", [f"t{k}-{i}"]).rows == [(1,)]
        except BaseException as exc:  # noqa: BLE001 - the assertion below reports it
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    # Nobody here holds the file now: a plain DuckDB open (read-write, exclusive) succeeds and sees every row.
    con = duckdb.connect(str(store.path))
    try:
        assert con.execute("SELECT count(*) FROM models").fetchone()[0] == 1 + 6 * 15
    finally:
        con.close()


def test_a_read_held_here_lets_other_processes_read_but_not_write(tmp_path):
    store = Store(tmp_path)
    store.ensure_model("m")
    with other_process(tmp_path) as other:
        with store.read() as con:
            assert con.execute("SELECT count(*) FROM models").fetchone()[0] == 1
            assert other("read") == "1"
            assert other("write").startswith("busy")
        assert other("write") == "wrote"
    assert store.query("SELECT name FROM models ORDER BY name").rows == [("from-the-other-process",), ("m",)]


def test_a_write_held_here_keeps_other_processes_out_and_lets_this_process_read(tmp_path):
    store = Store(tmp_path)
    store.ensure_model("m")
    with other_process(tmp_path) as other:
        with store.write() as con:
            con.execute("INSERT INTO models (name, created_at) VALUES ('uncommitted', now())")
            assert other("read").startswith("busy")
            # Another thread of this process reads through the same attachment (committed rows only).
            seen: list = []
            reader = threading.Thread(target=lambda: seen.append(store.query("SELECT count(*) FROM models").rows))
            reader.start()
            reader.join()
            assert seen == [[(1,)]]
        assert other("read") == "2"


def test_a_writer_waits_for_this_process_readers_and_gives_up_at_its_timeout(tmp_path):
    store = Store(tmp_path)
    store.ensure_model("m")
    reading = threading.Event()

    def read_for(seconds: float) -> None:
        with store.read():
            reading.set()
            time.sleep(seconds)

    reader = threading.Thread(target=read_for, args=(0.6,))
    reader.start()
    reading.wait()
    started = time.monotonic()
    store.ensure_model("after-the-reader")  # waits for the read-only attachment to go, then attaches read-write
    assert time.monotonic() - started > 0.2
    reader.join()

    reading.clear()
    reader = threading.Thread(target=read_for, args=(1.0,))
    reader.start()
    reading.wait()
    impatient = Store(tmp_path, lock_timeout=0.3)
    with pytest.raises(StoreBusy, match="read-only"):
        impatient.ensure_model("never")
    reader.join()
    assert [r[0] for r in store.query("SELECT name FROM models ORDER BY name").rows] == ["after-the-reader", "m"]


def test_two_store_files_are_attached_side_by_side(tmp_path):
    first, second = Store(tmp_path / "a"), Store(tmp_path / "b")
    first.ensure_model("in-a")
    second.ensure_model("in-b")
    with first.read() as a, second.write() as b:
        b.execute("INSERT INTO models (name, created_at) VALUES ('also-in-b', now())")
        assert a.execute("SELECT name FROM models").fetchall() == [("in-a",)]
    assert second.query("SELECT count(*) FROM models").rows == [(2,)]
    assert first.query("SELECT count(*) FROM models").rows == [(1,)]


def test_a_file_that_is_not_a_database_is_a_clear_error_and_leaves_nothing_attached(tmp_path):
    from evaluators.core.errors import EvaluationFailure

    (tmp_path / "bananabench.duckdb").write_text("not a database, only text\n")
    store = Store(tmp_path)
    for _ in range(2):  # the second try gets the same answer, not "already attached"
        with pytest.raises(EvaluationFailure, match="cannot open the results database.*not a valid DuckDB"):
            store.query("SELECT 1")
    (tmp_path / "bananabench.duckdb").unlink()
    store.ensure_model("m")  # the same path, now a real store, attaches and works
    assert Store(tmp_path).query("SELECT name FROM models").rows == [("m",)]
