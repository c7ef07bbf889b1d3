"""One logging setup for the CLI: `bananabench: message` on stderr, secrets masked."""

from __future__ import annotations

import logging
import sys

from evaluators.core.secrets import ScrubFilter


def setup(verbose: bool = False, quiet: bool = False) -> None:
    logger = logging.getLogger("bananabench")
    logger.handlers.clear()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("bananabench: %(message)s"))
    handler.addFilter(ScrubFilter())
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if verbose else logging.WARNING if quiet else logging.INFO)
    logger.propagate = False
