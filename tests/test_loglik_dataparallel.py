"""`loglik run` under torchrun: two CPU processes (gloo) give the single-process report and one run.

Every process here is a real `torchrun ... bananabench loglik run` on the tiny model; a rank is killed
with SIGKILL mid-run to show the run fails (exit 3, not finished) and `--resume` completes it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from evaluators.store.store import Store
from tests.conftest import REPO, cli_env, run_cli
from tests.test_loglik_data import official_shaped, write

pytestmark = pytest.mark.slow
SAMPLE = REPO / "tasks" / "samples" / "base-bench"
LAUNCHER = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--monitor-interval", "0.1"]
TORCHRUN = [*LAUNCHER, "-m", "evaluators"]
# The console script as its own program: torchrun starts no `python -u`, so each rank's stdout is buffered
SCRIPT = [*LAUNCHER, "--no-python", str(Path(sys.executable).parent / "bananabench")]


def torchrun(*args: str, env: dict[str, str] | None = None, timeout: float = 300,
             launcher: list[str] = TORCHRUN) -> subprocess.CompletedProcess:
    return subprocess.run([*launcher, *args], env=cli_env(env), cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


def report(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text())


def assert_same_items(got: dict, want: dict) -> None:
    """Same predictions, every choice's log-probs within 1e-6 (bitwise here: the same threads per process)."""
    assert [i["id"] for i in got["items"]] == [i["id"] for i in want["items"]]
    assert [i["prediction"] for i in got["items"]] == [i["prediction"] for i in want["items"]]
    worst = max(abs(a[key] - b[key]) for x, y in zip(got["items"], want["items"], strict=True)
                for a, b in zip(x["choices"], y["choices"], strict=True) for key in ("mean_logprob", "logprob_sum"))
    assert worst <= 1e-6
    assert got["items"] == want["items"]


def scored_by_rank(store: Store) -> dict[int, set[str]]:
    ranks: dict[int, set[str]] = {}
    for item_id, extra in store.query("SELECT item_id, extra FROM attempts").rows:
        ranks.setdefault(json.loads(extra)["rank"], set()).add(item_id)
    return ranks


def test_two_processes_give_the_single_process_report_and_one_run(tiny_model, tmp_path):
    common = ["loglik", "run", "--bench", "base-bench", "--model", tiny_model["path"], "--local-data", str(SAMPLE),
              "--device", "cpu", "--batch-size", "4"]
    single = run_cli(*common, "--threads", "1", "--name", "tiny", "--results", str(tmp_path / "r1"),
                     "--out-dir", str(tmp_path / "one"))
    assert single.returncode == 0, single.stderr
    # A shutdown hook each rank registers at start-up: the ranks end without the interpreter's shutdown, where a
    # process group's worker thread freeing a finished exchange can abort a rank after the run completed. Their
    # stdout is a buffered pipe (the console script, unbuffered output off): what rank 0 printed must come out.
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(
        "import atexit, os, pathlib\n"
        "if os.environ.get('RANK'):\n"
        "    here = pathlib.Path(__file__).parent\n"
        "    (here / ('started-' + os.environ['RANK'])).touch()\n"
        "    atexit.register((here / ('shut-down-' + os.environ['RANK'])).touch)\n")
    proc = torchrun(*common, "--name", "tiny", "--results", str(tmp_path / "r2"), "--out-dir", str(tmp_path / "two"),
                    "--json", env={"PYTHONPATH": f"{hooks}{os.pathsep}{REPO}", "PYTHONUNBUFFERED": ""},
                    launcher=SCRIPT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(proc.stdout.strip().splitlines()) == 1, proc.stdout  # rank 0 alone reports
    assert sorted(p.name for p in hooks.glob("s*-*")) == ["started-0", "started-1"]
    assert "rank 1/2" in proc.stderr and "process group gloo" in proc.stderr
    two = report(tmp_path / "two")
    assert_same_items(two, report(tmp_path / "one"))
    assert two["overall_elo"] == report(tmp_path / "one")["overall_elo"]

    store = Store(tmp_path / "r2")
    runs = store.runs()
    assert len(runs) == 1 and runs[0].status == "finished"
    assert store.query("SELECT count(*), count(DISTINCT item_id) FROM attempts").rows == [(21, 21)]
    by_rank = scored_by_rank(store)
    assert set(by_rank) == {0, 1} and all(by_rank.values()) and not by_rank[0] & by_rank[1]
    shards = runs[0].extra["timing"]["shards"]
    assert [s["rank"] for s in shards] == [0, 1] and {s["device"] for s in shards} == {"cpu"}
    assert [set(s["items"]) for s in shards] == [by_rank[0], by_rank[1]]
    assert two["config"]["scorer"]["data_parallel"]["world_size"] == 2
    # Scoring settings do not depend on the number of processes: one process resumes what two started.
    assert json.loads((tmp_path / "two" / "run_config.json").read_text())["signature_sha256"] == \
        json.loads((tmp_path / "one" / "run_config.json").read_text())["signature_sha256"]


def test_bad_data_stops_every_rank_with_exit_2(tiny_model, tmp_path):
    proc = torchrun("loglik", "run", "--bench", "base-bench", "--model", tiny_model["path"], "--name", "tiny",
                    "--local-data", str(tmp_path / "missing"), "--device", "cpu", "--results", str(tmp_path / "r"))
    assert proc.returncode != 0
    # Rank 0 refuses the data (exit 2); rank 1 hears of it at the start and stops too (torchrun may stop it first).
    assert re.search(r"rank\s*:\s*0 \(local_rank: 0\)\s*exitcode\s*:\s*2 ", proc.stderr), proc.stderr[-3000:]
    assert "rank 0 (" in proc.stderr and "could not start: BadInput" in proc.stderr and "missing" in proc.stderr
    assert not (tmp_path / "r" / "runs").exists()


def test_a_dead_rank_fails_the_run_and_resume_completes_it(tiny_model, tmp_path):
    data = write(tmp_path / "bb" / "data" / "test.jsonl", official_shaped()[:120])
    common = ["loglik", "run", "--bench", "base-bench", "--model", tiny_model["path"], "--local-data", str(data),
              "--device", "cpu", "--batch-size", "1", "--name", "m"]
    results, out = tmp_path / "results", tmp_path / "run"
    child = subprocess.Popen([*TORCHRUN, *common, "--results", str(results), "--out-dir", str(out)],
                             env=cli_env({"BANANABENCH_FLUSH_S": "0.5"}), cwd=REPO, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(child.stderr), daemon=True)
    reader.start()
    killed = None
    try:
        deadline = time.monotonic() + 300
        partial = out / "partial_results.jsonl"
        while time.monotonic() < deadline and child.poll() is None:
            pid = next((int(m.group(1)) for line in list(lines) if (m := re.search(r"rank 1/2: pid (\d+)", line))),
                       None)
            if pid and partial.exists() and partial.read_text().count("\n") >= 30:
                os.kill(pid, signal.SIGKILL)
                killed = pid
                break
            time.sleep(0.02)
        child.wait(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    reader.join(timeout=10)
    log = "".join(lines)
    assert killed, log[-3000:]
    assert child.returncode != 0
    # torchrun lists each rank's exit: the killed one, and rank 0 failing the run (exit 3).
    assert re.search(r"rank\s*:\s*0 \(local_rank: 0\)\s*exitcode\s*:\s*3 ", log), log[-3000:]
    assert re.search(rf"exitcode\s*:\s*-9 \(pid: {killed}\)", log), log[-3000:]
    store = Store(results)
    (run,) = store.runs()
    assert run.status == "failed" and ("launcher" in run.error or "lost contact" in run.error), run
    done = store.query("SELECT count(*) FROM attempts").rows[0][0]
    assert 30 <= done < 120

    proc = torchrun(*common, "--results", str(results), "--resume")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "resuming run" in proc.stderr
    (run,) = store.runs()
    assert run.status == "finished"
    assert store.query("SELECT count(*), count(DISTINCT item_id) FROM attempts").rows == [(120, 120)]
    assert set(scored_by_rank(store)) == {0, 1}
    reference = run_cli(*common[:-1], "ref", "--threads", "1", "--results", str(tmp_path / "r-ref"),
                        "--out-dir", str(tmp_path / "ref"))
    assert reference.returncode == 0, reference.stderr
    assert_same_items(report(out), report(tmp_path / "ref"))


def test_units_scored_alone_give_the_numbers_of_the_whole_list(tiny_model):
    """What makes sharding exact: hf's batches, scored one by one, reproduce a single call bit for bit."""
    pytest.importorskip("torch")
    from evaluators.models.backends.base import LoglikRequest
    from evaluators.models.backends.data_parallel import assign
    from evaluators.models.backends.hf import HFBackend

    backend = HFBackend(tiny_model["path"], device="cpu", threads=1)
    backend.configure_loglik(max_contexts=3)
    records = official_shaped()[:23]
    requests = [LoglikRequest(tuple(backend.tokenize(r["context"])), tuple(backend.tokenize(c)))
                for r in records for c in r["continuations"]]
    requests += requests[:5]  # duplicates share a unit and a result
    whole = dict(backend.loglikelihood(requests))
    units = backend.loglik_units(requests)
    assert sorted(i for u in units for i in u) == list(range(len(requests)))
    assert max(len({requests[i].context for i in u}) for u in units) == 3
    for unit in units:
        alone = dict(backend.loglikelihood([requests[i] for i in unit]))
        assert all(alone[k].logprob_sum == whole[i].logprob_sum for k, i in enumerate(unit))
    plan = assign(requests, units, 3)
    assert sorted(u for shard in plan for u in shard) == list(range(len(units)))
    assert [len(shard) for shard in plan] in ([3, 3, 2], [3, 2, 3], [2, 3, 3])


def test_device_map_auto_places_the_model_and_scores_alike(tiny_model):
    """accelerate's placement (here: everything on the CPU, the only device) goes through the same scorer."""
    pytest.importorskip("accelerate")
    from evaluators.core.errors import BadInput
    from evaluators.models.backends.base import LoglikRequest
    from evaluators.models.backends.hf import HFBackend

    plain = HFBackend(tiny_model["path"], device="cpu", threads=1)
    mapped = HFBackend(tiny_model["path"], device_map="auto", threads=1)
    assert mapped.identity.extra["device"] == "cpu" and mapped.identity.signature() == plain.identity.signature()
    requests = [LoglikRequest(tuple(plain.tokenize(r["context"])), tuple(plain.tokenize(c)))
                for r in official_shaped()[:6] for c in r["continuations"]]
    assert dict(mapped.loglikelihood(requests)) == dict(plain.loglikelihood(requests))
    with pytest.raises(BadInput, match="device_map"):
        HFBackend(tiny_model["path"], device_map="auto", device="cpu")


def test_torchrun_refuses_what_it_cannot_share(tiny_model, tmp_path):
    env = {"WORLD_SIZE": "2", "RANK": "0", "LOCAL_RANK": "0"}  # as torchrun sets them; refused before any contact
    for flags, words in ((["--backend", "server", "--base-url", "http://127.0.0.1:9"], "several servers"),
                         (["--model", tiny_model["path"], "--device-map", "auto"], "one or the other")):
        proc = run_cli("loglik", "run", "--bench", "base-bench", "--local-data", str(SAMPLE), *flags,
                       "--results", str(tmp_path / "r"), env=env, timeout=120)
        assert proc.returncode == 2 and words in proc.stderr, proc.stderr
    assert not (tmp_path / "r" / "runs").exists()
