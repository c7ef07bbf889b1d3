"""Importing the CLI and printing help must stay light: torch loads only inside commands that need it."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO, cli_env

HEAVY = ("torch", "transformers", "xllamacpp", "tokenizers", "gguf")


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", probe], env=cli_env(), cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split("\n")[-2].split())


def test_import_cli_does_not_import_heavy_modules():
    loaded = _modules_after("import evaluators.cli, evaluators.api")
    assert not loaded & set(HEAVY)


def test_help_does_not_import_heavy_modules():
    code = ("import contextlib, io\nfrom evaluators.cli import main\n"
            "for argv in (['--help'], ['models', '--help'], ['models', 'serve', '--help'], "
            "['models', 'make-tiny', '--help'], ['models', 'download', '--help']):\n"
            "    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
            "        main(argv)")
    loaded = _modules_after(code)
    assert not loaded & set(HEAVY)


def test_help_exits_0():
    for argv in (["--help"], ["models", "serve", "--help"], ["models", "download", "--help"]):
        proc = subprocess.run([sys.executable, "-m", "evaluators", *argv], env=cli_env(), cwd=REPO,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and "usage: bananabench" in proc.stdout
