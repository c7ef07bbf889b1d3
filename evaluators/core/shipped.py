"""Where the content that ships with the code lives, in a checkout and in an installed wheel.

The top-level `templates/` and `tasks/` of a checkout are the source. A wheel carries copies of them under
`evaluators/_data/` (made by the build step in setup.py), so an installed `bananabench` publishes and runs
the demo and the agent benchmark from any folder; a checkout (editable install included) has no `_data/`.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
INSTALLED = PACKAGE / "_data"
# What the build step copies into `_data/`, relative to the checkout's root.
SHIPPED = ("templates", "tasks/agent", "tasks/samples")
# Build and cache litter a checkout may hold beside the tracked files: never copied (shutil.ignore_patterns).
LITTER = ("__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache", ".DS_Store", "node_modules", "target")


def shipped(relative: str) -> Path:
    """The folder `relative` (one of `SHIPPED` or a path inside one): the wheel's copy when installed, else
    the checkout's."""
    return (INSTALLED if INSTALLED.is_dir() else PACKAGE.parent) / relative
