"""The build step pyproject.toml cannot express: copy the top-level templates/ and tasks/ into the wheel.

They stay the source in the checkout; `evaluators.core.shipped` finds the copies (`evaluators/_data/`) in an
installed wheel. An editable install reads the checkout's own folders, so it copies nothing.
"""

import runpy
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
_SHIPPED = runpy.run_path(str(ROOT / "evaluators" / "core" / "shipped.py"))  # read, not imported: no deps here
SHIPPED, LITTER = _SHIPPED["SHIPPED"], shutil.ignore_patterns(*_SHIPPED["LITTER"])


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for relative in SHIPPED:
            target = Path(self.build_lib) / "evaluators" / "_data" / relative
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(ROOT / relative, target, ignore=LITTER)


setup(cmdclass={"build_py": BuildWithData})
