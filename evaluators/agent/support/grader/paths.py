"""Where the code under test joins sys.path: after the standard library, before site-packages.

Nothing in the workspace may stand in for a standard module or the runner (the runner is imported before
this runs, and the standard library comes first), yet the workspace's own package must win over a release
of the same project installed system-wide (Debian's python3-pytest brings python3-more-itertools, say).
"""

from __future__ import annotations

import site
import sys


def add_code_under_test(roots: list[str]) -> None:
    """Insert `roots`, in order, just before the first site-packages folder on sys.path."""
    sites = set(site.getsitepackages())
    index = next((i for i, entry in enumerate(sys.path)
                  if entry in sites or entry.rstrip("/").endswith(("site-packages", "dist-packages"))), len(sys.path))
    sys.path[index:index] = roots
