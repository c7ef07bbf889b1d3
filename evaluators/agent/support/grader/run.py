"""The verification driver: stage the workspace copy, build the hidden tests, run them with a recorder.

    python3 -I run.py SPEC_JSON PHASE...      PHASE: stage, build, run

Trusted code, standard library only; the host starts it in fresh containers (build: with the hidden
files; run: without them, except for script graders) or directly for `agent validate --native`.
Every test process writes its own record of each test's outcome (JSON lines) under
`<stage>/report/`; the host reads only those records. This driver's exit status means only
"the build failed" (3) or "the spec is broken" (2): it never says whether tests passed.
The run phase reads the canary pair's names from standard input and gives each test process its own
numbered pair the same way (canary.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # -I leaves the script's folder off sys.path; this folder is ours and read-only

import stage as staging  # noqa: E402
from shadows import HEADER, remove_shadows  # noqa: E402

SOURCE_SUFFIXES = (".go", ".rs", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx")
BUILD_FAILED = 3
TWO_PHASE = ("go", "cargo", "cpp")
CARGO_CANARY = "zzzz_bananabench_canary"     # a module name that sorts after the tests' names
_LIB_KINDS = {"lib", "rlib", "dylib", "cdylib", "staticlib", "proc-macro"}
_TEST_MAIN = re.compile(rb"^func\s+TestMain\s*\(", re.M)
_PACKAGE = re.compile(rb"^package\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
_GO_CASE = re.compile(rb"^\s*--- (PASS|FAIL|SKIP): (Test\S*/\S+) \(([0-9.]+)s\)")  # a test's subtest's outcome
_GO_OUTCOMES = {b"PASS": "passed", b"FAIL": "failed", b"SKIP": "skipped"}
_GO_TEST = re.compile(r"^Test\w*$")
MAX_RECORD_READ = 16 << 20


class BuildFailed(Exception):
    pass


class Driver:
    def __init__(self, spec: dict):
        self.spec = spec
        self.runner = spec["runner"]
        self.stage = spec["stage"]
        self.ws = os.path.join(self.stage, "ws")
        self.report = os.path.join(self.stage, "report")
        self.bin = os.path.join(self.stage, "bin")
        self.manifest_path = os.path.join(self.bin, "manifest.json")
        self.canary: dict = {}
        self.canaries_given = 0

    # -- environment ------------------------------------------------------------------------

    def env(self, **extra: str) -> dict[str, str]:
        home = os.environ.get("HOME") or os.path.join(self.stage, "home")
        tmp = self.spec.get("tmp") or "/tmp"
        env = {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "CI": "1", "TMPDIR": tmp,
               "BANANABENCH_INCLUDE": os.path.join(HERE, "include"),
               "BANANABENCH_HEADER": os.path.join(HERE, "include", HEADER)}
        if self.spec.get("verify"):
            env["BANANABENCH_VERIFY"] = self.spec["verify"]
        if self.runner == "go":
            vendored = os.path.isfile(os.path.join(self.ws, "vendor", "modules.txt"))
            env.update(GOCACHE=os.path.join(tmp, "go-cache"), GOPATH=os.path.join(tmp, "go-path"), GOPROXY="off",
                       GOENV="off", GOTOOLCHAIN="local", CGO_ENABLED="0", GOFLAGS="-mod=vendor" if vendored else "-mod=mod",
                       GOTELEMETRY="off")
        if self.runner == "cargo":
            env.update(CARGO_HOME=os.path.join(tmp, "cargo-home"), CARGO_TARGET_DIR=os.path.join(self.stage, "target"),
                       CARGO_NET_OFFLINE="true", CARGO_MANIFEST_DIR=self.ws)
        env.update(extra)
        return env

    def call(self, argv: list[str], cwd: str, *, canary: bool = False, **extra: str) -> int:
        """Run one command; with `canary`, the canary pair's line is its standard input."""
        print(f"$ {' '.join(argv)}", flush=True)
        if canary:
            return subprocess.run(argv, cwd=cwd, env=self.env(**extra), input=self.next_canary()).returncode
        return subprocess.run(argv, cwd=cwd, env=self.env(**extra), stdin=subprocess.DEVNULL).returncode

    def next_canary(self) -> bytes:
        """The canary pair of the next test process: the host's two names, numbered by process."""
        if not isinstance(self.canary, dict) or not all(isinstance(self.canary.get(k), str) for k in ("pass", "fail")):
            return b""
        n = self.canaries_given
        self.canaries_given += 1
        return (json.dumps({k: f"{self.canary[k]}_{n}" for k in ("pass", "fail")}) + "\n").encode()

    def report_file(self, name: str) -> str:
        os.makedirs(self.report, exist_ok=True)
        path = os.path.join(self.report, re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:120] + ".jsonl")
        open(path, "a").close()
        return path

    # -- phases -----------------------------------------------------------------------------

    def do_stage(self) -> None:
        for sub in ("ws", "report", "bin"):
            staging.remove(os.path.join(self.stage, sub))
        os.makedirs(self.report)
        os.makedirs(self.bin)
        log = staging.stage(self.spec["src"], self.spec["start"], self.spec.get("verify"), self.ws,
                            self.spec["restore"], self.spec["cap"])
        log += remove_shadows(self.ws, self.spec["start"], self.spec.get("verify"), self.spec["restore"],
                              self.python_roots().split(os.pathsep), python=self.runner in ("unittest", "pytest"))
        for line in log:
            print(f"stage: {line}", flush=True)

    def do_build(self) -> None:
        build = getattr(self, f"build_{self.runner}", None)
        manifest = build() if build else {}
        with open(self.manifest_path, "w") as fh:
            json.dump(manifest or {}, fh)
        if self.runner in TWO_PHASE:
            self.drop_hidden_sources()

    def do_run(self) -> None:
        try:
            self.canary = json.loads(sys.stdin.readline(4096)) if sys.stdin is not None else {}
        except ValueError:
            self.canary = {}
        getattr(self, f"run_{self.runner}")()

    def manifest(self) -> dict:
        try:
            with open(self.manifest_path) as fh:
                return json.load(fh)
        except (OSError, ValueError):
            return {}

    def drop_hidden_sources(self) -> None:
        """The tests are compiled: their sources leave the copy the code under test can read."""
        verify = self.spec.get("verify")
        if not verify or not os.path.isdir(verify):
            return
        for rel, _ in staging.walk(verify):
            if rel.endswith(SOURCE_SUFFIXES):
                staging.remove(os.path.join(self.ws, rel))

    def shell_build(self) -> None:
        command = self.spec.get("build")
        if command and self.call(["/bin/sh", "-c", command], self.ws) != 0:
            raise BuildFailed(f"build command failed: {command}")

    # -- python -----------------------------------------------------------------------------

    def python_roots(self) -> str:
        """The workspace and the task's `pythonpath` folders, appended (in this order) after the standard library."""
        return os.pathsep.join([self.ws] + [os.path.join(self.ws, p) for p in self.spec.get("pythonpath", [])])

    def run_unittest(self) -> None:
        self.call([self.spec["python"], "-I", os.path.join(HERE, "pyunit.py"), self.python_roots(),
                   *self.spec["targets"]], self.ws, canary=True, BANANABENCH_REPORT=self.report_file("unittest"))

    def run_pytest(self) -> None:
        self.call([self.spec["python"], "-I", os.path.join(HERE, "pytest_run.py"), self.python_roots(),
                   *self.spec["args"], "--", *self.spec["targets"]], self.ws, canary=True,
                  BANANABENCH_REPORT=self.report_file("pytest"), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")

    # -- go ---------------------------------------------------------------------------------

    def build_go(self) -> dict:
        if self.spec.get("vet") and self.call(["go", "vet", "./..."], self.ws) != 0:
            raise BuildFailed("go vet reported problems")
        manifest = {}
        with open(os.path.join(HERE, "go_recorder.go.txt")) as fh:
            template = fh.read()
        for n, pkg in enumerate(self.spec["targets"]):
            directory = os.path.normpath(os.path.join(self.ws, pkg))
            name = self._go_test_package(pkg, directory)
            recorder = os.path.join(directory, "zz_bananabench_recorder_test.go")
            with open(recorder, "w") as fh:
                fh.write(template.replace("PACKAGE_NAME", name).replace("ID_PREFIX", json.dumps(pkg + "::")[1:-1]))
            binary = os.path.join(self.bin, f"pkg{n}.test")
            target = "./" + pkg if pkg != "." else "."
            rc = self.call(["go", "test", "-c", "-o", binary, target], self.ws)
            os.unlink(recorder)
            if rc != 0:
                raise BuildFailed(f"go test -c {target} failed")
            manifest[pkg] = binary
        return manifest

    def _go_test_package(self, pkg: str, directory: str) -> str:
        """The package clause of the hidden tests in that folder (refusing a package with its own TestMain)."""
        names = sorted(f for f in os.listdir(directory) if f.endswith("_test.go"))
        hidden = set()
        verify = self.spec.get("verify")
        if verify and os.path.isdir(os.path.join(verify, pkg)):
            hidden = {f for f in os.listdir(os.path.join(verify, pkg)) if f.endswith("_test.go")}
        package = None
        for name in sorted(names, key=lambda f: f not in hidden):
            with open(os.path.join(directory, name), "rb") as fh:
                source = fh.read()
            if _TEST_MAIN.search(source):
                raise BuildFailed(f"{pkg}/{name} defines TestMain; the go runner records tests with its own")
            match = _PACKAGE.search(source)
            if match and package is None:
                package = match.group(1).decode()
        if package is None:
            raise BuildFailed(f"{pkg}: no _test.go files to run")
        return package

    def run_go(self) -> None:
        """Each test binary once; then each top-level test that did not finish (a panic ends the binary) on its own.

        The reruns carry no canaries: the first run's pair is missing already, so such a record earns no credit;
        they only give every test a verdict of its own."""
        for pkg, binary in self.manifest().items():
            cwd = os.path.normpath(os.path.join(self.ws, pkg))
            report, cases = self.report_file(f"go-{pkg}"), self.report_file(f"go-{pkg}-cases")
            self.go_test(binary, cwd, report, (cases, pkg + "::"), canary=True)
            for name in _go_unfinished(self.go_list(binary, cwd), report, pkg + "::"):
                status = self.go_test(binary, cwd, report, (cases, pkg + "::"), f"-test.run=^{name}$")
                if _go_unfinished([name], report, pkg + "::"):  # alone, it ended its process (a goroutine's panic)
                    with open(cases, "a", encoding="utf-8") as out:
                        out.write(json.dumps({"id": f"{pkg}::{name}", "outcome": "failed", "message":
                                              f"the test process ended (status {status}) while this test ran"}) + "\n")

    def go_test(self, binary: str, cwd: str, report: str, cases: tuple[str, str], *selection: str,
                canary: bool = False) -> int:
        """Run a test binary verbosely; its subtests' `--- PASS: TestX/case` lines become record lines in the file
        `cases[0]`, their ids prefixed with `cases[1]` (the top-level tests' come from the recorder)."""
        argv = [binary, "-test.count=1", "-test.v", "-test.timeout=0", *selection]
        print(f"$ {' '.join(argv)}", flush=True)
        line_in = self.next_canary() if canary else b""
        with subprocess.Popen(argv, cwd=cwd, env=self.env(BANANABENCH_REPORT=report), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE) as proc, open(cases[0], "a", encoding="utf-8") as out:
            try:
                proc.stdin.write(line_in)
                proc.stdin.close()
            except BrokenPipeError:
                pass
            for line in iter(lambda: proc.stdout.readline(1 << 20), b""):  # a line without end is read in pieces
                sys.stdout.buffer.write(line)
                case = _GO_CASE.match(line)
                if case:
                    out.write(json.dumps({"id": cases[1] + case[2].decode(errors="replace"),
                                          "outcome": _GO_OUTCOMES[case[1]], "seconds": float(case[3])}) + "\n")
        sys.stdout.flush()
        return proc.returncode

    def go_list(self, binary: str, cwd: str) -> list[str]:
        """The binary's top-level tests, in the order it runs them."""
        try:
            proc = subprocess.run([binary, "-test.list", "."], cwd=cwd, env=self.env(BANANABENCH_REPORT=os.devnull),
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, timeout=120)
        except subprocess.TimeoutExpired:
            return []
        return [n for n in proc.stdout.decode(errors="replace").split() if _GO_TEST.match(n)]

    # -- rust -------------------------------------------------------------------------------

    def build_cargo(self) -> dict:
        selectors = []
        for target in self.spec["targets"]:
            selectors += ["--lib"] if target == "lib" else ["--test", target]
        argv = ["cargo", "test", "--no-run", "--offline", "--message-format=json-render-diagnostics", *selectors,
                *self.spec["args"]]
        if self.spec.get("release"):
            argv.append("--release")
        originals = self.add_cargo_canary()
        print(f"$ {' '.join(argv)}", flush=True)
        try:
            proc = subprocess.run(argv, cwd=self.ws, env=self.env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        finally:
            for root, text in originals.items():
                with open(root, "wb") as fh:
                    fh.write(text)
        if proc.returncode != 0:
            raise BuildFailed("cargo test --no-run failed")
        manifest = {}
        for line in proc.stdout.splitlines():
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("reason") == "compiler-artifact" and message.get("executable") \
                    and (message.get("profile") or {}).get("test"):
                manifest[message["target"]["name"]] = message["executable"]
        return manifest

    def add_cargo_canary(self) -> dict[str, bytes]:
        """Append the canary module (cargo_canary.rs, by absolute path) to each test target's crate root.

        Returns each changed root's original bytes: the build puts them back, so the copy that the tests run
        beside shows no trace of it."""
        argv = ["cargo", "metadata", "--no-deps", "--offline", "--format-version", "1"]
        proc = subprocess.run(argv, cwd=self.ws, env=self.env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        if proc.returncode != 0:
            raise BuildFailed("cargo metadata failed")
        roots: dict[str, list[str]] = {}
        for package in json.loads(proc.stdout)["packages"]:
            for target in package["targets"]:
                name = "lib" if set(target["kind"]) & _LIB_KINDS else target["name"] if "test" in target["kind"] else ""
                roots.setdefault(name, []).append(target["src_path"])
        line = f'\n#[cfg(test)]\n#[path = {json.dumps(os.path.join(HERE, "cargo_canary.rs"))}]\nmod {CARGO_CANARY};\n'
        originals = {}
        for target in self.spec["targets"]:
            if target not in roots:
                raise BuildFailed(f"cargo knows no test target {target!r}")
            for root in roots[target]:
                if os.path.islink(root) or not os.path.realpath(root).startswith(os.path.realpath(self.ws) + os.sep):
                    raise BuildFailed(f"the crate root of test target {target!r} is not a file of the copy: {root}")
                with open(root, "rb") as fh:
                    originals.setdefault(root, fh.read())
                with open(root, "ab") as fh:
                    fh.write(line.encode())
        return originals

    def run_cargo(self) -> None:
        """One test at a time, so that libtest (which runs tests in name order) runs the canary last."""
        for target, executable in self.manifest().items():
            logfile = os.path.join(self.report, f"{target}.libtest")
            record = self.report_file(f"cargo-{target}")
            self.call([executable, "--logfile", logfile, "--test-threads", "1"], self.ws, canary=True,
                      BANANABENCH_REPORT=record, BANANABENCH_TEST_PREFIX=target)
            _libtest_to_jsonl(logfile, record, target)

    # -- javascript -------------------------------------------------------------------------

    def run_node(self) -> None:
        reporter = os.path.join(HERE, "node_reporter.mjs")
        for rel in self.spec["targets"]:
            self.call(["node", f"--test-reporter={reporter}", "--test-reporter-destination=stdout",
                       "--test-reporter=spec", "--test-reporter-destination=stderr", os.path.join(HERE, "node_main.mjs")],
                      self.ws, canary=True, BANANABENCH_REPORT=self.report_file(f"node-{rel}"), BANANABENCH_TEST_FILE=rel)

    # -- c++ --------------------------------------------------------------------------------

    def build_cpp(self) -> dict:
        self.shell_build()
        manifest = {}
        for rel in self.spec["binaries"]:
            built = os.path.join(self.ws, rel)
            if not os.path.isfile(built) or os.path.islink(built):
                raise BuildFailed(f"the build did not produce {rel}")
            target = os.path.join(self.bin, os.path.basename(rel))
            shutil.move(built, target)
            manifest[rel] = target
        return manifest

    def run_cpp(self) -> None:
        for rel, binary in self.manifest().items():
            self.call([binary], self.ws, canary=True, BANANABENCH_REPORT=self.report_file(f"cpp-{rel}"),
                      BANANABENCH_TEST_PREFIX=os.path.basename(rel))

    # -- script -----------------------------------------------------------------------------

    def build_script(self) -> dict:
        self.shell_build()
        return {}

    def run_script(self) -> None:
        self.call(["/bin/sh", "-c", self.spec["cmd"]], self.ws, BANANABENCH_REPORT=self.report_file("script"))


def _go_unfinished(tests: list[str], report: str, prefix: str) -> list[str]:
    """The top-level tests without an outcome in the recorder's record."""
    done = set()
    with open(report, encoding="utf-8", errors="replace") as fh:
        for line in fh.read(MAX_RECORD_READ).splitlines():
            try:
                test_id = json.loads(line).get("id")
            except (ValueError, AttributeError):
                continue
            if isinstance(test_id, str) and test_id.startswith(prefix):
                done.add(test_id[len(prefix):])
    return [t for t in tests if t not in done]


def _libtest_to_jsonl(logfile: str, out: str, target: str) -> None:
    """libtest's --logfile lines (`ok NAME`, `failed NAME`, `ignored NAME`) as record lines, but the canary's own
    (it records the pair under their random names itself)."""
    outcomes = {"ok": "passed", "failed": "failed", "ignored": "skipped"}
    try:
        with open(logfile, encoding="utf-8", errors="replace") as fh:
            lines = fh.read(8 << 20).splitlines()
    except OSError:
        return
    with open(out, "a", encoding="utf-8") as fh:
        for line in lines:
            word, _, name = line.partition(" ")
            if word in outcomes and name and not name.startswith(CARGO_CANARY + "::"):
                fh.write(json.dumps({"id": f"{target}::{name}", "outcome": outcomes[word]}) + "\n")


def watched(driver: Driver, phase: str) -> None:
    """Run one phase and write the staged files it opened to `<stage>/reads-<phase>.json` (agent validate)."""
    from reads import OpenWatch

    watch = OpenWatch(driver.ws).start()
    try:
        getattr(driver, f"do_{phase}")()
    finally:
        opened = watch.stop()
        with open(os.path.join(driver.stage, f"reads-{phase}.json"), "w") as fh:
            json.dump({"opened": sorted(opened), "overflowed": watch.overflowed}, fh)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: run.py SPEC_JSON PHASE...", file=sys.stderr)
        return 2
    driver = Driver(json.loads(argv[0]))
    print("bananabench-verify: driver started", flush=True)   # tells podman's failures apart from ours
    try:
        for phase in argv[1:]:
            if driver.spec.get("watch_reads") and phase in ("build", "run"):
                watched(driver, phase)
            else:
                getattr(driver, f"do_{phase}")()
    except BuildFailed as exc:
        print(f"BUILD FAILED: {exc}", flush=True)
        return BUILD_FAILED
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
