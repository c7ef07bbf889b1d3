"""Real issues as tasks: `agent import-pr` builds an issue/bugfix or issue/feature task from a merged fix,
`agent scan-fixes` finds candidate fixes in a clone.

A task made from a fix pins the repository at the fix's parent in `[repo]`, takes the issue text as its
prompt, the test files of the fix (as they are after the fix) as hidden tests in `verify/`, and the rest of
the change as `solution/solution.patch`. The code comes from the GitHub API, or from a local clone with
`--commit SHA --git DIR`, which needs the API only for the issue text.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from evaluators.core import atomic
from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.core.secrets import register_secret

GITHUB_API = "https://api.github.com"
ENV_API = "BANANABENCH_GITHUB_API"
ENV_TOKEN = "GITHUB_TOKEN"
USER_AGENT = "bananabench-import/1"

# "Fixes #12", "closes owner/repo#12", "Resolved: #12"
ISSUE_REF = re.compile(r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\b\s*:?\s*(?P<repo>[\w.-]+/[\w.-]+)?#(?P<num>\d+)",
                       re.IGNORECASE)
_TEST_PATH = re.compile(r"(^|/)(tests?|testing|__tests__|spec|testdata)/|(^|/)test_[^/]*\.py$|_test\.(py|go)$|"
                        r"\.(test|spec)\.[jt]sx?$|(^|/)conftest\.py$|Tests?\.(java|kt|cs)$")
CODE_SUFFIXES = {".py", ".go", ".rs", ".js", ".jsx", ".ts", ".tsx", ".java", ".kt", ".c", ".cc", ".cpp", ".h",
                 ".hpp", ".rb", ".php", ".cs", ".swift", ".scala", ".ex", ".exs", ".lua", ".sh"}
LANGUAGES = {".py": "python", ".go": "go", ".rs": "rust", ".js": "javascript", ".jsx": "javascript",
             ".ts": "typescript", ".tsx": "typescript", ".java": "java", ".kt": "kotlin", ".c": "c", ".h": "c",
             ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".rb": "ruby", ".php": "php", ".cs": "csharp"}


def is_test_path(path: str) -> bool:
    return bool(_TEST_PATH.search(path))


def is_code_path(path: str) -> bool:
    return PurePosixPath(path).suffix in CODE_SUFFIXES


def linked_issue(*texts: str, repo: str | None = None) -> int | None:
    """The first issue a commit message or PR body says it fixes (in `repo`, when one is named)."""
    for text in texts:
        for m in ISSUE_REF.finditer(text or ""):
            if m.group("repo") is None or repo is None or m.group("repo").lower() == repo.lower():
                return int(m.group("num"))
    return None


class GitHub:
    """The few REST calls the importer needs; the base URL can point at a stand-in or an Enterprise host."""

    def __init__(self, api_url: str | None = None, token: str | None = None, timeout: float = 30) -> None:
        self.api_url = (api_url or os.environ.get(ENV_API) or GITHUB_API).rstrip("/")
        self.token = token if token is not None else os.environ.get(ENV_TOKEN)
        register_secret(self.token)
        self.timeout = timeout

    def _request(self, path: str, accept: str) -> bytes:
        request = urllib.request.Request(self.api_url + path, headers={"Accept": accept, "User-Agent": USER_AGENT})
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                raise BadInput(f"GitHub: {path} not found (check the repository and number)") from None
            raise EvaluationFailure(f"GitHub: {path}: HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise EvaluationFailure(f"GitHub: cannot reach {self.api_url}: {exc}") from None

    def json(self, path: str):
        return json.loads(self._request(path, "application/vnd.github+json"))

    def diff(self, path: str) -> str:
        return self._request(path, "application/vnd.github.v3.diff").decode("utf-8", errors="replace")

    def file_at(self, repo: str, path: str, ref: str) -> bytes:
        quoted = urllib.parse.quote(path)
        return self._request(f"/repos/{repo}/contents/{quoted}?ref={urllib.parse.quote(ref)}", "application/vnd.github.raw")


@dataclass
class Fix:
    """A fix ready to become a task."""

    repo_url: str
    parent: str
    commit: str
    diff: str  # unified diff parent..commit (git format)
    tests: dict[str, bytes] = field(default_factory=dict)  # test file -> content after the fix
    deleted_tests: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # binary changes left out of the solution


def split_diff(diff: str) -> list[tuple[str, str, str]]:
    """Per-file chunks of a git diff: (path after the change, status A/M/D/R, chunk text)."""
    chunks = []
    for chunk in re.split(r"(?m)^(?=diff --git )", diff):
        if not chunk.startswith("diff --git "):
            continue
        header = chunk.splitlines()[0]
        m = re.match(r"diff --git a/(.+?) b/(.+)$", header)
        if not m:
            continue
        status = "M"
        if re.search(r"(?m)^new file mode", chunk):
            status = "A"
        elif re.search(r"(?m)^deleted file mode", chunk):
            status = "D"
        elif re.search(r"(?m)^rename from", chunk):
            status = "R"
        path = m.group(1) if status == "D" else m.group(2)
        chunks.append((path, status, chunk))
    return chunks


def _git(git_dir: Path, *args: str) -> bytes:
    proc = subprocess.run(["git", "-C", str(git_dir), *args], capture_output=True, timeout=600)
    if proc.returncode != 0:
        raise BadInput(f"git {' '.join(args[:2])} in {git_dir}: {proc.stderr.decode(errors='replace').strip()[-300:]}")
    return proc.stdout


def local_fix(git_dir: Path, commit: str, repo_url: str | None) -> tuple[Fix, str]:
    """The fix of `commit` in a local clone, and the commit message."""
    if not (git_dir / ".git").exists() and not (git_dir / "HEAD").exists():
        raise BadInput(f"{git_dir}: not a git repository")
    commit = _git(git_dir, "rev-parse", "--verify", f"{commit}^{{commit}}").decode().strip()
    parent = _git(git_dir, "rev-parse", f"{commit}^").decode().strip()
    diff = _git(git_dir, "diff", "--no-color", "--no-ext-diff", parent, commit).decode("utf-8", errors="replace")
    message = _git(git_dir, "log", "-1", "--format=%B", commit).decode("utf-8", errors="replace")
    if repo_url is None:
        try:
            repo_url = _git(git_dir, "remote", "get-url", "origin").decode().strip()
        except BadInput:
            repo_url = git_dir.resolve().as_uri()
    fix = Fix(repo_url=repo_url, parent=parent, commit=commit, diff=diff)
    for path, status, _ in split_diff(diff):
        if is_test_path(path) and status != "D":
            fix.tests[path] = _git(git_dir, "show", f"{commit}:{path}")
    return fix, message


def api_fix(gh: GitHub, repo: str, pr: dict, repo_url: str | None) -> Fix:
    """The fix a merged pull request made, fetched through the API."""
    merge = pr.get("merge_commit_sha")
    if not pr.get("merged_at") or not merge:
        raise BadInput(f"{repo}#{pr.get('number')} is not merged; only merged fixes can become tasks")
    parent = gh.json(f"/repos/{repo}/commits/{merge}")["parents"][0]["sha"]
    diff = gh.diff(f"/repos/{repo}/compare/{parent}...{merge}")
    fix = Fix(repo_url=repo_url or f"https://github.com/{repo}.git", parent=parent, commit=merge, diff=diff)
    for path, status, _ in split_diff(diff):
        if is_test_path(path) and status != "D":
            fix.tests[path] = gh.file_at(repo, path, merge)
    return fix


def solution_patch(fix: Fix) -> str:
    """The non-test part of the diff; binary changes cannot be applied with `patch` and are left out."""
    parts = []
    for path, status, chunk in split_diff(fix.diff):
        if is_test_path(path):
            if status == "D":
                fix.deleted_tests.append(path)
            continue
        if re.search(r"(?m)^(GIT binary patch|Binary files )", chunk):
            fix.skipped.append(path)
            continue
        parts.append(chunk if chunk.endswith("\n") else chunk + "\n")
    return "".join(parts)


def guess_language(paths: list[str]) -> str | None:
    counts = Counter(LANGUAGES[PurePosixPath(p).suffix] for p in paths if PurePosixPath(p).suffix in LANGUAGES)
    return counts.most_common(1)[0][0] if counts else None


def toml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


@dataclass
class TaskSpec:
    title: str
    prompt: str
    kind: str  # bugfix | feature
    language: str
    runner: str  # one of verifyspec.RUNNERS; the expected tests are filled in by `agent validate --write-tests`
    description: str
    prepare: list[str] = field(default_factory=list)


def write_task(dest: Path, spec: TaskSpec, fix: Fix, *, force: bool = False) -> Path:
    """Create the task folder atomically: everything is written beside it, then renamed into place."""
    if dest.exists() and not force:
        raise BadInput(f"{dest}: already exists (use --force to replace it)")
    patch = solution_patch(fix)
    if not fix.tests:
        raise BadInput("the fix changes no test files, so there would be no hidden test; pick another fix")
    if not patch.strip():
        raise BadInput("the fix changes only tests, so there is no source change to use as the solution")
    with atomic.staged_directory(dest) as tmp:
        lines = [f"title = {toml_str(spec.title)}", f"category = {toml_str('issue/' + spec.kind)}",
                 f"tags = [{', '.join(toml_str(t) for t in (spec.language, spec.kind, 'large', 'real-issue'))}]",
                 f"description = {toml_str(spec.description)}", "", "[verify]",
                 f"runner = {toml_str(spec.runner)}", "tests = []", "timeout_s = 900", "", "[repo]",
                 f"url = {toml_str(fix.repo_url)}", f"rev = {toml_str(fix.parent)}"]
        if spec.prepare:
            lines.append(f"prepare = [{', '.join(toml_str(p) for p in spec.prepare)}]")
        (tmp / "task.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (tmp / "prompt.md").write_text(spec.prompt.rstrip() + "\n", encoding="utf-8")
        for path, content in fix.tests.items():
            target = tmp / "verify" / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        (tmp / "solution").mkdir()
        (tmp / "solution" / "solution.patch").write_text(patch, encoding="utf-8")
    return dest


@dataclass
class Candidate:
    commit: str
    issue: int
    subject: str
    source: list[str]
    tests: list[str]

    def as_dict(self) -> dict:
        return {"commit": self.commit, "issue": self.issue, "subject": self.subject, "source": self.source,
                "tests": self.tests}


def scan_fixes(git_dir: Path, *, rev: str = "HEAD", limit: int | None = None) -> list[Candidate]:
    """Commits (newest first) whose message fixes an issue and that change both code and tests."""
    if not git_dir.exists():
        raise BadInput(f"{git_dir}: no such repository")
    out = _git(git_dir, "log", "--no-merges", "--format=%x1e%H%x1f%s%x1f%b%x1f", "--name-only", rev)
    found = []
    for record in out.decode("utf-8", errors="replace").split("\x1e")[1:]:
        commit, subject, body, names = (record.split("\x1f") + ["", "", "", ""])[:4]
        issue = linked_issue(subject, body)
        if issue is None:
            continue
        files = [n for n in names.split("\n") if n.strip()]
        tests = [f for f in files if is_test_path(f)]
        source = [f for f in files if not is_test_path(f) and is_code_path(f)]
        if tests and source:
            found.append(Candidate(commit, issue, subject.strip(), source, tests))
            if limit and len(found) >= limit:
                break
    return found
