"""The tiny model starts building when the run starts, not when the first test asks for it.

On a fresh clone nothing is under `.cache/tiny-models` (`make test` builds it in `bananabench doctor`, `make
check` runs no doctor): the first worker to need it built it (~12 s) while the other, needing it too, waited idle.
The controlling process starts the build in a child process instead, beside the workers' start and collection; the
`tiny_model` fixture then finds it built, or waits on `cached_tiny`'s lock. Where it is already built, the child
only checks (~0.3 s). The build is atomic: a run that ends first interrupts the child, which removes its
temporary folder, so nothing half-made is left.
"""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

_BUILD = "import sys; from evaluators.models.tinymodel import cached_tiny; cached_tiny(sys.argv[1], gguf=True)"
_KEY = pytest.StashKey[subprocess.Popen]()


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or config.getoption("collectonly"):  # an xdist worker, or nothing will run
        return
    from tests.conftest import REPO, TINY_MODELS, cli_env

    config.stash[_KEY] = subprocess.Popen([sys.executable, "-c", _BUILD, str(TINY_MODELS)], cwd=REPO, env=cli_env(),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def pytest_unconfigure(config: pytest.Config) -> None:
    child = config.stash.get(_KEY, None)
    if child is not None and child.poll() is None:
        child.send_signal(signal.SIGINT)  # KeyboardInterrupt: make_tiny removes its temporary folder
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
