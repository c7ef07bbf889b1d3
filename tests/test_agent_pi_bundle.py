"""Pi's bundle (`make pi`: pi/bundle.mjs): containers start it only when it was built from the installed Pi.

The bundle is Pi's own code in a few files (a start in under half the CPU); a Pi folder without one, or
with one left from another Pi version, starts Pi's cli.js as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from evaluators.agent.sandbox import image
from evaluators.agent.sandbox import podman as pm
from evaluators.agent.sandbox.containers import Resources, Sandbox
from evaluators.core.errors import EvaluationFailure
from tests.helpers.agent import needs_pi, needs_podman

BUNDLE_ENTRY = image.PI_BUNDLE_CLI
# What `npm ci` leaves, as far as bundle.mjs reads it: Pi's package (a CLI importing a CommonJS module and,
# lazily, an ES one) and the checkout's esbuild. The rest of install_pi (npm, node, bundle.mjs) is real.
FAKE_NPM = """#!/bin/sh
set -e
pkg=node_modules/@mariozechner/pi-coding-agent
mkdir -p $pkg/dist node_modules/@esbuild
echo '{"version": "9.9.9", "type": "module"}' > $pkg/package.json
echo 'module.exports = { word: "bundled" };' > $pkg/dist/word.cjs
echo 'export const later = "lazily";' > $pkg/dist/later.js
printf 'import w from "./word.cjs";\\nconst { later } = await import("./later.js");\\nconsole.log(w.word, later);\\n' > $pkg/dist/cli.js
ln -s "$ESBUILD_DIR/esbuild" node_modules/esbuild
for d in "$ESBUILD_DIR"/@esbuild/*; do ln -s "$d" node_modules/@esbuild/; done
"""


@contextlib.contextmanager
def scripted_npm(tmp_path: Path, script: str, **env: str):
    """`npm` on PATH is `script` (what install_pi runs of it); node, bundle.mjs and esbuild stay real."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "npm").write_text(script)
    (tmp_path / "bin" / "npm").chmod(0o755)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
        for key, value in env.items():
            mp.setenv(key, value)
        yield


def _checkout_folder(tmp_path: Path) -> Path:
    """A Pi folder as the checkout's (or an installed wheel's) is before `npm ci`: bundle.mjs beside the lock."""
    folder = tmp_path / "pi"
    folder.mkdir()
    (folder / "bundle.mjs").write_bytes((image.PI_DIR / "bundle.mjs").read_bytes())
    return folder


def _pi_folder(root: Path, version: str, bundle_version: str | None, *, entry: bool = True) -> Path:
    package = root / image.PI_PACKAGE_DIR
    (package / "dist").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"version": version}))
    if bundle_version is not None:
        (package / image.PI_BUNDLE).mkdir()
        (package / image.PI_BUNDLE / "manifest.json").write_text(json.dumps({"pi_version": bundle_version}))
        if entry:
            (package / image.PI_BUNDLE / "cli.js").write_text("// bundle\n")
    return root


@pytest.mark.parametrize(("bundle_version", "entry", "want"), [
    ("1.2.3", True, BUNDLE_ENTRY),       # built from the installed Pi
    ("1.2.2", True, image.PI_CLI),       # left from another version: never started
    ("1.2.3", False, image.PI_CLI),      # a manifest without its bundle
    (None, False, image.PI_CLI),         # no bundle (a Pi folder of one's own, `--pi-version`)
])
def test_the_bundle_is_started_only_when_built_from_the_installed_pi(tmp_path, bundle_version, entry, want):
    folder = _pi_folder(tmp_path, "1.2.3", bundle_version, entry=entry)
    offline = image.Image("bananabench-agent:offline", "offline", "id", pi_dir=str(folder),
                          pi_version=image.pi_installed_version(folder))
    assert offline.pi_entry == want and offline.pi_bundled == (want == BUNDLE_ENTRY)
    full = replace(offline, kind="full", pi_dir=None)                             # the full image's own Pi
    assert full.pi_entry == image.PI_CLI and not full.pi_bundled


def test_a_broken_manifest_starts_pis_own_cli(tmp_path):
    folder = _pi_folder(tmp_path, "1.2.3", "1.2.3")
    (folder / image.PI_PACKAGE_DIR / image.PI_BUNDLE / "manifest.json").write_text("{not json")
    assert image.Image("i", "offline", "id", pi_dir=str(folder), pi_version="1.2.3").pi_entry == image.PI_CLI


@pytest.mark.slow
@pytest.mark.podman
@needs_podman
@needs_pi
def test_make_pis_bundle_is_the_installed_pi_and_containers_start_it():
    podman = pm.detect()
    sandbox = Sandbox(podman, image.resolve(podman), owner="pi-bundle-test", resources=Resources(memory="512m"))
    assert sandbox.image.pi_entry == BUNDLE_ENTRY
    folder = Path(sandbox.image.pi_dir) / image.PI_PACKAGE_DIR
    manifest = json.loads((folder / image.PI_BUNDLE / "manifest.json").read_text())
    cli = folder / "dist" / "cli.js"
    assert manifest["pi_version"] == sandbox.image.pi_version
    assert manifest["source_sha256"] == hashlib.sha256(cli.read_bytes()).hexdigest()    # built from this Pi
    shot = sandbox.oneshot("pi-bundle", [], f"node {BUNDLE_ENTRY} --version; node {image.PI_CLI} --version",
                           timeout_s=120)
    assert shot.text.split() == [sandbox.image.pi_version] * 2, shot.text


@needs_pi
def test_install_pi_bundles_what_npm_ci_installed(tmp_path):
    folder = _checkout_folder(tmp_path)
    with scripted_npm(tmp_path, FAKE_NPM, ESBUILD_DIR=str(image.PI_DIR / "node_modules")):
        assert image.install_pi(folder) == "9.9.9"
    package = folder / image.PI_PACKAGE_DIR
    manifest = json.loads((package / image.PI_BUNDLE / "manifest.json").read_text())
    assert manifest["pi_version"] == "9.9.9"
    assert manifest["source_sha256"] == hashlib.sha256((package / "dist" / "cli.js").read_bytes()).hexdigest()
    chunks = {f.name: f.read_text() for f in (package / image.PI_BUNDLE).glob("*.js")}
    assert "bundled" in chunks.pop("cli.js")                                        # the static import is inside
    assert [name for name, text in chunks.items() if '"lazily"' in text]          # the lazy one stays apart
    ran = subprocess.run(["node", str(package / image.PI_BUNDLE / "cli.js")], capture_output=True, text=True,
                         timeout=60)
    assert (ran.returncode, ran.stdout) == (0, "bundled lazily\n"), ran.stderr
    assert image.Image("i", "offline", "id", pi_dir=str(folder), pi_version="9.9.9").pi_entry == BUNDLE_ENTRY


def test_a_bundle_that_cannot_be_built_fails_the_install_and_says_which_step(tmp_path):
    """npm installed Pi but no esbuild: install_pi stops naming `node bundle.mjs` and esbuild, no bundle left."""
    folder = _checkout_folder(tmp_path)
    without_esbuild = FAKE_NPM.split("ln -s")[0]
    with scripted_npm(tmp_path, without_esbuild), pytest.raises(EvaluationFailure) as failed:
        image.install_pi(folder)
    assert "node bundle.mjs" in str(failed.value) and "esbuild" in str(failed.value), failed.value
    assert not (folder / image.PI_PACKAGE_DIR / image.PI_BUNDLE / "manifest.json").exists()


def test_a_version_pinned_install_is_not_bundled(tmp_path):
    """`--pi-version` installs another Pi from the registry into its own folder: no bundle.mjs, nothing bundled."""
    folder = tmp_path / "pi-1.0.0"
    package = f"node_modules/{image.PI_PACKAGE}"
    with scripted_npm(tmp_path, f"#!/bin/sh\nmkdir -p {package}\necho '{{\"version\": \"1.0.0\"}}' > {package}/package.json\n"):
        assert image.install_pi(folder, "1.0.0") == "1.0.0"
    assert not (folder / image.PI_PACKAGE_DIR / image.PI_BUNDLE).exists()
    assert json.loads((folder / "package.json").read_text())["dependencies"] == {image.PI_PACKAGE: "1.0.0"}
