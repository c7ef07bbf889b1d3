"""Sandbox images: a full image built from a Containerfile, or an offline one that needs no registry.

- `full` (`bananabench-agent:full`): Debian with the toolchains, Chromium, Playwright and Pi
  installed from the committed package-lock (`support/Containerfile`). The normal path on a machine
  that reaches a container registry.
- `offline` (`bananabench-agent:offline`): a tiny imported root file system (users, mount points,
  `/etc/alternatives`, the loader cache, fonts config); at run time the host's `/usr` is mounted
  read-only so the host's Debian toolchains run inside, and Pi is mounted from the host's install.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import shutil
import subprocess
import tarfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from evaluators.agent.sandbox import podman as pm
from evaluators.core.errors import BadInput, EvaluationFailure

log = logging.getLogger("bananabench")

SUPPORT_DIR = Path(__file__).resolve().parents[1] / "support"
PI_DIR = Path(__file__).resolve().parents[1] / "pi"
PI_PACKAGE = "@mariozechner/pi-coding-agent"
ENV_PI_DIR = "BANANABENCH_PI_DIR"
IMAGES = {"full": "bananabench-agent:full", "offline": "bananabench-agent:offline"}
LABEL_KIND = "bananabench.image.kind"
LABEL_RECIPE = "bananabench.image.recipe"
LABEL_PI_VERSION = "bananabench.image.pi_version"
# Host files the offline root file system copies (small, needed by the host's /usr binaries).
_HOST_ETC = ("ld.so.cache", "ld.so.conf", "nsswitch.conf", "mime.types")
_HOST_ETC_TREES = ("ld.so.conf.d", "fonts", "alternatives")
PI_PACKAGE_DIR = f"node_modules/{PI_PACKAGE}"
PI_MOUNT = "/opt/pi"  # Pi in a container: the offline image mounts this machine's Pi folder here, the full image has its own
PI_CLI = f"{PI_MOUNT}/{PI_PACKAGE_DIR}/dist/cli.js"
# `make pi`'s bundle of PI_CLI (pi/bundle.mjs): the same code in a few files, a start in under half the CPU.
PI_BUNDLE = "dist/bananabench"
PI_BUNDLE_CLI = f"{PI_MOUNT}/{PI_PACKAGE_DIR}/{PI_BUNDLE}/cli.js"
PYLIB = "/opt/pylib"


@dataclass(frozen=True)
class Image:
    """A usable sandbox image and the mounts containers of it need."""

    name: str
    kind: str
    image_id: str
    pi_dir: str | None = None
    pi_version: str | None = None
    labels: dict[str, str] = field(default_factory=dict)

    @cached_property
    def pi_entry(self) -> str:
        """The script containers start Pi with: the bundle in this machine's Pi folder when it was built from the
        installed Pi (its manifest names that version), else Pi's own cli.js (the full image, a Pi of its own).
        Decided once per image, so every container of a run starts the same Pi."""
        if self.pi_dir and self.pi_version:
            bundle = Path(self.pi_dir) / PI_PACKAGE_DIR / PI_BUNDLE
            try:
                built_from = json.loads((bundle / "manifest.json").read_text())["pi_version"]
            except (OSError, ValueError, KeyError, TypeError):
                built_from = None
            if built_from == self.pi_version and (bundle / "cli.js").is_file():
                return PI_BUNDLE_CLI
        return PI_CLI

    @property
    def pi_bundled(self) -> bool:
        """Whether containers start `make pi`'s bundle (else Pi's own cli.js)."""
        return self.pi_entry == PI_BUNDLE_CLI

    def mounts(self, *, screenshots: bool = False, files: bool = True, remote: dict[str, Any] | None = None) -> list[str]:
        """Mounts every container of this image gets (read-only): the host's /usr for the offline image, and with
        `files` the support scripts, Pi and Playwright — this machine's folders, or on a remote host the volumes
        in `remote` (`support`, `pi`, `pylib`) that hold copies of them."""
        args = ["-v", "/usr:/usr:ro"] if self.kind == "offline" else []
        if not files:
            return args

        def source(key: str, local: str | None) -> str | None:
            if remote is None:
                return local
            return remote[key].volume if key in remote else None

        args += ["-v", f"{source('support', str(SUPPORT_DIR))}:/opt/bananabench:ro"]
        if self.kind == "offline":
            pi = source("pi", self.pi_dir)
            if pi:
                args += ["-v", f"{pi}:{PI_MOUNT}:ro"]
            if screenshots:
                site = source("pylib", playwright_site_dir())
                if site:
                    args += ["-v", f"{site}:{PYLIB}:ro", "-e", f"PYTHONPATH={PYLIB}"]
        return args

    def identity(self) -> dict[str, str | None]:
        return {"name": self.name, "kind": self.kind, "id": self.image_id[:19], "pi_version": self.pi_version}


def playwright_site_dir() -> str | None:
    """The site-packages folder holding the `playwright` Python package (mounted for screenshots)."""
    import importlib.util

    spec = importlib.util.find_spec("playwright")
    if spec is None or not spec.submodule_search_locations:
        return None
    return str(Path(list(spec.submodule_search_locations)[0]).parent)


def pi_dir() -> Path:
    return Path(os.environ.get(ENV_PI_DIR) or PI_DIR)


def pi_installed_version(directory: Path) -> str | None:
    manifest = directory / PI_PACKAGE_DIR / "package.json"
    try:
        return json.loads(manifest.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def install_pi(directory: Path, version: str | None = None) -> str:
    """`npm ci` from the committed lock and the bundle of its Pi (`Image.pi_entry`), or `npm install PKG@version`
    into a separate folder."""
    npm = shutil.which("npm")
    if npm is None:
        raise EvaluationFailure("npm not found: install Node.js 20+ and npm (make system-deps)")
    directory.mkdir(parents=True, exist_ok=True)
    if version:
        (directory / "package.json").write_text(json.dumps(
            {"name": "bananabench-pi", "private": True, "dependencies": {PI_PACKAGE: version}}) + "\n")
        cmd = [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts"]
    else:
        cmd = [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"]
    steps = [cmd] + ([["node", "bundle.mjs"]] if not version and (directory / "bundle.mjs").is_file() else [])
    for step in steps:
        proc = subprocess.run(step, cwd=directory, capture_output=True, text=True)
        if proc.returncode != 0:
            raise EvaluationFailure(f"installing Pi failed: {' '.join(step)} in {directory}: "
                                    f"{proc.stderr.strip()[-800:]}")
    installed = pi_installed_version(directory)
    if installed is None:
        raise EvaluationFailure(f"{directory}: npm finished but {PI_PACKAGE} is missing")
    return installed


def _add_dir(tar: tarfile.TarFile, name: str, mode: int = 0o755, uid: int = 0) -> None:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.uid, info.gid = tarfile.DIRTYPE, mode, uid, uid
    tar.addfile(info)


def _add_file(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    tar.addfile(info, io.BytesIO(data))


def _add_link(tar: tarfile.TarFile, name: str, target: str) -> None:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = tarfile.SYMTYPE, target
    tar.addfile(info)


def offline_rootfs() -> bytes:
    """The offline image's root file system as a tarball (tens of kilobytes)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in ("etc", "usr", "opt", "opt/pi", "opt/bananabench", PYLIB.strip("/"), "run", "proc", "sys",
                     "dev", "var", "root", "home", "mnt", "out", "src", "verify", "start"):
            _add_dir(tar, name, 0o700 if name == "root" else 0o755)
        for name in ("tmp", "var/tmp"):
            _add_dir(tar, name, 0o1777)
        for name in ("home/agent", "workspace"):
            _add_dir(tar, name, 0o755, uid=pm.AGENT_UID)
        for link, target in (("bin", "usr/bin"), ("lib", "usr/lib"), ("lib64", "usr/lib64"), ("sbin", "usr/sbin"),
                             ("lib32", "usr/lib32"), ("libx32", "usr/libx32")):
            _add_link(tar, link, target)
        _add_file(tar, "etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n"
                  b"agent:x:1000:1000:agent:/home/agent:/bin/bash\nnobody:x:65534:65534:nobody:/:/usr/sbin/nologin\n")
        _add_file(tar, "etc/group", b"root:x:0:\nagent:x:1000:\nnogroup:x:65534:\n")
        _add_file(tar, "etc/hostname", b"sandbox\n")
        etc = Path("/etc")
        for name in _HOST_ETC:
            path = etc / name
            if path.is_file():
                _add_file(tar, f"etc/{name}", path.read_bytes())
        for tree in _HOST_ETC_TREES:
            root = etc / tree
            if not root.is_dir():
                continue
            for current, dirs, files in os.walk(root):
                dirs.sort()
                rel = Path(current).relative_to(etc).as_posix()
                _add_dir(tar, f"etc/{rel}")
                for name in sorted(files + [d for d in dirs if (Path(current) / d).is_symlink()]):
                    path = Path(current) / name
                    if path.is_symlink():
                        _add_link(tar, f"etc/{rel}/{name}", os.readlink(path))
                    elif path.is_file() and path.stat().st_size < 1 << 20:
                        _add_file(tar, f"etc/{rel}/{name}", path.read_bytes())
    return buf.getvalue()


def _recipe_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def build_offline(podman: pm.Podman, *, pi_version: str | None = None, force: bool = False) -> Image:
    """Import the offline image (again only if its recipe changed); install Pi on the host if needed.

    The image holds no Pi: containers mount the host's Pi folder (`BANANABENCH_PI_DIR`, default the
    project's `evaluators/agent/pi`), so several checkouts can share one image.
    """
    directory = pi_dir()
    if pi_version:
        directory = Path(os.environ.get("BANANABENCH_CACHE") or ".cache").resolve() / f"pi-{pi_version}"
    installed = pi_installed_version(directory)
    if installed is None or (pi_version and installed != pi_version):
        log.info("installing Pi%s into %s", f" {pi_version}" if pi_version else "", directory)
        install_pi(directory, pi_version)
    if pi_version:
        log.warning("Pi %s is in %s: set %s=%s for runs to use it", pi_version, directory, ENV_PI_DIR, directory)
    return load(podman, import_offline(podman, force=force), pi=directory)


def import_offline(podman: pm.Podman, *, force: bool = False) -> str:
    """Import the offline image's root file system (again only if its recipe changed); returns its name."""
    rootfs = offline_rootfs()
    recipe = _recipe_hash(rootfs)
    name = IMAGES["offline"]
    current = pm.image_labels(podman, name)
    if current is None or current.get(LABEL_RECIPE) != recipe or force:
        changes = [f"LABEL {LABEL_KIND}=offline", f"LABEL {LABEL_RECIPE}={recipe}", "USER 1000:1000",
                   "WORKDIR /workspace", "ENV HOME=/home/agent", "ENV PATH=/usr/local/bin:/usr/bin:/bin",
                   'CMD ["/bin/sh"]']
        args = ["import"]
        for change in changes:
            args += ["--change", change]
        pm.run(podman, *args, "-", name, input=rootfs, timeout=300)
        log.info("built the offline sandbox image %s (host /usr and Pi are mounted at run time)", name)
    return name


def build_full(podman: pm.Podman, *, pi_version: str | None = None) -> Image:
    """`podman build` the full image from support/Containerfile (needs a registry for the base image)."""
    name = IMAGES["full"]
    lock = json.loads((PI_DIR / "package-lock.json").read_text())
    version = pi_version or lock["packages"][f"node_modules/{PI_PACKAGE}"]["version"]
    args = ["build", "-t", name, "-f", str(SUPPORT_DIR / "Containerfile"),
            "--build-arg", f"PI_VERSION={pi_version or ''}", "--label", f"{LABEL_KIND}=full",
            "--label", f"{LABEL_PI_VERSION}={version}"]
    context = PI_DIR
    cmd = podman.cmd(*args, str(context))
    log.info("building %s: %s", name, " ".join(cmd))
    proc = subprocess.run(cmd)
    if proc.returncode != 0:
        raise EvaluationFailure(f"podman build failed ({proc.returncode}); without a reachable container registry "
                                "use `bananabench agent build-image --offline`")
    return load(podman, name)


def load(podman: pm.Podman, name: str, *, pi: Path | None = None, require_pi: bool = True) -> Image:
    """The built image `name`; an offline one needs Pi installed on the host unless `require_pi` is False."""
    proc = pm.run(podman, "image", "inspect", "--format", "{{json .}}", name, check=False, timeout=60)
    if proc.returncode != 0:
        raise BadInput(f"sandbox image {name} not found; build it with `bananabench agent build-image`")
    info = json.loads(proc.stdout)
    info = info[0] if isinstance(info, list) else info
    labels = (info.get("Config") or {}).get("Labels") or info.get("Labels") or {}
    kind = labels.get(LABEL_KIND)
    if kind not in ("full", "offline"):
        raise BadInput(f"image {name} was not built by `bananabench agent build-image` (no {LABEL_KIND} label)")
    directory, version = None, labels.get(LABEL_PI_VERSION)
    if kind == "offline":
        directory = (pi or pi_dir()).resolve()
        version = pi_installed_version(directory)
        if version is None and require_pi:
            raise BadInput(f"Pi is not installed in {directory}: run `make pi` (npm ci there) or set {ENV_PI_DIR}")
        if version is None:
            directory = None
    return Image(name=name, kind=kind, image_id=info.get("Id", ""), pi_dir=str(directory) if directory else None,
                 pi_version=version, labels=labels)


def resolve(podman: pm.Podman, requested: str | None = None) -> Image:
    """The image to use: `--image`, else the full image if built, else the offline one (built on demand)."""
    if requested:
        return load(podman, requested)
    if pm.image_labels(podman, IMAGES["full"]) is not None:
        return load(podman, IMAGES["full"])
    return build_offline(podman)
