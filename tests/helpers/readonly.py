"""Run the CLI with some folders read-only, as a user meets them (a read-only mount, a folder not theirs).

Root ignores permission bits, so as root the folders become read-only bind mounts inside a private
mount namespace of the child (nothing changes for any other process); otherwise they lose their
write permission for the duration of the call.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, cli_env

_REMOUNT = ('while [ "$1" != "--" ]; do mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" || exit 97; '
            'shift; done; shift; exec "$@"')


def run_cli_read_only(read_only: list[Path], *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """`bananabench ARGS...` in a fresh interpreter while every folder in `read_only` cannot be written."""
    command = [sys.executable, "-m", "evaluators", *args]
    if os.geteuid() == 0:
        command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", _REMOUNT, "sh",
                   *map(str, read_only), "--", *command]
        proc = subprocess.run(command, env=cli_env(), cwd=REPO, capture_output=True, text=True, timeout=timeout)
        assert proc.returncode != 97, f"could not make {read_only} read-only: {proc.stderr}"
        return proc
    modes = {path: path.stat().st_mode for path in read_only}
    try:
        for path, mode in modes.items():
            path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        return subprocess.run(command, env=cli_env(), cwd=REPO, capture_output=True, text=True, timeout=timeout)
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def tree(path: Path) -> dict[str, int]:
    """Every file under `path` with its size: compare before and after to see that nothing was written."""
    return {str(p.relative_to(path)): p.stat().st_size for p in sorted(path.rglob("*")) if p.is_file()}
