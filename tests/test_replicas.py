"""`--base-url` given several times: replicas of one model share the work; a different one is refused.

Real llama.cpp servers (xllamacpp) on the tiny GGUF model, one slot each and no prompt cache, so
every greedy answer is computed alone, the same way whichever replica gives it: a run over two
replicas must give a one-server run's answers, even when one replica is killed mid-run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from evaluators.core.contract import ERROR, AttemptKey
from evaluators.models.backends.discovery import ServerOptions, discover
from evaluators.models.llamacpp import LlamaServer
from evaluators.models.tinymodel import cached_tiny
from evaluators.store.records import AttemptRow, RunRow
from evaluators.store.store import Store
from tests.conftest import REPO, TINY_MODELS, cli_env, run_cli

pytestmark = pytest.mark.slow

SAMPLES_DIR = REPO / "tasks" / "samples" / "chat"
N_ITEMS = 12  # the ARC sample
CHAT = ["chat", "run", "--task", "arc", "--data", str(SAMPLES_DIR), "--name", "tiny", "--max-tokens", "1024",
        "--extra-body", '{"ignore_eos": true, "cache_prompt": false}']


def serve(gguf: str) -> LlamaServer:
    return LlamaServer(gguf, n_ctx=4096, parallel=1, alias="tiny", threads=1)


@pytest.fixture(scope="module")
def pair(tiny_model):
    """Two servers of the same model file, started apart (their volatile fields differ)."""
    with serve(tiny_model["gguf"]) as a, serve(tiny_model["gguf"]) as b:
        yield a, b


def journal(results: Path) -> list[dict]:
    rows = []
    for path in results.glob("runs/*/attempts.jsonl"):
        for line in path.read_text().splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line being written
            if "attempt" in entry:
                rows.append(entry["attempt"])
    return rows


def the_run(results: Path) -> tuple[RunRow, dict[str, AttemptRow]]:
    store = Store(results)
    [run] = store.runs(benchmark="arc_challenge_chat")
    return run, {r.item_id: r for r in store.attempts(run.run_id)}


def answers(rows: dict[str, AttemptRow]) -> dict[str, str]:
    return {item: row.extra[AttemptKey.RAW] for item, row in rows.items()}


def start_chat(results: Path, *urls: str, extra: tuple[str, ...] = ()) -> subprocess.Popen:
    args = [*CHAT, "--results", str(results), *extra]
    for url in urls:
        args += ["--base-url", url]
    # rows reach the store once a second (not after each answer), so the journal keeps up with the servers
    return subprocess.Popen([sys.executable, "-m", "evaluators", *args], cwd=REPO,
                            env=cli_env({"BANANABENCH_FLUSH_S": "1"}),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(condition, proc: subprocess.Popen, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, f"the run ended before {what}: {proc.communicate()[1][-2000:]}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def one_server(pair, tmp_path_factory):
    """The reference: the same run against one server."""
    results = tmp_path_factory.mktemp("one-server")
    proc = run_cli(*CHAT, "--results", str(results), "--base-url", pair[0].base_url)
    assert proc.returncode == 0, proc.stderr
    return the_run(results)


def test_replicas_started_apart_match_though_their_volatile_fields_differ(pair):
    a, b = (discover(server.base_url) for server in pair)
    assert a.props["media_marker"] != b.props["media_marker"]  # drawn at every start: not configuration
    info = ServerOptions(base_url=[pair[0].base_url + "/v1", pair[1].base_url]).discover()
    assert info.urls == [pair[0].base_url, pair[1].base_url]
    assert info.fingerprint == a.fingerprint == b.fingerprint
    assert info.identity().signature() == a.identity().signature()
    assert info.run_extra()["server"]["replicas"] == info.urls


def test_two_replicas_share_a_run_and_one_killed_mid_run_loses_nothing(pair, tiny_model, one_server, tmp_path):
    results = tmp_path / "results"
    with serve(tiny_model["gguf"]) as doomed:
        lost = doomed.base_url
        proc = start_chat(results, pair[0].base_url, lost)
        wait_for(lambda: any(r["extra"].get("replica") == lost for r in journal(results)), proc,
                 "the second replica answered")
        assert len(journal(results)) < N_ITEMS, "the replica must die mid-run"
        os.kill(doomed.pid, signal.SIGKILL)
        _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    run, rows = the_run(results)
    assert run.status == "finished" and len(rows) == N_ITEMS
    assert not [r for r in rows.values() if r.status == ERROR]
    served = Counter(r.extra["replica"] for r in rows.values())
    assert served[pair[0].base_url] > 0 and 0 < served[lost] < N_ITEMS
    reference_run, reference = one_server
    assert answers(rows) == answers(reference)
    assert run.signature == reference_run.signature  # the same model, however many servers
    assert run.extra["server"]["replicas"] == [pair[0].base_url, lost]


def test_a_replica_serving_another_model_file_is_refused_before_anything_is_written(pair, tmp_path):
    other = cached_tiny(TINY_MODELS, seed=1, gguf=True)
    results = tmp_path / "results"
    with serve(other["gguf"]) as odd:
        url = odd.base_url
        proc = run_cli(*CHAT, "--results", str(results), "--base-url", pair[0].base_url, "--base-url", url)
    assert proc.returncode == 2, proc.stderr
    assert f"{url} differs from {pair[0].base_url}" in proc.stderr
    assert "props.model_path" in proc.stderr and "media_marker" not in proc.stderr
    assert not (results / "runs").exists()
    if (results / "bananabench.duckdb").exists():
        store = Store(results)
        assert store.runs() == [] and store.query("SELECT count(*) FROM server_configs").rows[0][0] == 0


def test_every_replica_down_fails_the_run_and_resume_on_another_set_completes_it(pair, tiny_model, one_server,
                                                                                 tmp_path):
    results = tmp_path / "results"
    retry = ("--retries", "2", "--retry-wait", "0.1")
    with serve(tiny_model["gguf"]) as x, serve(tiny_model["gguf"]) as y:
        proc = start_chat(results, x.base_url, y.base_url, extra=retry)
        wait_for(lambda: len(journal(results)) >= 1, proc, "an answer")
        os.kill(x.pid, signal.SIGKILL)
        os.kill(y.pid, signal.SIGKILL)
        _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 3, stderr
    run, rows = the_run(results)
    assert run.status != "finished" and 1 <= len([r for r in rows.values() if r.status != ERROR]) < N_ITEMS

    resumed = run_cli(*CHAT, "--results", str(results), "--base-url", pair[1].base_url, "--resume", *retry)
    assert resumed.returncode == 0, resumed.stderr
    after, rows = the_run(results)
    assert after.run_id == run.run_id and after.status == "finished" and len(rows) == N_ITEMS
    assert not [r for r in rows.values() if r.status == ERROR]
    assert answers(rows) == answers(one_server[1])


def test_modes_draws_are_shared_by_replicas(pair, tmp_path):
    from evaluators.modes.demo import walkthrough_files

    tasks = walkthrough_files(tmp_path / "walkthrough")["tasks"]
    out = tmp_path / "draws.jsonl"
    proc = run_cli("modes", "generate", "--input", str(tasks), "--name", "tiny", "--k", "2", "--groups", "2",
                   "--max-tokens", "8", "--seed", "3", "--out", str(out),
                   "--base-url", pair[0].base_url, "--base-url", pair[1].base_url)
    assert proc.returncode == 0, proc.stderr
    draws = [d for line in out.read_text().splitlines() for d in json.loads(line)["draws"]]
    assert all(d.get("tokens_out") and not d.get("error") for d in draws)
    served = Counter(d["replica"] for d in draws)
    assert set(served) == {pair[0].base_url, pair[1].base_url}, served


def test_loglik_teacher_forcing_is_shared_by_replicas_and_survives_one_killed(pair, tiny_model, tmp_path):
    from tests.test_loglik_gguf_cli import SAMPLE

    def args(results: Path, *urls: str) -> list[str]:
        out = ["loglik", "run", "--bench", "base-bench", "--data", str(SAMPLE), "--results", str(results),
               "--json", "--backend", "server", "--name", "tiny", "--limit", "12"]
        for url in urls:
            out += ["--base-url", url]
        return out

    def report(stdout: str) -> dict:
        return json.loads((Path(json.loads(stdout)["runs"][0]["dir"]) / "report.json").read_text())

    proc = run_cli(*args(tmp_path / "one", pair[0].base_url))
    assert proc.returncode == 0, proc.stderr
    one = report(proc.stdout)
    results = tmp_path / "two"
    with serve(tiny_model["gguf"]) as doomed:
        lost = doomed.base_url
        two_proc = subprocess.Popen([sys.executable, "-m", "evaluators", *args(results, pair[0].base_url, lost)],
                                    cwd=REPO, env=cli_env({"BANANABENCH_FLUSH_S": "1"}), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
        wait_for(lambda: len(journal(results)) >= 1, two_proc, "a scored item")
        assert len(journal(results)) < 12, "the replica must die mid-run"
        os.kill(doomed.pid, signal.SIGKILL)
        stdout, stderr = two_proc.communicate(timeout=300)
    assert two_proc.returncode == 0, stderr
    assert "the unit starts again on another replica" in stderr
    two = report(stdout)
    # the same numbers up to the last rounding step, which depends on what a slot's cache held (teacher_forcing)
    for x, y in zip(one["items"], two["items"], strict=True):
        assert x["id"] == y["id"]
        assert max(abs(p["mean_logprob"] - q["mean_logprob"]) for p, q in zip(x["choices"], y["choices"],
                                                                              strict=True)) <= 1e-6
    assert [i["prediction"] for i in one["items"]] == [i["prediction"] for i in two["items"]]
    replicas = {r["url"]: r for r in two["config"]["scorer"]["replicas"]}
    assert list(replicas) == [pair[0].base_url, lost]
    assert replicas[pair[0].base_url]["served"] > 0 and replicas[pair[0].base_url]["down"] is None
    assert replicas[lost]["served"] > 0 and replicas[lost]["down"]
