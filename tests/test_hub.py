"""Hub access through the real huggingface_hub code against a local fake Hub: revisions, gating, tokens."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, cli_env
from tests.fakehub import FakeHub

GOOD = "hf_testGrantedToken1234567890"
NO_ACCESS = "hf_testTokenWithoutAccess0987"
ROWS = b'{"id": "q1", "question": "2+2?", "answer": "4"}\n'


@pytest.fixture(scope="module")
def hub(tiny_model, tmp_path_factory):
    folder = tmp_path_factory.mktemp("repo")
    for name in ("config.json", "generation_config.json", "model.safetensors", "tokenizer.json",
                 "tokenizer_config.json", "chat_template.jinja"):
        shutil.copy(Path(tiny_model["path"]) / name, folder / name)
    (folder / "model.gguf").write_bytes(b"GGUF not for transformers")
    with FakeHub() as fake:
        fake.v1 = fake.add_repo("acme/tiny-llama", folder)
        fake.tag("acme/tiny-llama", "v1")
        fake.v2 = fake.add_repo("acme/tiny-llama", {**{p.name: p.read_bytes() for p in folder.iterdir()},
                                                    "README.md": b"# tiny\n"})
        fake.data = fake.add_repo("acme/gated-eval", {"data/test.jsonl": ROWS}, repo_type="dataset", gated=True)
        fake.add_token(GOOD)
        fake.add_token(NO_ACCESS, grants=())
        yield fake


def _env(hub: FakeHub, home: Path, token: str | None = None) -> dict[str, str]:
    env = cli_env(hub.env(home))
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "HF_OIDC_RESOURCE"):
        env.pop(name, None)
    if token:
        env["HF_TOKEN"] = token
    return env


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """`bananabench ARGS` with no terminal at all (own session, stdin from /dev/null)."""
    return subprocess.run([sys.executable, "-m", "evaluators", *args], env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL, start_new_session=True)


def _cli_in_pty(env: dict[str, str], answer: str, *args: str, timeout: float = 120) -> tuple[int, str]:
    """`bananabench ARGS` on a pseudo-terminal; types `answer` when asked for a token."""
    pid, fd = pty.fork()
    if pid == 0:  # child: become the CLI
        try:
            os.chdir(REPO)
            os.execve(sys.executable, [sys.executable, "-m", "evaluators", *args], env)
        finally:
            os._exit(127)
    output, answered = b"", False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
                if not answered and b"input hidden" in output:
                    os.write(fd, answer.encode() + b"\n")
                    answered = True
        else:
            os.kill(pid, 9)
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), output.decode(errors="replace")


def test_gated_dataset_with_hf_token(hub, tmp_path):
    proc = _cli(_env(hub, tmp_path, GOOD), "-v", "models", "download", "acme/gated-eval", "data/test.jsonl",
                "--repo-type", "dataset")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["revision"] == hub.data
    assert Path(out["files"][0]).read_bytes() == ROWS
    assert GOOD not in proc.stdout + proc.stderr


def test_gated_dataset_with_saved_login_token(hub, tmp_path):
    env = _env(hub, tmp_path)
    Path(env["HF_HOME"]).mkdir(parents=True)
    Path(env["HF_HOME"], "token").write_text(GOOD)  # where `hf auth login` saves it
    proc = _cli(env, "models", "download", "acme/gated-eval", "--repo-type", "dataset")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (Path(out["path"]) / "data" / "test.jsonl").read_bytes() == ROWS
    assert GOOD not in proc.stdout + proc.stderr


def test_gated_dataset_asks_for_a_token_on_a_terminal(hub, tmp_path):
    code, output = _cli_in_pty(_env(hub, tmp_path), GOOD, "models", "download", "acme/gated-eval",
                               "data/test.jsonl", "--repo-type", "dataset")
    assert code == 0, output
    assert "is gated: access refused without a token" in output
    assert hub.data in output
    assert GOOD not in output  # typed without echo, never printed


def test_a_refused_typed_token_is_a_clear_error(hub, tmp_path):
    code, output = _cli_in_pty(_env(hub, tmp_path), NO_ACCESS, "models", "download", "acme/gated-eval",
                               "--repo-type", "dataset")
    assert code == 2, output
    assert "access refused for this token" in output and "also with the token you typed" in output
    assert NO_ACCESS not in output


def test_gated_dataset_without_terminal_or_token_exits_2(hub, tmp_path):
    proc = _cli(_env(hub, tmp_path), "models", "download", "acme/gated-eval", "--repo-type", "dataset")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "dataset repo acme/gated-eval is gated" in lines[0] and "HF_TOKEN" in lines[0]
    assert "hf auth login" in lines[0]
    assert not (Path(_env(hub, tmp_path)["HF_HUB_CACHE"]) / "datasets--acme--gated-eval" / "snapshots").exists()


def test_tokens_that_are_rejected_or_lack_access(hub, tmp_path):
    proc = _cli(_env(hub, tmp_path, "hf_notARealToken000000"), "models", "download", "acme/gated-eval",
                "--repo-type", "dataset")
    assert proc.returncode == 2
    assert "access refused (401, the token was not accepted)" in proc.stderr
    proc = _cli(_env(hub, tmp_path, NO_ACCESS), "models", "download", "acme/gated-eval", "--repo-type", "dataset")
    assert proc.returncode == 2
    assert "request access at https://huggingface.co/datasets/acme/gated-eval" in proc.stderr
    assert NO_ACCESS not in proc.stderr and "hf_notARealToken000000" not in proc.stderr


def test_missing_repo_file_and_revision_are_clear_errors(hub, tmp_path):
    env = _env(hub, tmp_path, GOOD)
    cases = [
        (("acme/nope",), "model repo acme/nope was not found"),
        (("acme/tiny-llama", "nope.json"), "no file 'nope.json' in the repo"),
        (("acme/tiny-llama", "--revision", "v9"), "at revision v9: no such revision on the Hub"),
        (("not-a-repo-id",), "'not-a-repo-id' is not a Hub repo id"),
    ]
    for args, message in cases:
        proc = _cli(env, "models", "download", *args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)


def test_offline_uses_the_cache_and_fails_clearly_without_it(hub, tmp_path):
    env = _env(hub, tmp_path)
    online = _cli(env, "models", "download", "acme/tiny-llama", "config.json", "--revision", "v1")
    assert online.returncode == 0, online.stderr
    env["HF_HUB_OFFLINE"] = "1"
    offline = _cli(env, "models", "download", "acme/tiny-llama", "config.json", "--revision", "v1")
    assert offline.returncode == 0, offline.stderr
    assert json.loads(offline.stdout) == json.loads(online.stdout)
    proc = _cli(env, "models", "download", "acme/tiny-llama", "tokenizer.json")
    assert proc.returncode == 3
    assert "model repo acme/tiny-llama: cannot reach the Hub and no cached copy" in proc.stderr


@pytest.mark.slow
def test_hf_backend_loads_a_hub_id_at_a_pinned_revision(hub, tiny_model, tmp_path):
    code = ("import json; from evaluators.models.backends.hf import HFBackend\n"
            "for rev in ('v1', None):\n"
            "    b = HFBackend('acme/tiny-llama', revision=rev, device='cpu')\n"
            "    print(json.dumps({**b.identity.as_artifact(), 'ids': b.tokenize(' the cat')}))")
    proc = subprocess.run([sys.executable, "-c", code], env=_env(hub, tmp_path), cwd=REPO, capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    old, new = (json.loads(line) for line in proc.stdout.strip().splitlines()[-2:])
    assert old["revision"] == hub.v1 and new["revision"] == hub.v2
    assert old["source"] == "acme/tiny-llama" and old["kind"] == "hf" and old["dtype"] == "float32"
    assert old["files_sha256"]["model.safetensors"] == tiny_model["weights_sha256"]
    assert {"config.json", "tokenizer.json", "tokenizer_config.json"} <= set(old["files_sha256"])
    assert old["n_params"] == tiny_model["n_params"]
    assert old["weights_sha256"] == new["weights_sha256"]  # README.md changed, the model did not
    snapshot = Path(old["extra"]["folder"])
    assert not (snapshot / "model.gguf").exists()  # only what transformers needs is downloaded
    assert old["ids"] and tiny_model["special_token_ids"]["bos"] not in old["ids"]


def test_hf_backend_names_both_places_it_looked(hub, tmp_path):
    code = ("from evaluators.models.backends.hf import HFBackend\n"
            "from evaluators.core.errors import BadInput\n"
            "try:\n    HFBackend('acme/nope')\nexcept BadInput as exc:\n    print(exc)")
    proc = subprocess.run([sys.executable, "-c", code], env=_env(hub, tmp_path, GOOD), cwd=REPO,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert "model repo acme/nope was not found" in proc.stdout
    assert "no local folder 'acme/nope'" in proc.stdout
