"""A results or output folder that cannot be written is bad input: exit 2, one clear line, nothing written,
before any model is loaded or any server is contacted."""

from __future__ import annotations

import json
import socket

import pytest

from evaluators.store.store import Store
from tests.conftest import REPO, run_cli
from tests.helpers.readonly import run_cli_read_only, tree

SAMPLES = REPO / "tasks" / "samples"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def store_dir(tmp_path):
    """An existing results folder holding a store (what a user points --results at)."""
    results = tmp_path / "results"
    with Store(results).write():
        pass
    return results


def _assert_refused(proc, path, before, folder):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert str(path) in proc.stderr and "not writable" in proc.stderr, proc.stderr
    assert tree(folder) == before


def test_loglik_run_refuses_a_read_only_results_folder_before_loading_the_model(store_dir, tiny_model):
    before = tree(store_dir)
    proc = run_cli_read_only([store_dir], "loglik", "run", "--bench", "base-evals", "--data",
                             str(SAMPLES / "base-evals"), "--model", tiny_model["path"], "--results", str(store_dir))
    _assert_refused(proc, store_dir, before, store_dir)
    assert "loading" not in proc.stderr.lower()


def test_modes_run_refuses_read_only_results_and_out_before_contacting_the_server(store_dir, tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "t1", "level": 1, "domain": "countdown", "problem": "Make 18 from 3, 6, 9.",
                                 "answer": {"verifier": "countdown", "numbers": [3, 6, 9], "target": 18}}) + "\n")
    server = f"http://127.0.0.1:{_closed_port()}"
    before = tree(store_dir)
    proc = run_cli_read_only([store_dir], "modes", "run", "--input", str(tasks), "--base-url", server,
                             "--name", "m", "--results", str(store_dir), "--k", "2", "--groups", "1")
    _assert_refused(proc, store_dir, before, store_dir)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    proc = run_cli_read_only([out_dir], "modes", "run", "--input", str(tasks), "--base-url", server, "--name", "m",
                             "--results", str(tmp_path / "fresh"), "--out", str(out_dir / "r.jsonl"),
                             "--k", "2", "--groups", "1")
    _assert_refused(proc, out_dir, {}, out_dir)
    assert not (tmp_path / "fresh").exists()


def test_publish_refuses_a_read_only_site_folder_and_reads_a_read_only_store(store_dir, tmp_path):
    site = tmp_path / "out" / "site"
    assert run_cli("publish", "--results", str(store_dir), "--out", str(site)).returncode == 0
    before = tree(site)
    proc = run_cli_read_only([site.parent], "publish", "--results", str(store_dir), "--out", str(site))
    _assert_refused(proc, site.parent, before, site)
    # Reading needs no write access: a read-only store publishes.
    proc = run_cli_read_only([store_dir], "publish", "--results", str(store_dir), "--out", str(tmp_path / "new"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "new" / "index.html").is_file()
