"""The built wheel, installed into a fresh venv, works from a folder outside the checkout: it carries the
templates, the agent tasks and the sample data, publishes a site, and runs `demo --tiny` (every evaluator,
the agent in the podman sandbox included).

The fresh venv gets the wheel with `--no-deps`; its dependencies come from this test's own venv through a
`.pth` line (a plain path: the checkout's editable install there is not picked up), so nothing is
downloaded and no `evaluators` but the installed one can be imported.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from evaluators.core.shipped import LITTER, SHIPPED
from evaluators.store.store import Store
from tests.conftest import REPO, built_once, run_cli

# One xdist worker runs them all: another would only wait for the wheel to be built.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wheel")]
IGNORED = shutil.ignore_patterns(*LITTER)


def _build(folder: Path) -> dict[str, Path]:
    """Build the wheel from a copy of the checkout (a build writes build/ and *.egg-info beside its
    sources) and install it into a fresh venv."""
    src, dist, venv = folder / "src", folder / "dist", folder / "venv"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(REPO / name, src / name)
    for name in ("evaluators", "templates", "tasks"):
        shutil.copytree(REPO / name, src / name, ignore=IGNORED, symlinks=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(dist), str(src)], check=True, capture_output=True, text=True)
    [wheel] = dist.glob("bananabench-*.whl")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)], check=True,
                   capture_output=True, text=True)
    return {"wheel": wheel, "bin": venv / "bin", "purelib": Path(purelib)}


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> dict[str, Path]:
    return built_once(tmp_path_factory, "wheel", _build)[1]


def run_installed(installed: dict[str, Path], cwd: Path, *args: str, env: dict[str, str] | None = None,
                  timeout: float = 600) -> subprocess.CompletedProcess:
    """The installed `bananabench` as a user runs it: from `cwd`, no PYTHONPATH, no checkout in sight."""
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "BANANABENCH_RESULTS")}
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.run([str(installed["bin"] / "bananabench"), *args], cwd=cwd, env={**clean, **(env or {})},
                          capture_output=True, text=True, timeout=timeout)


def shipped_files(relative: str) -> set[str]:
    """What the build step copies of the checkout's `relative` folder."""
    root, out = REPO / relative, set()
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(set(dirs) - IGNORED(current, dirs))
        out |= {str(Path(current, f).relative_to(root)) for f in set(files) - IGNORED(current, files)}
    return out


def test_the_wheel_carries_templates_tasks_and_samples(installed):
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    for relative in SHIPPED:
        prefix = f"evaluators/_data/{relative}/"
        assert {n[len(prefix):] for n in names if n.startswith(prefix)} == shipped_files(relative), relative
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert {"evaluators/agent/support/Containerfile", "evaluators/agent/pi/package-lock.json",
            "evaluators/specs/base-bench.toml"} <= set(names)
    data = installed["purelib"] / "evaluators" / "_data"
    executables = [Path(relative, f) for relative in SHIPPED for f in shipped_files(relative)
                   if os.access(REPO / relative / f, os.X_OK)]
    assert executables and all(os.access(data / path, os.X_OK) for path in executables)


def test_installed_bananabench_lists_tasks_and_publishes_outside_the_checkout(installed, publish_store, tmp_path):
    probe = subprocess.run([str(installed["bin"] / "python"), "-c", "import evaluators; print(evaluators.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, env={"PATH": os.environ["PATH"]})
    assert probe.stdout.startswith(str(installed["purelib"]))
    tasks = run_installed(installed, tmp_path, "agent", "list")
    assert tasks.returncode == 0, tasks.stderr
    assert tasks.stdout == run_cli("agent", "list").stdout and "smoke/" in tasks.stdout
    root, _ = publish_store
    proc = run_installed(installed, tmp_path, "publish", "--results", str(root), "--out", "site")
    assert proc.returncode == 0, proc.stderr
    assert "alpha-7b" in (tmp_path / "site" / "index.html").read_text()
    css = (tmp_path / "site" / "assets" / "style.css").read_bytes()
    assert css == (REPO / "templates" / "static" / "style.css").read_bytes()


@pytest.mark.podman
@pytest.mark.browser
def test_installed_demo_tiny_runs_every_evaluator_outside_the_checkout(installed, tmp_path):
    # Pi comes from the checkout's `make pi` (an installed bananabench would `npm ci` it on first use); the
    # folder that really holds node_modules, as the container mounts that folder (a worktree links it)
    pi = (REPO / "evaluators" / "agent" / "pi" / "node_modules").resolve().parent
    proc = run_installed(installed, tmp_path, "demo", "--tiny", timeout=1500, env={"BANANABENCH_PI_DIR": str(pi)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    store = Store(tmp_path / "results")
    assert {run.evaluator for run in store.runs(status="finished")} == {"loglik", "chat", "agent", "modes"}
    assert "reference run" in (tmp_path / "site" / "gallery.html").read_text()
    assert str(tmp_path / "site") in proc.stdout
