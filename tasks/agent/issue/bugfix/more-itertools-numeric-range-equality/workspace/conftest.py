"""Added when this task was imported: the tests must exercise this copy of more_itertools, not the older
release that Debian installs with python3-pytest (python3-more-itertools), which comes first on sys.path."""
import importlib.util
import pathlib
import sys

_package = pathlib.Path(__file__).resolve().parent / "more_itertools"
_spec = importlib.util.spec_from_file_location("more_itertools", _package / "__init__.py",
                                               submodule_search_locations=[str(_package)])
sys.modules["more_itertools"] = _module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
