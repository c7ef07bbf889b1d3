"""Real issues as tasks: `agent import-pr` builds an issue/bugfix or issue/feature task from a merged fix,
`agent scan-fixes` finds candidate fixes in a clone.

A task made from a fix starts at the fix's parent, takes the test files of the fix (as they are after the fix)
as hidden tests in `verify/` and the rest of the change as `solution/solution.patch`; `[provenance]` records
where it came from and under which licence. From a local clone (`--commit SHA --git DIR`) the task pins the
parent in the corpus's snapshot of the project (`[repo] snapshot`, rebuilt from the clone), so it needs no
network to run, and with `--prompt FILE` none is used at all. Through the GitHub API the task pins the clone
URL at the parent in `[repo]` instead and is cloned on first use.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess
import urllib.parse
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from evaluators.agent.corpus import licences
from evaluators.core import atomic
from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.core.http import TRANSIENT_ERRORS, HttpClient, HttpError, RetryPolicy, describe_error

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

    def __init__(self, api_url: str | None = None, token: str | None = None, timeout: float = 30,
                 retry: RetryPolicy | None = None) -> None:
        self.api_url = (api_url or os.environ.get(ENV_API) or GITHUB_API).rstrip("/")
        self.token = token if token is not None else os.environ.get(ENV_TOKEN)
        self.client = HttpClient(self.api_url, api_key=self.token, headers={"User-Agent": USER_AGENT})
        self.timeout = timeout
        self.retry = retry or RetryPolicy(attempts=3)

    def _request(self, path: str, accept: str) -> bytes:
        try:
            return self.retry.call(lambda: self.client.request("GET", path, timeout=self.timeout,
                                                               headers={"Accept": accept}))
        except HttpError as exc:
            if exc.status == 404:
                raise BadInput(f"GitHub: {path} not found (check the repository and number)") from None
            raise EvaluationFailure(f"GitHub: {path}: HTTP {exc.status} {exc.message}") from None
        except TRANSIENT_ERRORS as exc:
            raise EvaluationFailure(f"GitHub: cannot reach {self.api_url}: {describe_error(exc)}") from None

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
    message: str = ""  # the commit message (kept so that a prompt can be checked against it)
    date: str = ""  # the fix's commit date, YYYY-MM-DD
    licence: str | None = None  # SPDX expression read from the licence files at the fix
    licence_files: list[str] = field(default_factory=list)
    tests: dict[str, bytes] = field(default_factory=dict)  # test file -> content after the fix
    deleted_tests: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # path -> why its change is not in the solution


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


def local_fix(git_dir: Path, commit: str, repo_url: str) -> Fix:
    """The fix of `commit` in a local clone (a merge commit is taken against its first parent)."""
    if not (git_dir / ".git").exists() and not (git_dir / "HEAD").exists():
        raise BadInput(f"{git_dir}: not a git repository")
    commit = _git(git_dir, "rev-parse", "--verify", f"{commit}^{{commit}}").decode().strip()
    parent = _git(git_dir, "rev-parse", "--verify", f"{commit}^").decode().strip()
    diff = _git(git_dir, "diff", "--no-color", "--no-ext-diff", "--no-renames", parent, commit).decode(
        "utf-8", errors="replace")
    message = _git(git_dir, "log", "-1", "--format=%B", commit).decode("utf-8", errors="replace")
    date = _git(git_dir, "log", "-1", "--format=%cs", commit).decode().strip()
    names = _git(git_dir, "ls-tree", "--name-only", commit).decode().splitlines()
    licence, files = licences.licence_of(names, lambda name: _git(git_dir, "show", f"{commit}:{name}"))
    fix = Fix(repo_url=repo_url, parent=parent, commit=commit, diff=diff, message=message, licence=licence,
              licence_files=files, date=date)
    for path, status, _ in split_diff(diff):
        if is_test_path(path) and status != "D":
            fix.tests[path] = _git(git_dir, "show", f"{commit}:{path}")
    return fix


def check_links(git_dir: Path, rev: str, exclude: Sequence[str]) -> None:
    """Refuse an `exclude` that leaves a symlink of the start state pointing at a path it left out."""
    for line in _git(git_dir, "ls-tree", "-r", "--full-tree", rev).decode("utf-8", errors="replace").splitlines():
        meta, path = line.split("\t", 1)
        if not meta.startswith("120000") or excluded(path, exclude):
            continue
        target = _git(git_dir, "cat-file", "blob", meta.split()[2]).decode("utf-8", errors="replace")
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
        if excluded(resolved, exclude):
            raise BadInput(f"{path} points to {target}, which --exclude left out")


def api_fix(gh: GitHub, repo: str, pr: dict, repo_url: str | None) -> Fix:
    """The fix a merged pull request made, fetched through the API."""
    merge = pr.get("merge_commit_sha")
    if not pr.get("merged_at") or not merge:
        raise BadInput(f"{repo}#{pr.get('number')} is not merged; only merged fixes can become tasks")
    parent = gh.json(f"/repos/{repo}/commits/{merge}")["parents"][0]["sha"]
    diff = gh.diff(f"/repos/{repo}/compare/{parent}...{merge}")
    root = gh.json(f"/repos/{repo}/contents/?ref={urllib.parse.quote(merge)}")
    names = [entry["name"] for entry in root if entry.get("type") == "file"]
    licence, files = licences.licence_of(names, lambda name: gh.file_at(repo, name, merge))
    fix = Fix(repo_url=repo_url or f"https://github.com/{repo}.git", parent=parent, commit=merge, diff=diff,
              message=f"{pr.get('title') or ''}\n\n{pr.get('body') or ''}", licence=licence, licence_files=files)
    for path, status, _ in split_diff(diff):
        if is_test_path(path) and status != "D":
            fix.tests[path] = gh.file_at(repo, path, merge)
    return fix


def excluded(path: str, globs: Sequence[str]) -> bool:
    """Whether a glob matches the path or one of its folders; top-level licence files are never left out."""
    if licences.is_licence_file(path):
        return False
    parts = PurePosixPath(path).parts
    return any(fnmatch.fnmatchcase("/".join(parts[:i]), g) for i in range(1, len(parts) + 1) for g in globs)


def solution_patch(fix: Fix, exclude: Sequence[str] = ()) -> str:
    """The non-test part of the diff. Binary changes cannot be applied with `patch`, and changes to files left
    out of the workspace have nothing to apply to: both are left out."""
    parts = []
    for path, status, chunk in split_diff(fix.diff):
        if is_test_path(path):
            if status == "D":
                fix.deleted_tests.append(path)
            continue
        if re.search(r"(?m)^(GIT binary patch|Binary files )", chunk):
            fix.skipped[path] = "a binary change"
            continue
        if excluded(path, exclude):
            fix.skipped[path] = "left out of the workspace by --exclude"
            continue
        parts.append(chunk if chunk.endswith("\n") else chunk + "\n")
    return "".join(parts)


def guess_language(paths: list[str]) -> str | None:
    counts = Counter(LANGUAGES[PurePosixPath(p).suffix] for p in paths if PurePosixPath(p).suffix in LANGUAGES)
    return counts.most_common(1)[0][0] if counts else None


def toml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n(?=\s*[-*#>]|\s*\d+[.)]\s)")
_WORD = re.compile(r"[\w']+")


def sentences(text: str) -> list[str]:
    """A text's sentences as normalised word sequences (lower case, no punctuation or markup)."""
    found = []
    for part in _SENTENCE_END.split(text):
        words = _WORD.findall(part.lower())
        if words:
            found.append(" ".join(words))
    return found


def shared_sentences(prompt: str, message: str, *, min_words: int = 3) -> list[str]:
    """The sentences of a commit message (of at least `min_words` words) that a prompt repeats word for word."""
    body = " " + " ".join(_WORD.findall(prompt.lower())) + " "
    return [s for s in sentences(message) if len(s.split()) >= min_words and f" {s} " in body]


@dataclass
class TaskSpec:
    title: str
    prompt: str
    kind: str  # bugfix | feature
    language: str
    runner: str  # one of verifyspec.RUNNERS; the expected tests are filled in by `agent validate --write-tests`
    description: str
    repository: str  # the project's public home, for provenance
    targets: list[str] = field(default_factory=list)  # what the runner runs (default: derived from verify/)
    args: list[str] = field(default_factory=list)  # extra arguments for the test framework
    pythonpath: list[str] = field(default_factory=list)  # unittest, pytest: folders put on sys.path after the workspace (src layout)
    issue_url: str | None = None
    pull_request_url: str | None = None
    prepare: list[str] = field(default_factory=list)


def _toml_list(values: list[str]) -> str:
    return f"[{', '.join(toml_str(v) for v in values)}]"


def task_toml(spec: TaskSpec, fix: Fix, *, snapshot: str | None = None, exclude: Sequence[str] = ()) -> str:
    """The task's task.toml: pinned in the corpus's `snapshot` of the project (offline), else by clone URL."""
    lines = [f"title = {toml_str(spec.title)}", f"category = {toml_str('issue/' + spec.kind)}",
             f"tags = {_toml_list([spec.language, spec.kind, 'large', 'real-issue'])}",
             f"description = {toml_str(spec.description)}", "", "[verify]", f"runner = {toml_str(spec.runner)}"]
    if spec.targets:
        lines.append(f"targets = {_toml_list(spec.targets)}")
    if spec.args:
        lines.append(f"args = {_toml_list(spec.args)}")
    if spec.pythonpath:
        lines.append(f"pythonpath = {_toml_list(spec.pythonpath)}")
    lines += ["tests = []", "timeout_s = 300", "", "[repo]"]
    if snapshot:
        lines += [f"snapshot = {toml_str(snapshot)}", f"commit = {toml_str(fix.parent)}"]
        if exclude:
            lines.append(f"exclude = {_toml_list(list(exclude))}")
    else:
        lines += [f"url = {toml_str(fix.repo_url)}", f"rev = {toml_str(fix.parent)}"]
    if spec.prepare:
        lines.append(f"prepare = {_toml_list(spec.prepare)}")
    lines += ["", "[provenance]", f"repository = {toml_str(spec.repository)}", f"commit = {toml_str(fix.commit)}",
              f"parent = {toml_str(fix.parent)}", f"license = {toml_str(fix.licence or 'unknown')}",
              f"license_files = {_toml_list(fix.licence_files)}"]
    if fix.date:
        lines.append(f"fix_date = {toml_str(fix.date)}")
    if spec.issue_url:
        lines.append(f"issue = {toml_str(spec.issue_url)}")
    if spec.pull_request_url:
        lines.append(f"pull_request = {toml_str(spec.pull_request_url)}")
    lines.append(f"commit_message = {toml_str(fix.message.strip())}")
    return "\n".join(lines) + "\n"


def write_task(dest: Path, spec: TaskSpec, fix: Fix, *, snapshot: str | None = None,
               exclude: Sequence[str] = (), force: bool = False) -> Path:
    """Create the task folder atomically: everything is written beside it, then renamed into place.

    With `snapshot` the task pins the fix's parent in the corpus's snapshot of the project (without the
    `exclude` paths); without it, `[repo]` pins the clone URL.
    """
    if dest.exists() and not force:
        raise BadInput(f"{dest}: already exists (use --force to replace it)")
    patch = solution_patch(fix, exclude)
    if not fix.tests:
        raise BadInput("the fix changes no test files, so there would be no hidden test; pick another fix")
    if not patch.strip():
        raise BadInput("the fix changes only tests, so there is no source change to use as the solution")
    with atomic.staged_directory(dest) as tmp:
        (tmp / "task.toml").write_text(task_toml(spec, fix, snapshot=snapshot, exclude=exclude), encoding="utf-8")
        (tmp / "prompt.md").write_text(spec.prompt.rstrip() + "\n", encoding="utf-8")
        for path, content in fix.tests.items():
            target = tmp / "verify" / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        (tmp / "solution").mkdir()
        (tmp / "solution" / "solution.patch").write_text(patch, encoding="utf-8")
    return dest


# A pull request a commit lands: "Merge pull request #12 from ..." or a squash merge's "Subject (#12)".
PR_REF = re.compile(r"^Merge pull request #(?P<merge>\d+)\b|\(#(?P<squash>\d+)\)\s*$")


def landed_pull_request(subject: str) -> int | None:
    m = PR_REF.search(subject.strip())
    return int(m.group("merge") or m.group("squash")) if m else None


@dataclass
class Candidate:
    commit: str
    issue: int | None
    subject: str
    source: list[str]
    tests: list[str]
    pr: int | None = None

    def as_dict(self) -> dict:
        return {"commit": self.commit, "issue": self.issue, "pr": self.pr, "subject": self.subject,
                "source": self.source, "tests": self.tests}


def scan_fixes(git_dir: Path, *, rev: str = "HEAD", limit: int | None = None,
               pull_requests: bool = False) -> list[Candidate]:
    """Commits (newest first) whose message fixes an issue and that change both code and tests.

    With `pull_requests`, commits that land a pull request count too (merge commits, diffed against their
    first parent, and squash merges): projects that merge through pull requests rarely write "fixes #N".
    """
    if not git_dir.exists():
        raise BadInput(f"{git_dir}: no such repository")
    history = "--diff-merges=first-parent" if pull_requests else "--no-merges"
    out = _git(git_dir, "log", history, "--format=%x1e%H%x1f%s%x1f%b%x1f", "--name-only", rev)
    found = []
    for record in out.decode("utf-8", errors="replace").split("\x1e")[1:]:
        commit, subject, body, names = (record.split("\x1f") + ["", "", "", ""])[:4]
        issue = linked_issue(subject, body)
        pr = landed_pull_request(subject) if pull_requests else None
        if issue is None and pr is None:
            continue
        files = [n for n in names.split("\n") if n.strip()]
        tests = [f for f in files if is_test_path(f)]
        source = [f for f in files if not is_test_path(f) and is_code_path(f)]
        if tests and source:
            found.append(Candidate(commit, issue, subject.strip(), source, tests, pr))
            if limit and len(found) >= limit:
                break
    return found
