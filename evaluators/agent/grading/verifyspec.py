"""A task's `[verify]` section: which runner grades it, the expected tests, what is restored.

The contract is written out in tasks/agent/README.md ("Verification"); this module parses and
checks it and derives the defaults (targets from `verify/`, restore globs per runner).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.core.errors import BadInput

RUNNERS = ("unittest", "pytest", "go", "cargo", "node", "cpp", "script")
# every file pytest reads its configuration from, at any depth (it looks beside and above the test paths)
_PY_CONFIG = ("**/conftest.py", "**/pytest.ini", "**/.pytest.ini", "**/pyproject.toml", "**/setup.cfg", "**/tox.ini",
              "**/tests/**", "**/test/**", "**/test_*.py", "**/*_test.py", "**/sitecustomize.py", "**/usercustomize.py",
              "**/*.pth")
DEFAULT_RESTORE: dict[str, tuple[str, ...]] = {
    "unittest": _PY_CONFIG,
    "pytest": _PY_CONFIG,
    "go": ("go.mod", "go.sum", "go.work", "go.work.sum", "vendor/**", "**/*_test.go", "**/testdata/**"),
    "cargo": ("**/Cargo.toml", "Cargo.lock", "**/build.rs", ".cargo/**", "rust-toolchain", "rust-toolchain.toml",
              "tests/**", "benches/**", "vendor/**"),
    "node": ("**/package.json", "package-lock.json", ".npmrc", "node_modules/**", "test/**", "tests/**",
             "**/*.test.js", "**/*.test.mjs", "**/*.test.cjs"),
    "cpp": ("Makefile", "makefile", "GNUmakefile", "CMakeLists.txt", "**/*.cmake", "tests/**", "test/**"),
    "script": (),
}
_COMMON = {"runner", "tests", "fail_to_pass", "pass_to_pass", "flaky", "timeout_s", "partial", "restore", "targets",
           "args"}
_SPECIFIC = {"unittest": {"pythonpath"}, "pytest": {"pythonpath"}, "go": {"vet"}, "cargo": {"release"}, "node": set(),
             "cpp": {"build", "binaries"}, "script": {"build", "cmd"}}
ErrorFactory = Callable[[str, str], BadInput]


@dataclass(frozen=True)
class VerifySpec:
    """`tests` are the expected tests: a plain list, or `fail_to_pass` + `pass_to_pass` (the tests the fix
    makes pass, the tests it must keep passing); `flaky` lists tests validation left out (never graded)."""

    runner: str
    tests: tuple[str, ...]
    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: tuple[str, ...] = ()
    flaky: tuple[str, ...] = ()
    timeout_s: float = 600.0
    partial: bool = False
    restore: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    build: str | None = None
    binaries: tuple[str, ...] = ()
    cmd: str | None = None
    vet: bool = False
    release: bool = False
    pythonpath: tuple[str, ...] = ()

    @property
    def two_phase(self) -> bool:
        return self.runner in ("go", "cargo", "cpp")

    def restore_globs(self) -> list[str]:
        return list(DEFAULT_RESTORE[self.runner]) + [g for g in self.restore if g not in DEFAULT_RESTORE[self.runner]]

    def resolved_targets(self, verify_dir: Path) -> list[str]:
        """`targets`, or the runner's default derived from the hidden files."""
        if self.targets:
            return list(self.targets)
        return default_targets(self.runner, verify_dir)


def default_targets(runner: str, verify_dir: Path) -> list[str]:
    if not verify_dir.is_dir():
        return []
    files = sorted(p.relative_to(verify_dir).as_posix() for p in verify_dir.rglob("*") if p.is_file())
    name = lambda rel: rel.rsplit("/", 1)[-1]  # noqa: E731
    if runner == "unittest":
        return [rel[:-3].replace("/", ".") for rel in files if name(rel).startswith("test") and rel.endswith(".py")]
    if runner == "pytest":
        return [rel for rel in files if rel.endswith(".py") and (name(rel).startswith("test_") or rel.endswith("_test.py"))]
    if runner == "go":
        return sorted({rel.rsplit("/", 1)[0] if "/" in rel else "." for rel in files if rel.endswith("_test.go")})
    if runner == "cargo":
        return [rel[len("tests/"):-3] for rel in files if rel.startswith("tests/") and rel.count("/") == 1
                and rel.endswith(".rs")]
    if runner == "node":
        return [rel for rel in files if name(rel).rsplit(".", 2)[-2:-1] == ["test"] and rel.endswith((".js", ".mjs", ".cjs"))]
    return []


def _strings(value: Any, key: str, err: ErrorFactory, *, nonempty: bool = False) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise err(f"verify.{key}", "must be a list of non-empty strings")
    if nonempty and not value:
        raise err(f"verify.{key}", "must not be empty")
    return tuple(value)


def _relative(values: tuple[str, ...], key: str, err: ErrorFactory) -> None:
    for value in values:
        if value.startswith("/") or ".." in value.split("/"):
            raise err(f"verify.{key}", f"{value!r} must be a path relative to the workspace")


def parse(section: Any, err: ErrorFactory) -> VerifySpec:
    """Check a `[verify]` table; `err(key, message)` builds the located error."""
    if not isinstance(section, dict):
        raise err("verify", "required: a [verify] table with runner and tests (see tasks/agent/README.md)")
    runner = section.get("runner")
    if runner is None:
        if "cmd" in section:
            raise err("verify.cmd", "a verify command alone no longer grades a task (its exit status can be forged): "
                                    "declare `runner` and `tests` (see tasks/agent/README.md, Verification)")
        raise err("verify.runner", f"required, one of {', '.join(RUNNERS)}")
    if runner not in RUNNERS:
        raise err("verify.runner", f"must be one of {', '.join(RUNNERS)}, not {runner!r}")
    known = _COMMON | _SPECIFIC[runner]
    unknown = sorted(set(section) - known)
    if unknown:
        raise err(f"verify.{unknown[0]}", f"unknown field for runner {runner!r} (known: {', '.join(sorted(known))})")
    split = {key: _strings(section.get(key, []), key, err) for key in ("fail_to_pass", "pass_to_pass", "flaky")}
    if "fail_to_pass" in section or "pass_to_pass" in section:
        if "tests" in section:
            raise err("verify.tests", "a task lists `tests` or `fail_to_pass` + `pass_to_pass`, not both")
        tests = split["fail_to_pass"] + split["pass_to_pass"]
        both = set(split["fail_to_pass"]) & set(split["pass_to_pass"])
        if both:
            raise err("verify.pass_to_pass", f"{sorted(both)[0]!r} is also in fail_to_pass")
    elif "tests" in section:
        tests = _strings(section.get("tests"), "tests", err)
    else:
        raise err("verify.tests", "required: the expected test ids, as `tests` or `fail_to_pass` + `pass_to_pass` "
                                  "(`agent validate --write-tests` fills them in)")
    if len(set(tests)) != len(tests):
        raise err("verify.tests", "lists a test id twice")
    if set(split["flaky"]) & set(tests):
        raise err("verify.flaky", f"{sorted(set(split['flaky']) & set(tests))[0]!r} is flaky and also expected")
    timeout = section.get("timeout_s", 600)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise err("verify.timeout_s", f"must be a positive number, not {timeout!r}")
    flags = {}
    for key in ("partial", "vet", "release"):
        value = section.get(key, False)
        if not isinstance(value, bool):
            raise err(f"verify.{key}", f"must be true or false, not {value!r}")
        flags[key] = value
    lists = {key: _strings(section.get(key, []), key, err)
             for key in ("restore", "targets", "args", "binaries", "pythonpath")}
    for key in ("restore", "binaries", "pythonpath"):
        _relative(lists[key], key, err)
    if runner != "unittest":
        _relative(lists["targets"], "targets", err)
    commands = {}
    for key in ("build", "cmd"):
        value = section.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise err(f"verify.{key}", "must be a non-empty shell command")
        commands[key] = value
    if runner == "cpp" and (not commands["build"] or not lists["binaries"]):
        raise err("verify.build" if not commands["build"] else "verify.binaries",
                  "the cpp runner needs `build` and the `binaries` it produces")
    if runner == "script" and not commands["cmd"]:
        raise err("verify.cmd", "the script runner needs `cmd`, the grader command")
    return VerifySpec(runner=runner, tests=tests, fail_to_pass=split["fail_to_pass"],
                      pass_to_pass=split["pass_to_pass"], flaky=split["flaky"], timeout_s=float(timeout), partial=flags["partial"],
                      restore=lists["restore"], targets=lists["targets"], args=lists["args"], build=commands["build"],
                      binaries=lists["binaries"], cmd=commands["cmd"], vet=flags["vet"], release=flags["release"],
                      pythonpath=lists["pythonpath"])
