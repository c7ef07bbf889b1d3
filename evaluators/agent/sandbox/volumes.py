"""Size-limited file systems for an attempt's workspace and its verification stage.

Each is a sparse ext4 image mounted through a loop device (`nosuid,nodev,noatime`), so the kernel
refuses writes beyond its size: an agent can fill its own workspace, never the host's disk. The
image costs only what is written and disappears with the unmount. Loop mounts need root (the
rootful-podman setup); `--workspace-mb 0` runs without a limit where that is not possible.
Before an attempt the host's free space is checked against what its images could grow to.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from evaluators.core.errors import BadInput, EvaluationFailure

log = logging.getLogger("bananabench")

FULL_MARGIN = 4 << 20          # a workspace with less free space than this is full
DISK_MARGIN = 1 << 30          # free space the host keeps beyond what running attempts may use
_reserved = 0
_reserved_lock = threading.Lock()


def require_root(workspace_mb: int) -> None:
    if workspace_mb and os.geteuid() != 0:
        raise BadInput("the workspace size limit mounts file-system images through loop devices, which needs root "
                       "(rootful podman); run as root, or pass --workspace-mb 0 to run without a disk limit "
                       "(an agent could then fill this host's disk)")


@dataclass
class Volume:
    """A mounted size-limited file system (or, with size 0, a plain folder)."""

    path: Path
    size_mb: int
    image: Path | None = None

    def free_bytes(self) -> int:
        st = os.statvfs(self.path)
        return st.f_bavail * st.f_frsize

    def full(self) -> bool:
        return self.image is not None and self.free_bytes() < FULL_MARGIN

    def close(self) -> None:
        """Unmount and delete the image; nothing inside is read or walked (a plain folder is removed)."""
        if self.image is None:
            shutil.rmtree(self.path, ignore_errors=True)
            return
        proc = subprocess.run(["umount", str(self.path)], capture_output=True, text=True)
        if proc.returncode != 0:
            subprocess.run(["umount", "-l", str(self.path)], capture_output=True)
        try:
            self.path.rmdir()
        except OSError:
            pass
        self.image.unlink(missing_ok=True)
        self.image = None


def _run(argv: list[str]) -> None:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EvaluationFailure(f"{argv[0]} failed: {exc}") from exc
    if proc.returncode != 0:
        raise EvaluationFailure(f"{' '.join(argv[:2])} failed ({proc.returncode}): {proc.stderr.strip()[-300:]}")


def create(path: Path, size_mb: int, owner: tuple[int, int]) -> Volume:
    """A fresh empty file system of `size_mb` MiB mounted at `path` (a plain folder for size 0)."""
    path.mkdir(parents=True)
    if not size_mb:
        if os.geteuid() == 0:
            os.chown(path, *owner)
        return Volume(path, 0)
    image = path.with_name(path.name + ".img")
    try:
        with open(image, "wb") as fh:
            fh.truncate(size_mb << 20)
        mkfs = shutil.which("mkfs.ext4") or "/usr/sbin/mkfs.ext4"
        _run([mkfs, "-q", "-F", "-m", "0", "-O", "^has_journal", "-E",
              f"root_owner={owner[0]}:{owner[1]},nodiscard", str(image)])
        _run(["mount", "-o", "loop,nosuid,nodev,noatime", str(image), str(path)])
    except BaseException:
        image.unlink(missing_ok=True)
        path.rmdir()
        raise
    volume = Volume(path, size_mb, image)
    try:
        (path / "lost+found").rmdir()
    except OSError:
        pass
    return volume


def unmount_below(directory: Path) -> None:
    """Unmount what a crashed run left mounted under `directory` (before that folder is removed)."""
    prefix = str(directory.resolve()) + "/"
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return
    points = [line.split()[1].replace("\\040", " ") for line in mounts if len(line.split()) > 1]
    for point in sorted((p for p in points if p.startswith(prefix)), key=len, reverse=True):
        log.warning("unmounting %s, left by an interrupted attempt", point)
        subprocess.run(["umount", "-l", point], capture_output=True)


def reserve(directory: Path, need_bytes: int) -> None:
    """Fail (an infrastructure error) unless `directory`'s file system can hold `need_bytes` more."""
    global _reserved
    free = shutil.disk_usage(directory).free
    with _reserved_lock:
        if free - _reserved < need_bytes + DISK_MARGIN:
            raise EvaluationFailure(
                f"host disk low: {free / 2**30:.1f} GiB free at {directory}, running attempts may still use "
                f"{_reserved / 2**30:.1f} GiB and this one up to {need_bytes / 2**30:.1f} GiB (plus a "
                f"{DISK_MARGIN / 2**30:.0f} GiB margin); free space or lower --workspace-mb")
        _reserved += need_bytes


def release(need_bytes: int) -> None:
    global _reserved
    with _reserved_lock:
        _reserved = max(0, _reserved - need_bytes)
