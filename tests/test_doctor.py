"""`bananabench doctor` checks the real parts the way the code uses them, and names the fix for each."""

from __future__ import annotations

import re
import subprocess

import pytest

from evaluators import doctor
from tests.conftest import REPO, run_cli

pytestmark = [pytest.mark.podman, pytest.mark.browser]

PARTS = ["Python packages", "Node.js on the host", "Pi coding agent", "podman sandbox",
         "task toolchains in the sandbox", "Chromium in the sandbox", "Chromium on the host (Playwright)",
         "llama.cpp server (xllamacpp)"]


def rows(stdout: str) -> dict[str, str]:
    """part -> the rest of its table line."""
    found = {}
    for line in stdout.splitlines()[1:]:
        part = next((p for p in PARTS if line.startswith(p + " ")), None)
        if part:
            found[part] = line[len(part):].strip()
    return found


def test_every_part_is_ok_on_a_machine_set_up_by_make(tmp_path):
    proc = run_cli("doctor", "--cache", str(REPO / ".cache"), timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    table = rows(proc.stdout)
    assert list(table) == PARTS and all(line.startswith("ok ") for line in table.values()), proc.stdout
    assert "--init, read-only root, no network, uid" in table["podman sandbox"]
    assert "rustc 1." in table["task toolchains in the sandbox"]
    assert f"{len(PARTS)} of {len(PARTS)} parts ok" in proc.stdout


def test_a_missing_container_init_is_named_with_its_package(tmp_path):
    """The first-run failure: podman without catatonit cannot start the sandbox's --init containers."""
    conf = tmp_path / "containers.conf"
    conf.write_text('[containers]\ninit_path = "/nonexistent/catatonit"\n')
    proc = run_cli("doctor", "--cache", str(REPO / ".cache"), env={"CONTAINERS_CONF": str(conf)}, timeout=600)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    table = rows(proc.stdout)
    assert table["podman sandbox"].startswith("MISSING") and "container-init binary not found" in table["podman sandbox"]
    assert table["podman sandbox"].endswith("apt-get install catatonit (make system-deps)")
    for part in ("task toolchains in the sandbox", "Chromium in the sandbox"):
        assert table[part].startswith("MISSING") and "needs a working podman sandbox" in table[part]
    assert table["Chromium on the host (Playwright)"].startswith("ok ")
    assert "5 of 8 parts ok" in proc.stdout


def _system_deps_packages() -> set[str]:
    text = (REPO / "scripts" / "system-deps.sh").read_text()
    block = re.search(r"packages=\((.*?)\n\)", text, re.S).group(1)
    return {word for line in block.splitlines() for word in line.split("#")[0].split()}


def test_every_package_a_fix_names_is_installed_by_make_system_deps():
    source = (REPO / "evaluators" / "doctor.py").read_text()
    named = {pkg for group in re.findall(r"apt-get install ([a-z0-9 .+-]+?) \(", source) for pkg in group.split()}
    named |= {tool[2] for tool in doctor.TOOLS} - {"nodejs"}  # Node >= 20.6 comes with the machine image
    assert {"catatonit", "runc", "chromium", "fonts-dejavu-core", "libgomp1", "rustc"} <= named
    assert named <= _system_deps_packages(), named - _system_deps_packages()
    proc = subprocess.run([str(REPO / "scripts" / "system-deps.sh")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "installing" not in proc.stdout, proc.stdout + proc.stderr


def test_make_venv_trusts_only_certificates_that_make_system_deps_installs():
    recipe = (REPO / "Makefile").read_text()
    assert "--system-certs" in recipe       # uv reads no pip.conf; it is told to use the system's store
    assert "ca-certificates" in _system_deps_packages()
