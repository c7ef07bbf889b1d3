"""The task importers against real local git repositories and local stand-ins for GitHub and Advent of Code.

import-pr (API mode and local-clone mode, offline with --prompt: the task pins its project's snapshot), scan-fixes
and import-aoc run as the real CLI; the tasks they write must pass `agent lint` (after `agent measure --write-tags`)
and `agent validate --native` (fail at the fix's parent, pass with the imported fix). One case imports a real project's fix (tests/fixtures/repos/, derived from tkem/cachetools).
"""

from __future__ import annotations

import json
import subprocess
import threading
import tomllib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from tests.conftest import REPO, run_cli

TOKEN = "ghp_teststandintoken0123456789"
COOKIE = "53616c7465645f5f" + "ab" * 40


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                         env={"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "T",
                              "GIT_COMMITTER_EMAIL": "t@example.org", "PATH": "/usr/bin:/bin", "HOME": str(repo)})
    return out.stdout.strip()


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


CALC_BUGGY = "def add_cents(a, b):\n    return int(a + b)\n"
CALC_FIXED = "def add_cents(a, b):\n    return round((a + b) * 100) / 100\n"
TEST_BEFORE = "import unittest\n\nfrom calc import add_cents\n\n\nclass T(unittest.TestCase):\n" \
              "    def test_whole(self):\n        self.assertEqual(add_cents(1, 2), 3)\n"
TEST_AFTER = TEST_BEFORE + "\n    def test_cents(self):\n        self.assertEqual(add_cents(0.1, 0.2), 0.3)\n"
MIT = ("MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy of this software "
       "and associated documentation files, to deal in the Software without restriction.\n")
PROMPT = "# Cents go missing\n\nAdding 0.1 and 0.2 with `add_cents` gives 0. I expect 0.3, rounded to the cent.\n"


@pytest.fixture
def repo(tmp_path: Path) -> dict:
    """A small project whose history holds one real fix (#7), a docs-only "fix" and an unrelated commit."""
    path = tmp_path / "calc"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    base = commit(path, {"calc.py": CALC_BUGGY, "tests/test_calc.py": TEST_BEFORE, "README.md": "calc\n",
                         "LICENSE": MIT, "docs/guide.md": "how to add\n"}, "Initial")
    fix = commit(path, {"calc.py": CALC_FIXED, "tests/test_calc.py": TEST_AFTER},
                 "Keep the cents in add_cents\n\nFixes #7.")
    commit(path, {"README.md": "calc: a calculator\n"}, "Docs: fixes #9 (typo)")
    commit(path, {"calc.py": CALC_FIXED + "\n# tidy\n"}, "Tidy up")
    return {"path": path, "base": base, "fix": fix}


class StandIn:
    """A local HTTP server whose routes are plain functions; it records every request."""

    def __init__(self, routes):
        self.routes = routes
        self.requests: list[dict] = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server API)
                url = urlparse(self.path)
                stand_in.requests.append({"path": url.path, "headers": dict(self.headers)})
                for pattern, route in stand_in.routes:
                    if url.path.startswith(pattern):
                        status, body, kind = route(url.path, parse_qs(url.query), self.headers)
                        break
                else:
                    status, body, kind = 404, b"not found", "text/plain"
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def github_stand_in(repo: dict) -> StandIn:
    """GitHub's REST API for acme/calc, answered from the local repository."""
    path = repo["path"]

    def as_json(obj, status=200):
        return status, json.dumps(obj).encode(), "application/json"

    def pulls(url, query, headers):
        number = int(url.rsplit("/", 1)[1])
        if number == 12:
            return as_json({"number": 12, "title": "Keep cents", "body": "This fixes #7.",
                            "merged_at": "2024-01-01T00:00:00Z", "merge_commit_sha": repo["fix"]})
        if number == 13:
            return as_json({"number": 13, "title": "WIP", "body": "fixes #7", "merged_at": None,
                            "merge_commit_sha": None})
        if number == 14:
            return as_json({"number": 14, "title": "Tidy", "body": "no issue here",
                            "merged_at": "2024-01-02T00:00:00Z", "merge_commit_sha": repo["fix"]})
        return as_json({"message": "Not Found"}, 404)

    def commits(url, query, headers):
        sha = url.rsplit("/", 1)[1]
        return as_json({"sha": sha, "parents": [{"sha": git(path, "rev-parse", f"{sha}^")}]})

    def compare(url, query, headers):
        a, b = url.rsplit("/", 1)[1].split("...")
        return 200, git(path, "diff", "--no-color", a, b).encode() + b"\n", "text/plain"

    def contents(url, query, headers):
        name = url.split("/contents/", 1)[1]
        ref = query["ref"][0]
        if not name:  # the root folder: a listing
            names = git(path, "ls-tree", "--name-only", ref).splitlines()
            return as_json([{"name": n, "type": "file" if "." in n or n == "LICENSE" else "dir"} for n in names])
        return 200, subprocess.run(["git", "-C", str(path), "show", f"{ref}:{name}"],
                                   capture_output=True, check=True).stdout, "application/octet-stream"

    def issues(url, query, headers):
        if url.endswith("/7"):
            return as_json({"number": 7, "title": "add_cents drops the cents",
                            "body": "`add_cents(0.1, 0.2)` returns 0 instead of 0.3."})
        return as_json({"message": "Not Found"}, 404)

    return StandIn([("/repos/acme/calc/pulls/", pulls), ("/repos/acme/calc/commits/", commits),
                    ("/repos/acme/calc/compare/", compare), ("/repos/acme/calc/contents/", contents),
                    ("/repos/acme/calc/issues/", issues)])


@pytest.fixture
def github(repo):
    server = github_stand_in(repo)
    yield server
    server.close()


def import_pr(tasks: Path, api: str, *args: str, env: dict | None = None):
    return run_cli("agent", "import-pr", *args, "--api-url", api, "--tasks-dir", str(tasks),
                   env={"GITHUB_TOKEN": TOKEN, **(env or {})})


@pytest.mark.slow
def test_import_pr_from_the_api_makes_a_valid_task(tmp_path, repo, github):
    tasks = tmp_path / "tasks"
    out = import_pr(tasks, github.url, "acme/calc", "12", "calc-cents", "--runner", "unittest",
                    "--repo-url", repo["path"].as_uri())
    assert out.returncode == 0, out.stderr
    task = tasks / "issue" / "bugfix" / "calc-cents"
    meta = tomllib.loads((task / "task.toml").read_text())
    assert meta["category"] == "issue/bugfix"
    assert meta["tags"] == ["python", "bugfix", "large", "real-issue"]
    assert meta["repo"] == {"url": repo["path"].as_uri(), "rev": repo["base"]}
    assert meta["verify"] == {"runner": "unittest", "tests": [], "timeout_s": 300}
    assert meta["provenance"] == {
        "repository": "https://github.com/acme/calc", "commit": repo["fix"], "parent": repo["base"], "license": "MIT",
        "license_files": ["LICENSE"], "issue": "https://github.com/acme/calc/issues/7",
        "pull_request": "https://github.com/acme/calc/pull/12", "commit_message": "Keep cents\n\nThis fixes #7."}
    assert "agent validate --write-tests" in out.stdout
    assert (task / "prompt.md").read_text() == "# add_cents drops the cents\n\n`add_cents(0.1, 0.2)` returns 0 instead of 0.3.\n"
    assert (task / "verify" / "tests" / "test_calc.py").read_text() == TEST_AFTER
    patch = (task / "solution" / "solution.patch").read_text()
    assert "calc.py" in patch and "test_calc" not in patch
    assert all(r["headers"].get("Authorization") == f"Bearer {TOKEN}" for r in github.requests)
    for file in task.rglob("*"):
        if file.is_file():
            assert TOKEN not in file.read_text(errors="replace")
    cache = {"BANANABENCH_AGENT_CACHE": str(tmp_path / "cache")}
    unfinished = run_cli("agent", "lint", "--tasks-dir", str(tasks))
    assert unfinished.returncode == 2 and "no expected tests" in unfinished.stdout
    assert run_cli("agent", "validate", "--native", "--tasks-dir", str(tasks), env=cache).returncode == 2
    written = run_cli("agent", "validate", "--native", "--write-tests", "--tasks-dir", str(tasks), env=cache)
    assert written.returncode == 0, written.stdout + written.stderr
    meta = tomllib.loads((task / "task.toml").read_text())
    proven = meta["verify"]["fail_to_pass"] + meta["verify"]["pass_to_pass"]
    assert "tests" not in meta["verify"] and all(t.startswith("tests.test_calc.") for t in proven)
    assert meta["verify"]["fail_to_pass"] == ["tests.test_calc.T.test_cents"]
    untagged = run_cli("agent", "lint", "--tasks-dir", str(tasks))
    assert untagged.returncode == 2 and "measured difficulty tag" in untagged.stdout
    tagged = run_cli("agent", "measure", "--write-tags", "--tasks-dir", str(tasks), env=cache)
    assert tagged.returncode == 0 and "1 task(s) re-tagged" in tagged.stderr, tagged.stdout + tagged.stderr
    assert tomllib.loads((task / "task.toml").read_text())["tags"] == ["python", "bugfix", "small", "real-issue",
                                                                       "trivial"]
    assert run_cli("agent", "lint", "--tasks-dir", str(tasks)).returncode == 0
    validated = run_cli("agent", "validate", "--native", "--tasks-dir", str(tasks), env=cache)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert "start state fails" in validated.stdout and "solution passes" in validated.stdout


def _start(tasks: Path, task_id: str, cache: Path, monkeypatch) -> Path:
    """The start state an imported task materializes from its snapshot (as runs and validation do)."""
    from evaluators.agent.corpus import datasets, repos
    monkeypatch.setenv("BANANABENCH_AGENT_CACHE", str(cache))
    return repos.checkout(datasets.load_task(tasks / task_id, tasks))


def test_import_from_a_local_clone_asks_github_only_for_the_issue(tmp_path, repo, github, monkeypatch):
    tasks = tmp_path / "tasks"
    out = import_pr(tasks, github.url, "acme/calc", "12", "calc-cents-local", "--runner", "unittest",
                    "--commit", repo["fix"][:10], "--git", str(repo["path"]), "--kind", "feature")
    assert out.returncode == 0, out.stderr
    assert [r["path"] for r in github.requests] == ["/repos/acme/calc/issues/7"]
    task = tasks / "issue" / "feature" / "calc-cents-local"
    meta = tomllib.loads((task / "task.toml").read_text())
    assert meta["category"] == "issue/feature" and "feature" in meta["tags"]
    assert meta["repo"] == {"snapshot": "acme+calc", "commit": repo["base"]}  # offline: the project's snapshot
    assert not (task / "workspace").exists() and (tasks / "repos" / "acme+calc.pack").is_file()
    start = _start(tasks, "issue/feature/calc-cents-local", tmp_path / "cache", monkeypatch)
    assert (start / "calc.py").read_text() == CALC_BUGGY
    assert (start / "tests" / "test_calc.py").read_text() == TEST_BEFORE
    assert not (start / ".git").exists()
    assert meta["provenance"]["parent"] == repo["base"] and meta["provenance"]["license"] == "MIT"
    assert meta["provenance"]["commit_message"] == "Keep the cents in add_cents\n\nFixes #7."


def test_import_with_a_prompt_file_needs_no_network(tmp_path, repo, monkeypatch):
    tasks, prompt = tmp_path / "tasks", tmp_path / "prompt.md"
    prompt.write_text(PROMPT)
    dead = "http://127.0.0.1:9"  # nothing listens: any request would fail the import
    out = import_pr(tasks, dead, "acme/calc", "-", "calc-cents", "--runner", "unittest", "--commit", repo["fix"],
                    "--git", str(repo["path"]), "--prompt", str(prompt), "--exclude", "docs", "--exclude", "LICENSE",
                    "--prepare", "echo offline > NOTE.txt")
    assert out.returncode == 0, out.stderr
    task = tasks / "issue" / "bugfix" / "calc-cents"
    meta = tomllib.loads((task / "task.toml").read_text())
    assert meta["title"] == "Cents go missing" and (task / "prompt.md").read_text() == PROMPT
    assert meta["provenance"]["issue"] == "https://github.com/acme/calc/issues/7" and "pull_request" not in meta["provenance"]
    assert meta["description"].endswith(f"/commit/{repo['fix']} (commit {repo['fix'][:12]})")
    assert meta["repo"]["exclude"] == ["docs", "LICENSE"] and meta["repo"]["prepare"] == ["echo offline > NOTE.txt"]
    start = _start(tasks, "issue/bugfix/calc-cents", tmp_path / "cache", monkeypatch)
    assert not (start / "docs").exists()
    assert (start / "LICENSE").read_text() == MIT  # a licence file is never left out
    assert (start / "NOTE.txt").read_text() == "offline\n"  # --prepare ran in the checkout
    assert "repeats the commit message" not in out.stdout
    cache = {"BANANABENCH_AGENT_CACHE": str(tmp_path / "cache")}
    written = run_cli("agent", "validate", "--native", "--write-tests", "--tasks-dir", str(tasks), env=cache)
    assert written.returncode == 0, written.stdout + written.stderr
    assert "start state fails" in written.stdout and "solution passes" in written.stdout


def test_import_warns_when_the_prompt_copies_the_commit_message(tmp_path, repo):
    tasks, prompt = tmp_path / "tasks", tmp_path / "prompt.md"
    prompt.write_text("# Cents\n\nPlease keep the cents in add_cents. It drops them.\n")
    out = import_pr(tasks, "http://127.0.0.1:9", "acme/calc", "-", "calc", "--runner", "unittest", "--commit",
                    repo["fix"], "--git", str(repo["path"]), "--prompt", str(prompt))
    assert out.returncode == 0, out.stderr
    assert "note: the prompt repeats the commit message: 'keep the cents in add_cents'" in out.stdout


@pytest.mark.parametrize("extra, message", [
    (["--prompt", "missing.md"], "missing.md: [Errno 2]"),
    (["--prompt", "empty.md"], "empty.md: empty"),
    (["--prompt", "untitled.md"], "give the task a title"),
    (["--exclude", "tests/test_calc.py", "--prompt", "prompt.md"], "which --exclude left out"),
])
def test_import_from_a_clone_bad_input(tmp_path, repo, extra, message):
    (repo["path"] / "tests" / "calc_link.py").symlink_to("test_calc.py")  # dangles when --exclude drops its target
    git(repo["path"], "add", "-A")
    git(repo["path"], "commit", "-q", "-m", "Link")
    fix = commit(repo["path"], {"calc.py": CALC_FIXED + "# again\n", "tests/test_calc.py": TEST_AFTER + "\n"},
                 "Fixes #8")
    for name, text in (("empty.md", " \n"), ("untitled.md", "no heading\n"), ("prompt.md", PROMPT)):
        (tmp_path / name).write_text(text)
    extra = [str(tmp_path / a) if a.endswith(".md") else a for a in extra]
    out = import_pr(tmp_path / "tasks", "http://127.0.0.1:9", "acme/calc", "-", "x", "--runner", "unittest",
                    "--commit", fix, "--git", str(repo["path"]), *extra)
    assert out.returncode == 2, out.stderr
    assert message in out.stderr
    assert not (tmp_path / "tasks").exists() or not any((tmp_path / "tasks").rglob("task.toml"))


@pytest.mark.parametrize("args, message", [
    (["acme/calc", "13", "x"], "is not merged"),
    (["acme/calc", "14", "x"], "links no issue"),
    (["acme/calc", "99", "x"], "not found"),
    (["not-a-repo", "12", "x"], "OWNER/REPO"),
    (["acme/calc", "12", "Bad Name"], "NAME"),
    (["acme/calc", "-", "x"], "needs --commit and --git"),
    (["acme/calc", "12", "x", "--exclude", "docs"], "--exclude applies"),
])
def test_import_pr_bad_input(tmp_path, github, args, message):
    out = import_pr(tmp_path / "tasks", github.url, *args, "--runner", "unittest")
    assert out.returncode == 2, out.stderr
    assert message in out.stderr
    assert not (tmp_path / "tasks" / "issue").exists() or not any((tmp_path / "tasks" / "issue").rglob("task.toml"))


def test_import_pr_refuses_to_overwrite_and_reports_network_failures(tmp_path, repo, github):
    tasks = tmp_path / "tasks"
    args = ("acme/calc", "12", "calc-cents", "--runner", "unittest")
    assert import_pr(tasks, github.url, *args).returncode == 0
    again = import_pr(tasks, github.url, *args)
    assert again.returncode == 2 and "already exists" in again.stderr
    assert import_pr(tasks, github.url, *args, "--force").returncode == 0
    assert [p.name for p in (tasks / "issue" / "bugfix").iterdir()] == ["calc-cents"]  # no temp leftovers
    down = import_pr(tasks, "http://127.0.0.1:9", "acme/calc", "12", "other", "--runner", "unittest")
    assert down.returncode == 3 and "cannot reach" in down.stderr


def test_scan_fixes_lists_code_and_test_fixes(tmp_path, repo):
    bare = tmp_path / "calc.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo["path"]), str(bare)], check=True)
    out = run_cli("agent", "scan-fixes", str(bare))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [f"{repo['fix'][:12]}  #7      Keep the cents in add_cents  (1 source, 1 test)",
                                       "1 candidate fix(es)"]
    js = run_cli("agent", "scan-fixes", str(repo["path"]), "--json")
    assert [json.loads(line) for line in js.stdout.splitlines()] == [
        {"commit": repo["fix"], "issue": 7, "pr": None, "subject": "Keep the cents in add_cents", "source": ["calc.py"],
         "tests": ["tests/test_calc.py"]}]
    missing = run_cli("agent", "scan-fixes", str(tmp_path / "nope.git"))
    assert missing.returncode == 2


def test_scan_fixes_with_prs_lists_merged_pull_requests(tmp_path, repo):
    path = repo["path"]
    git(path, "checkout", "-q", "-b", "topic")
    commit(path, {"calc.py": CALC_FIXED + "# topic\n", "tests/test_calc.py": TEST_AFTER + "# topic\n"}, "Round half up")
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--no-ff", "-m", "Merge pull request #21 from someone/topic", "topic")
    merge = git(path, "rev-parse", "HEAD")
    squash = commit(path, {"calc.py": CALC_FIXED + "# fast\n", "tests/test_calc.py": TEST_AFTER + "# fast\n"},
                    "Faster add_cents (#22)")
    plain = run_cli("agent", "scan-fixes", str(path), "--json")
    assert [json.loads(line)["commit"] for line in plain.stdout.splitlines()] == [repo["fix"]]
    found = run_cli("agent", "scan-fixes", str(path), "--prs", "--json")
    rows = [json.loads(line) for line in found.stdout.splitlines()]
    assert [(r["commit"], r["issue"], r["pr"]) for r in rows] == [(squash, None, 22), (merge, None, 21),
                                                                   (repo["fix"], 7, None)]
    assert rows[1]["source"] == ["calc.py"] and rows[1]["tests"] == ["tests/test_calc.py"]  # against its first parent
    text = run_cli("agent", "scan-fixes", str(path), "--prs").stdout.splitlines()
    assert text[1] == f"{merge[:12]}  PR #21  Merge pull request #21 from someone/topic  (1 source, 1 test)"


REAL_FIX = REPO / "tests" / "fixtures" / "repos" / "tkem-cachetools-fix-387.bundle"


@pytest.mark.slow
def test_import_a_real_fix_offline_and_validate_it(tmp_path, monkeypatch):
    """A real project's fix (tkem/cachetools, "Fix #387", parent and fix trees as published): scan-fixes finds it,
    import-pr makes a stand-alone task without any network, and the task fails at its start and passes with the fix."""
    clone = tmp_path / "cachetools"
    subprocess.run(["git", "clone", "-q", str(REAL_FIX), str(clone)], check=True)
    scan = run_cli("agent", "scan-fixes", str(clone), "--json")
    [found] = [json.loads(line) for line in scan.stdout.splitlines()]
    assert found["issue"] == 387 and found["source"] == ["src/cachetools/_cachedmethod.py"]
    prompt = tmp_path / "prompt.md"
    prompt.write_text("# Mocks of classes with cached methods warn\n\nBuilding `unittest.mock.create_autospec(C, "
                      "instance=True)` for a class with a `@cachedmethod` method emits warnings. Reading the "
                      "attribute from the class must stay silent.\n")
    tasks = tmp_path / "tasks"
    out = import_pr(tasks, "http://127.0.0.1:9", "tkem/cachetools", "-", "cachetools-autospec", "--git", str(clone),
                    "--commit", found["commit"], "--prompt", str(prompt), "--runner", "pytest", "--target", "tests",
                    "--pythonpath", "src", "--arg=-q", "--exclude", "docs",
                    "--exclude", ".github")
    assert out.returncode == 0, out.stderr
    task = tasks / "issue" / "bugfix" / "cachetools-autospec"
    meta = tomllib.loads((task / "task.toml").read_text())
    assert (meta["verify"]["pythonpath"], meta["verify"]["args"], meta["verify"]["targets"]) == (["src"], ["-q"], ["tests"])
    provenance = meta["provenance"]
    assert (provenance["repository"], provenance["license"], provenance["license_files"]) == (
        "https://github.com/tkem/cachetools", "MIT", ["LICENSE"])
    assert provenance["issue"] == "https://github.com/tkem/cachetools/issues/387"
    assert provenance["commit_message"].startswith("Fix #387: Handle obj=None case")
    assert provenance["fix_date"] == subprocess.run(["git", "-C", str(clone), "log", "-1", "--format=%cs",
                                                     found["commit"]], capture_output=True, text=True).stdout.strip()
    start = _start(tasks, "issue/bugfix/cachetools-autospec", tmp_path / "cache", monkeypatch)
    assert (start / "LICENSE").is_file() and not (start / "docs").exists()
    assert sorted(p.relative_to(task / "verify").as_posix() for p in (task / "verify").rglob("*.py")) == [
        "tests/test_cachedmethod.py"]
    written = run_cli("agent", "validate", "--native", "--write-tests", "--tasks-dir", str(tasks),
                      env={"BANANABENCH_AGENT_CACHE": str(tmp_path / "cache")})
    assert written.returncode == 0, written.stdout + written.stderr
    assert "tests/test_cachedmethod.py::AutospecTest::test_autospec_no_warnings failed" in written.stdout
    verify = tomllib.loads((task / "task.toml").read_text())["verify"]
    assert verify["fail_to_pass"] == ["tests/test_cachedmethod.py::AutospecTest::test_autospec_no_warnings"]
    assert len(verify["pass_to_pass"]) > 100
    measured = run_cli("agent", "measure", "--write-tags", "--tasks-dir", str(tasks),
                       env={"BANANABENCH_AGENT_CACHE": str(tmp_path / "cache")})
    assert measured.returncode == 0 and "tkem/cachetools" in measured.stdout, measured.stderr
    assert run_cli("agent", "lint", "--tasks-dir", str(tasks)).returncode == 0


CALENDAR = """<html><body><main><pre class="calendar">
<a aria-label="Day 1, two stars" href="/2023/day/1" class="calendar-day1 calendar-verycomplete">1</a>
<a aria-label="Day 2, one star" href="/2023/day/2" class="calendar-day2 calendar-complete">2</a>
<a aria-label="Day 3" href="/2023/day/3" class="calendar-day3">3</a>
</pre></main></body></html>"""
DAY1 = """<main><article class="day-desc"><h2>--- Day 1: Sum &amp; Things ---</h2>
<p>Add up the <em>numbers</em>, one per line. For example:</p><pre><code>1
2
</code></pre><p>gives <code>3</code>. See <a href="/about">about</a>.</p></article>
<p>Your puzzle answer was <code>6</code>.</p>
<article class="day-desc"><h2 id="part2">--- Part Two ---</h2><p>Now <em class="star">multiply</em> them.</p></article>
<p>Your puzzle answer was <code>6</code>.</p></main>"""
DAY2 = """<main><article class="day-desc"><h2>--- Day 2: Largest ---</h2><p>Find the largest number.</p></article>
<p>Your puzzle answer was <code>3</code>.</p></main>"""


@pytest.fixture
def aoc():
    def page(text):
        logged_out = '<a href="/auth/login">[Log In]</a><pre class="calendar"></pre>'
        return lambda url, query, headers: (200, text.encode(), "text/html") \
            if headers.get("Cookie") == f"session={COOKIE}" else (200, logged_out.encode(), "text/html")

    def inputs(url, query, headers):
        if headers.get("Cookie") != f"session={COOKIE}":
            return 400, b"Puzzle inputs differ by user.  Please log in to get your puzzle input.", "text/plain"
        return 200, b"1\n2\n3\n", "text/plain"

    server = StandIn([("/2023/day/1/input", inputs), ("/2023/day/2/input", inputs), ("/2023/day/1", page(DAY1)),
                      ("/2023/day/2", page(DAY2)), ("/2023", page(CALENDAR))])
    yield server
    server.close()


def import_aoc(tmp_path: Path, url: str, *args: str, cookie: str = COOKIE):
    session = tmp_path / "aoc_session.txt"
    session.write_text(cookie + "\n")
    return run_cli("agent", "import-aoc", "--session-file", str(session), "--aoc-url", url, "--delay", "0",
                   "--tasks-dir", str(tmp_path / "tasks"), *args)


def test_import_aoc_writes_solved_days(tmp_path, aoc):
    out = import_aoc(tmp_path, aoc.url, "--year", "2023", "--year", "2022")
    assert out.returncode == 0, out.stderr
    root = tmp_path / "tasks" / "aoc" / "2023"
    assert sorted(p.name for p in root.iterdir()) == ["day01", "day02"]
    meta = tomllib.loads((root / "day01" / "task.toml").read_text())
    assert meta["category"] == "aoc/2023" and meta["title"] == "Advent of Code 2023 day 1: Sum & Things"
    prompt = (root / "day01" / "prompt.md").read_text()
    assert "Add up the *numbers*" in prompt and "```\n1\n2\n```" in prompt and "**multiply**" in prompt
    assert "`answers.txt`" in prompt and "part 2 on the second line" in prompt
    assert (root / "day01" / "workspace" / "input.txt").read_text() == "1\n2\n3\n"
    assert json.loads((root / "day01" / "verify" / "expected_answers.json").read_text()) == ["6", "6"]
    assert json.loads((root / "day02" / "verify" / "expected_answers.json").read_text()) == ["3"]
    assert "skipped 2022: no such event" in out.stdout
    for file in (tmp_path / "tasks").rglob("*"):
        if file.is_file():
            assert COOKIE not in file.read_text()
    assert all(r["headers"].get("Cookie") == f"session={COOKIE}" for r in aoc.requests)
    assert run_cli("agent", "lint", "--tasks-dir", str(tmp_path / "tasks")).returncode == 0
    validated = run_cli("agent", "validate", "--native", "--tasks-dir", str(tmp_path / "tasks"))
    assert validated.returncode == 0, validated.stdout + validated.stderr
    again = import_aoc(tmp_path, aoc.url, "--year", "2023")
    assert again.returncode == 0 and "already imported" in again.stdout
    assert len(aoc.requests) == 6 + 1  # the second run only read the calendar


def test_import_aoc_bad_session(tmp_path, aoc):
    missing = run_cli("agent", "import-aoc", "--session-file", str(tmp_path / "none.txt"), "--aoc-url", aoc.url)
    assert missing.returncode == 2 and "no session cookie file" in missing.stderr
    bad = import_aoc(tmp_path, aoc.url, "--year", "2023", cookie="not a cookie")
    assert bad.returncode == 2 and "does not look like" in bad.stderr
    expired = import_aoc(tmp_path, aoc.url, "--year", "2023", cookie="ab" * 48)
    assert expired.returncode == 2 and "does not recognise the session cookie" in expired.stderr
    assert not (tmp_path / "tasks" / "aoc").exists() or not any((tmp_path / "tasks" / "aoc").rglob("task.toml"))
