"""The task importers against real local git repositories and local stand-ins for GitHub and Advent of Code.

import-pr (API mode and local-clone mode), scan-fixes and import-aoc run as the real CLI; the tasks they write
must pass `agent lint` and `agent validate --native` (fail on the pinned parent, pass with the imported fix).
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

from tests.conftest import run_cli

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


@pytest.fixture
def repo(tmp_path: Path) -> dict:
    """A small project whose history holds one real fix (#7), a docs-only "fix" and an unrelated commit."""
    path = tmp_path / "calc"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    base = commit(path, {"calc.py": CALC_BUGGY, "tests/test_calc.py": TEST_BEFORE, "README.md": "calc\n"}, "Initial")
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
        return 200, subprocess.run(["git", "-C", str(path), "show", f"{query['ref'][0]}:{name}"],
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
    assert meta["verify"] == {"runner": "unittest", "tests": [], "timeout_s": 900}
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
    assert meta["verify"]["tests"] and all(t.startswith("tests.test_calc.") for t in meta["verify"]["tests"])
    assert run_cli("agent", "lint", "--tasks-dir", str(tasks)).returncode == 0
    validated = run_cli("agent", "validate", "--native", "--tasks-dir", str(tasks), env=cache)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert "start state fails" in validated.stdout and "solution passes" in validated.stdout


def test_import_from_a_local_clone_asks_github_only_for_the_issue(tmp_path, repo, github):
    tasks = tmp_path / "tasks"
    out = import_pr(tasks, github.url, "acme/calc", "12", "calc-cents-local", "--runner", "unittest",
                    "--commit", repo["fix"][:10], "--git", str(repo["path"]), "--kind", "feature")
    assert out.returncode == 0, out.stderr
    assert [r["path"] for r in github.requests] == ["/repos/acme/calc/issues/7"]
    meta = tomllib.loads((tasks / "issue" / "feature" / "calc-cents-local" / "task.toml").read_text())
    assert meta["category"] == "issue/feature" and "feature" in meta["tags"]
    assert meta["repo"]["rev"] == repo["base"]
    assert meta["repo"]["url"] == repo["path"].resolve().as_uri()


@pytest.mark.parametrize("args, message", [
    (["acme/calc", "13", "x"], "is not merged"),
    (["acme/calc", "14", "x"], "links no issue"),
    (["acme/calc", "99", "x"], "not found"),
    (["not-a-repo", "12", "x"], "OWNER/REPO"),
    (["acme/calc", "12", "Bad Name"], "NAME"),
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
        {"commit": repo["fix"], "issue": 7, "subject": "Keep the cents in add_cents", "source": ["calc.py"],
         "tests": ["tests/test_calc.py"]}]
    missing = run_cli("agent", "scan-fixes", str(tmp_path / "nope.git"))
    assert missing.returncode == 2


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
