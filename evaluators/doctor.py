"""`bananabench doctor`: check every real part the evaluators use, exactly as they use it, in one table.

Each check runs the real thing with the code's own settings, so it cannot pass while the real use
fails: a sandbox container started with the agent sandbox's own flags (`Sandbox.base_args`: `--init`,
the OCI runtime and ulimits `podman.detect` picks, read-only root, no network, the agent user), the
task toolchains and Pi inside that container (the host's `/usr` as tasks see it, so Debian's rustc
counts, not one in ~/.cargo), Chromium through Playwright on the host and in the sandbox (the
screenshot script the gallery uses), and a llama.cpp server on a tiny model. Every row says what
fixes it; the exit status is 3 when anything is missing, so `make demo` and `make test` stop there.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from evaluators.core.errors import EXIT_FAILURE, BananaError

SYSTEM_DEPS = "make system-deps"
# Python packages the evaluators import, and the extra that brings each.
PYTHON_PACKAGES = (("torch", "hf"), ("transformers", "hf"), ("accelerate", "hf"), ("gguf", "gguf"),
                   ("xllamacpp", "gguf"), ("playwright", "browser"), ("modebench", "modes"))
# Toolchains agent tasks run in the sandbox: (name, command printing its version, Debian package, minimum, why).
TOOLS = (
    ("python3", "python3 --version", "python3", (3, 11), "Python tasks and verifiers"),
    ("pytest", "python3 -m pytest --version", "python3-pytest", None, "the pytest runner of agent tasks"),
    ("node", "node --version", "nodejs", (20, 6), "Pi and JavaScript tasks (Debian 12's nodejs is 18)"),
    ("go", "go version", "golang-go", (1, 19), "Go tasks (go.mod: go 1.19)"),
    ("rustc", "rustc --version", "rustc", (1, 56), "Rust tasks (edition 2021)"),
    ("cargo", "cargo --version", "cargo", (1, 56), "Rust tasks (edition 2021)"),
    ("g++", "g++ --version", "g++", (10, 0), "C++ tasks (-std=c++20)"),
    ("make", "make --version", "make", None, "C++ project tasks"),
    ("git", "git --version", "git", None, "the attempt's diff and [repo] tasks"),
    ("patch", "patch --version", "patch", None, "[repo] tasks with a patch"),
)
# podman's own errors, and the Debian package that fixes each.
PODMAN_ERRORS = (
    (re.compile(r"container-init binary not found|catatonit", re.I), f"apt-get install catatonit ({SYSTEM_DEPS})"),
    (re.compile(r"newuidmap|newgidmap|uid_map", re.I), f"apt-get install uidmap ({SYSTEM_DEPS})"),
    (re.compile(r"OCI runtime .*not found|default OCI runtime|runc.*not found|crun.*not found", re.I),
     f"apt-get install runc ({SYSTEM_DEPS})"),
    (re.compile(r"conmon", re.I), f"apt-get install conmon ({SYSTEM_DEPS})"),
)


@dataclass
class Check:
    part: str
    ok: bool
    detail: str
    fix: str = ""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="check every real part (podman sandbox, Chromium, llama.cpp, Node, Pi, toolchains)",
                       description="Check each real part the evaluators use, with the options the code really "
                                   "uses, and print one table: part, ok or missing, what fixes it. Exit 3 when "
                                   "something is missing (make demo and make test run this first).")
    p.add_argument("--cache", metavar="DIR", default=None,
                   help="where the tiny model for the llama.cpp check is built (default $BANANABENCH_CACHE or .cache)")
    p.set_defaults(func=cmd_doctor)


def cmd_doctor(args) -> int:
    cache = Path(args.cache or os.environ.get("BANANABENCH_CACHE") or ".cache")
    started = time.monotonic()
    checks = run_checks(cache)
    print(render(checks))
    missing = [c for c in checks if not c.ok]
    print(f"{len(checks) - len(missing)} of {len(checks)} parts ok ({time.monotonic() - started:.0f} s)"
          + (f"; fix the {len(missing)} missing part(s), then run this again" if missing else ""))
    return EXIT_FAILURE if missing else 0


def render(checks: list[Check]) -> str:
    rows = [("part", "status", "detail", "fix")] + [
        (c.part, "ok" if c.ok else "MISSING", _one_line(c.detail), c.fix if not c.ok else "") for c in checks]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r[:3], widths, strict=True)) + "  " + r[3]
                     for r in rows).rstrip()


def _one_line(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def run_checks(cache: Path) -> list[Check]:
    """Every row, in the table's order. The slow parts (the sandbox's containers, Chromium on the host, a
    llama.cpp server) are checked at once, a thread each: they mostly wait on processes they started, so the
    table takes about as long as the slowest of them (it runs first in `make test` and `make demo`)."""
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="doctor") as pool:
        sandbox = pool.submit(_sandbox_checks)
        host_chromium = pool.submit(_guard, "Chromium on the host (Playwright)", _host_chromium,
                                    f"apt-get install chromium ({SYSTEM_DEPS})")
        llama = pool.submit(_guard, "llama.cpp server (xllamacpp)", lambda: _llama_server(cache),
                            "make venv (the [gguf] extra)")
        checks = [_python_packages(), _host_node(), _host_pi()]
        return checks + sandbox.result() + [host_chromium.result(), llama.result()]


def _guard(part: str, check: Callable[[], Check], fix: str) -> Check:
    """A check that crashed is a missing part, with the reason (never a traceback instead of the table)."""
    try:
        return check()
    except (BananaError, OSError, subprocess.SubprocessError, RuntimeError, ImportError, ValueError) as exc:
        return Check(part, False, f"{type(exc).__name__}: {exc}", fix)


# -- the host ----------------------------------------------------------------------------------------


def _python_packages() -> Check:
    missing = [f"{name} [{extra}]" for name, extra in PYTHON_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        return Check("Python packages", False, "missing: " + ", ".join(missing),
                     "make venv (pip install -c requirements/constraints.txt -e '.[dev]')")
    return Check("Python packages", True, ", ".join(name for name, _ in PYTHON_PACKAGES))


def _version(text: str) -> tuple[int, ...] | None:
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    return tuple(int(g) for g in match.groups() if g is not None) if match else None


def _host_node() -> Check:
    node = shutil.which("node")
    if node is None:
        return Check("Node.js on the host", False, "node not found", "install Node.js >= 20.6 with npm (Debian 12's is 18)")
    text = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    version = _version(text)
    ok = version is not None and version[:2] >= (20, 6) and shutil.which("npm") is not None
    return Check("Node.js on the host", ok, f"node {text}" + ("" if shutil.which("npm") else ", npm missing"),
                 "install Node.js >= 20.6 with npm (Debian 12's is 18)")


def _host_pi() -> Check:
    from evaluators.agent.sandbox.image import pi_dir, pi_installed_version

    version = pi_installed_version(pi_dir())
    if version is None:
        return Check("Pi coding agent", False, f"not installed in {pi_dir()}", "make pi (npm ci from the committed lock)")
    return Check("Pi coding agent", True, f"{version} in {pi_dir()}")


def _host_chromium() -> Check:
    from evaluators.agent.corpus.validate import host_chromium, host_screenshot

    with tempfile.TemporaryDirectory(prefix="bb-doctor-") as tmp:
        page = Path(tmp) / "index.html"
        page.write_text("<!doctype html><title>doctor</title><h1>BananaBench doctor</h1>")
        report = host_screenshot(page, Path(tmp) / "out", width=320, height=240, timeout_s=120)
        shot = Path(tmp) / "out" / "screenshot.png"
        ok = bool(report.get("loaded")) and shot.is_file()
    return Check("Chromium on the host (Playwright)", ok,
                 f"{host_chromium()}: page loaded, screenshot taken" if ok else report.get("error", "no report"),
                 f"apt-get install chromium fonts-dejavu-core ({SYSTEM_DEPS}); make venv (the [browser] extra)")


def _llama_server(cache: Path) -> Check:
    from evaluators.models.llamacpp import LlamaServer
    from evaluators.models.tinymodel import cached_tiny

    tiny = cached_tiny(cache / "tiny-models", gguf=True)
    with LlamaServer(tiny["gguf"], n_ctx=256, threads=1, startup_timeout=120) as server:
        answer = server.client.post("/completion", {"prompt": "The", "n_predict": 2}, timeout=120)
    ok = isinstance(answer, dict) and "content" in answer
    return Check("llama.cpp server (xllamacpp)", ok, "started on a tiny GGUF model and generated" if ok
                 else f"unexpected answer {str(answer)[:80]}",
                 f"apt-get install libgomp1 ({SYSTEM_DEPS}); make venv (the [gguf] extra)")


# -- the sandbox -------------------------------------------------------------------------------------


def _podman_fix(text: str) -> str:
    return next((fix for pattern, fix in PODMAN_ERRORS if pattern.search(text)),
                f"apt-get install podman catatonit runc conmon uidmap ({SYSTEM_DEPS})")


def _sandbox_checks() -> list[Check]:
    """Containers started the way the agent sandbox starts them; the rows that depend on one container."""
    from evaluators.agent.sandbox import podman as pm
    from evaluators.agent.sandbox.containers import Sandbox

    dependent = ("task toolchains in the sandbox", "Chromium in the sandbox")
    try:
        podman = pm.detect()
        version = pm.run(podman, "--version", timeout=60).stdout.decode().strip()
        sandbox = Sandbox(podman, _image(podman), owner="bananabench-doctor")
        base = _guard("podman sandbox", lambda: _container(sandbox, version), _podman_fix(""))
    except BananaError as exc:
        base = Check("podman sandbox", False, str(exc), _podman_fix(str(exc)))
    if not base.ok:
        return [base] + [Check(part, False, "needs a working podman sandbox", "fix the podman sandbox first")
                         for part in dependent]
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="doctor-sandbox") as pool:   # containers of their own
        toolchains = pool.submit(_guard, dependent[0], lambda: _toolchains(sandbox), SYSTEM_DEPS)
        chromium = pool.submit(_guard, dependent[1], lambda: _sandbox_chromium(sandbox), SYSTEM_DEPS)
        return [base, toolchains.result(), chromium.result()]


def _image(podman):
    """The image `agent run` would use: the full one if built, else the offline one (imported if needed;
    Pi is mounted from the host when installed, its own row says when it is not)."""
    from evaluators.agent.sandbox import image as image_mod
    from evaluators.agent.sandbox import podman as pm
    if pm.image_labels(podman, image_mod.IMAGES["full"]) is not None:
        return image_mod.load(podman, image_mod.IMAGES["full"])
    return image_mod.load(podman, image_mod.import_offline(podman), require_pi=False)


def _container(sandbox, version: str) -> Check:
    from evaluators.agent.sandbox import podman as pm
    script = ('echo "uid $(id -u)"; if touch /.doctor 2>/dev/null; then echo "root writable"; '
              'else echo "root read-only"; fi; echo "net $(ls /sys/class/net | tr "\\n" " ")"')
    shot = sandbox.oneshot("doctor", [], script, timeout_s=120)
    text = shot.text
    if shot.rc != 0 or shot.timed_out:
        return Check("podman sandbox", False, text.strip() or f"exit {shot.rc}", _podman_fix(text))
    want_uid = os.getuid() if sandbox.podman.rootless else pm.AGENT_UID
    problems = []
    if f"uid {want_uid}" not in text:
        problems.append(f"not running as uid {want_uid}")
    if "root read-only" not in text:
        problems.append("root file system writable")
    net = re.search(r"net (.*)", text)
    if net is None or net.group(1).split() != ["lo"]:
        problems.append(f"network interfaces {net.group(1).split() if net else '?'} (want only lo)")
    runtime = sandbox.podman.runtime or "podman's default runtime"
    detail = f"{version}; {runtime}, --init, read-only root, no network, uid {want_uid}"
    return Check("podman sandbox", not problems, "; ".join(problems) or detail, _podman_fix(text))


def _toolchains(sandbox) -> Check:
    lines = [f'if out=$({cmd} 2>&1); then echo "TOOL {name} $(echo "$out" | head -n 1)"; '
             f'else echo "TOOL {name} MISSING"; fi' for name, cmd, *_ in TOOLS]
    if sandbox.image.pi_dir or sandbox.image.kind == "full":
        lines.append(f'echo "TOOL pi $(node {sandbox.image.pi_entry} --version 2>&1 | tail -n 1)"')
    shot = sandbox.oneshot("doctor", [], "; ".join(lines), timeout_s=120)
    found = dict(re.findall(r"^TOOL (\S+) (.*)$", shot.text, re.M))
    problems, seen, packages = [], [], []
    for name, _cmd, package, minimum, why in TOOLS:
        text = found.get(name, "MISSING")
        version = _version(text)
        if text == "MISSING" or (minimum and (version is None or version[:len(minimum)] < minimum)):
            need = f" >= {'.'.join(map(str, minimum))}" if minimum else ""
            problems.append(f"{name}{need} ({why}): {text}")
            packages.append(package)
        else:
            seen.append(f"{name} {'.'.join(map(str, version)) if version else 'ok'}")
    if "pi" in found and _version(found["pi"]) is None:
        problems.append(f"Pi does not start in the sandbox: {found['pi']}")
    fix = (f"apt-get install {' '.join(packages)} ({SYSTEM_DEPS})" if packages else "make pi")
    if "nodejs" in packages:
        fix += "; Node.js >= 20.6 from outside Debian 12"
    return Check("task toolchains in the sandbox", not problems, "; ".join(problems) or ", ".join(seen), fix)


def _sandbox_chromium(sandbox) -> Check:
    from evaluators.agent.sandbox.containers import prepare_scratch, valid_png

    with tempfile.TemporaryDirectory(prefix="bb-doctor-") as tmp:
        workspace, out = Path(tmp) / "workspace", Path(tmp) / "out"
        workspace.mkdir()
        (workspace / "index.html").write_text("<!doctype html><title>doctor</title><h1>BananaBench doctor</h1>")
        for path in (Path(tmp), workspace, workspace / "index.html"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        prepare_scratch(out, sandbox.podman)
        shot, report = sandbox.screenshot(workspace, out, page="index.html", build=None, width=320, height=240,
                                          mobile_width=None, timeout_s=180)
        ok = bool(report.get("loaded")) and valid_png(out / "screenshot.png")
    detail = "Playwright + Chromium took a screenshot in a sandbox container" if ok else \
        report.get("error") or shot.text.strip()[-300:] or f"exit {shot.rc}"
    return Check("Chromium in the sandbox", ok, detail,
                 f"apt-get install chromium fonts-dejavu-core ({SYSTEM_DEPS}); make venv (the [browser] extra)")

