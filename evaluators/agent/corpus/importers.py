"""Task importers for `bananabench agent`: import-pr, scan-fixes, import-aoc.

They talk to GitHub and adventofcode.com on the user's machine; both base URLs can be changed (flags or
environment) so that mirrors, GitHub Enterprise or a local stand-in work the same way.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from evaluators.agent.grading.verifyspec import RUNNERS
from evaluators.core.errors import BadInput

DEFAULT_TASKS = Path("tasks/agent")


def register(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser(
        "import-pr", help="create an issue/bugfix or issue/feature task from a merged fix",
        description="Create tasks/agent/issue/<kind>/NAME/ from a merged fix of an issue: the fix's test files "
                    "become the hidden tests, its source change solution/solution.patch, and [provenance] records "
                    "the repository, commit and licence. With --commit and --git the code comes from a local "
                    "clone: the task pins the parent in the project's snapshot (tasks/agent/repos/OWNER+NAME.pack, "
                    "rebuilt from the clone), so it runs offline; with --prompt too, nothing is fetched. Through the GitHub API the task pins [repo] at the parent "
                    "and the prompt is the issue's text unless --prompt gives it.")
    p.add_argument("repo", metavar="OWNER/REPO")
    p.add_argument("pr", type=_pr_number, metavar="PR", help="pull request number, or - for a commit that no "
                                                              "pull request landed (with --git)")
    p.add_argument("name", metavar="NAME", help="task name, e.g. sqlparse-strip-comments")
    p.add_argument("--runner", required=True, choices=RUNNERS,
                   help="the test runner that grades the task (the hidden tests are the fix's test files; then run "
                        "`agent validate --write-tests` to fill in the expected tests)")
    p.add_argument("--target", action="append", default=[], metavar="TARGET",
                   help="what the runner runs (repeatable; default: the hidden test files), e.g. tests/test_x.py")
    p.add_argument("--arg", action="append", default=[], metavar="ARG",
                   help="extra argument for the test framework (repeatable; write --arg=-o for a leading dash)")
    p.add_argument("--pythonpath", action="append", default=[], metavar="DIR",
                   help="unittest/pytest: folder put on sys.path after the workspace, e.g. src (repeatable)")
    p.add_argument("--kind", choices=("bugfix", "feature"), default="bugfix")
    p.add_argument("--commit", metavar="SHA", help="the fix commit in --git (instead of the PR's merge commit)")
    p.add_argument("--git", metavar="DIR", type=Path, help="local clone holding --commit")
    p.add_argument("--prompt", metavar="FILE", type=Path,
                   help="the task's words (markdown; a first '# ' line is the title) instead of the issue text")
    p.add_argument("--title", help="task title (default: the prompt's heading, else the issue title)")
    p.add_argument("--issue", type=int, metavar="N", help="issue number (default: the one the PR/commit fixes)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="with --git: paths to leave out of the start state ([repo] exclude), e.g. 'docs' or "
                        "'.github' (repeatable; licence files always stay)")
    p.add_argument("--language", help="language tag (default: from the test files)")
    p.add_argument("--prepare", action="append", default=[], metavar="CMD",
                   help="command run on the host in each fresh checkout ([repo] prepare), e.g. 'go mod vendor' "
                        "(repeatable)")
    p.add_argument("--repo-url", metavar="URL", help="clone URL to pin in [repo] (default: GitHub's)")
    p.add_argument("--api-url", metavar="URL", help="GitHub API base (default $BANANABENCH_GITHUB_API or "
                                                     "https://api.github.com); token from $GITHUB_TOKEN")
    p.add_argument("--tasks-dir", type=Path, default=DEFAULT_TASKS, metavar="DIR")
    p.add_argument("--force", action="store_true", help="replace an existing task of that name")
    p.set_defaults(func=cmd_import_pr)

    p = verbs.add_parser("scan-fixes", help="list commits that fix an issue and change both code and tests",
                         description="List commits of a local repository whose message fixes an issue "
                                     "(\"fixes #12\") and that change both source and test files: candidates "
                                     "for import-pr --commit.")
    p.add_argument("git", metavar="REPO", type=Path, help="a clone or bare repository (REPO.git)")
    p.add_argument("--rev", default="HEAD", help="where to start (default HEAD)")
    p.add_argument("--limit", type=int, default=None, metavar="N")
    p.add_argument("--prs", action="store_true",
                   help="also list commits that land a pull request (merge commits, \"Subject (#12)\" squashes)")
    p.add_argument("--json", action="store_true", help="one JSON object per commit")
    p.set_defaults(func=cmd_scan_fixes)

    p = verbs.add_parser("import-aoc", help="create tasks for the Advent of Code puzzles you solved",
                         description="Read your session cookie from aoc_session.txt and create "
                                     "tasks/agent/aoc/<year>/dayNN/ (git-ignored: puzzle texts may not be "
                                     "redistributed) for every puzzle you solved.")
    p.add_argument("--session-file", type=Path, default=Path("aoc_session.txt"), metavar="FILE")
    p.add_argument("--year", type=int, action="append", default=[], help="year to import (repeatable; default all)")
    p.add_argument("--language", default="python", help="language tag for the tasks (default python)")
    p.add_argument("--aoc-url", metavar="URL", help="site base (default $BANANABENCH_AOC_URL or https://adventofcode.com)")
    p.add_argument("--delay", type=float, default=1.0, metavar="S", help="seconds between requests (default 1)")
    p.add_argument("--tasks-dir", type=Path, default=DEFAULT_TASKS, metavar="DIR")
    p.add_argument("--force", action="store_true", help="download days that were imported before again")
    p.set_defaults(func=cmd_import_aoc)


_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


def _pr_number(text: str) -> int | None:
    if text == "-":
        return None
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a pull request number (or -)")
    return int(text)


def _read_prompt(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"--prompt: {path}: {exc}") from None
    if not text.strip():
        raise BadInput(f"--prompt: {path}: empty")
    return text


def _heading(prompt: str) -> str | None:
    first = prompt.strip().splitlines()[0]
    return first[2:].strip() or None if first.startswith("# ") else None


def cmd_import_pr(args) -> int:
    from evaluators.agent.corpus import datasets, snapshots
    from evaluators.agent.corpus import ghimport as gi
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", args.repo):
        raise BadInput(f"OWNER/REPO: {args.repo!r} is not of the form owner/name")
    if not _NAME.match(args.name):
        raise BadInput(f"NAME: {args.name!r} must be lowercase letters, digits, '.', '_' or '-'")
    if bool(args.commit) != bool(args.git):
        raise BadInput("--commit and --git go together")
    if args.pr is None and not args.git:
        raise BadInput("PR: - (no pull request) needs --commit and --git")
    if args.exclude and not args.git:
        raise BadInput("--exclude applies to the files copied from --git")
    prompt = _read_prompt(args.prompt) if args.prompt else None
    home = f"https://github.com/{args.repo}"
    gh = gi.GitHub(args.api_url)
    pr = None
    if args.git:
        fix = gi.local_fix(args.git, args.commit, args.repo_url or home + ".git")
        issue = args.issue or gi.linked_issue(fix.message, repo=args.repo)
    else:
        pr = gh.json(f"/repos/{args.repo}/pulls/{args.pr}")
        fix = gi.api_fix(gh, args.repo, pr, args.repo_url)
        issue = args.issue or gi.linked_issue(pr.get("body") or "", pr.get("title") or "", repo=args.repo)
    title = args.title
    if prompt is None:
        if issue is None and pr is None and args.pr is not None:
            pr = gh.json(f"/repos/{args.repo}/pulls/{args.pr}")
            issue = gi.linked_issue(pr.get("body") or "", pr.get("title") or "", repo=args.repo)
        if issue is None:
            raise BadInput(f"{args.repo}: the fix links no issue (\"fixes #N\"); give it with --issue N, or the "
                           "task's words with --prompt FILE")
        data = gh.json(f"/repos/{args.repo}/issues/{issue}")
        prompt = f"# {data.get('title', '').strip()}\n\n{(data.get('body') or '').strip()}"
        title = title or data.get("title")
    title = title or _heading(prompt)
    if not title:
        raise BadInput(f"--prompt: {args.prompt}: give the task a title with a first '# ' line or --title")
    tests = sorted(fix.tests)
    language = args.language or gi.guess_language(tests) or gi.guess_language(
        [p for p, _, _ in gi.split_diff(fix.diff)])
    if language is None:
        raise BadInput("cannot tell the language from the changed files; give it with --language")
    issue_url = f"{home}/issues/{issue}" if issue else None
    pr_url = f"{home}/pull/{args.pr}" if args.pr is not None else None
    spec = gi.TaskSpec(
        title=title, prompt=prompt, kind=args.kind, language=language, runner=args.runner,
        targets=args.target, args=args.arg, pythonpath=args.pythonpath,
        description=f"{issue_url or home}, fixed by {pr_url or home + '/commit/' + fix.commit}"
                    f" (commit {fix.commit[:12]})",
        repository=home, issue_url=issue_url, pull_request_url=pr_url, prepare=args.prepare)
    dest = args.tasks_dir / "issue" / args.kind / args.name
    task_id = f"issue/{args.kind}/{args.name}"
    snapshot = args.repo.replace("/", "+") if args.git else None
    if snapshot:  # the project's snapshot gains the parent first: a task never pins a commit its snapshot lacks
        gi.check_links(args.git, fix.parent, args.exclude)
        known = datasets.load_tasks(args.tasks_dir) if args.tasks_dir.is_dir() else []
        pins = snapshots.pinned([t for t in known if t.id != task_id], snapshot)
        pins.setdefault(fix.parent, []).append(task_id)
        snapshots.build(args.git, pins, snapshots.path_of(args.tasks_dir, snapshot))
    gi.write_task(dest, spec, fix, snapshot=snapshot, exclude=args.exclude, force=args.force)
    where = f"pins {snapshot} at" if snapshot else "repo pinned at"
    print(f"wrote {dest}: {len(tests)} hidden test file(s), {where} {fix.parent[:12]}, licence {fix.licence}")
    print(f"next: bananabench agent validate --write-tests --tasks-dir {args.tasks_dir} {task_id}")
    print(f"then: bananabench agent measure --write-tags --tasks-dir {args.tasks_dir} {task_id}")
    if fix.licence is None:
        print("note: no licence file recognised at the fix; check that the code may be redistributed")
    if args.prompt:
        for sentence in gi.shared_sentences(prompt, fix.message):
            print(f"note: the prompt repeats the commit message: {sentence!r}; say it in your own words")
    for path in fix.deleted_tests:
        print(f"note: the fix deletes {path}; verification restores it from the start state, so leave it out of "
              "[verify] targets")
    for path, why in fix.skipped.items():
        print(f"note: {path} is not in the solution: {why}")
    return 0


def cmd_scan_fixes(args) -> int:
    from evaluators.agent.corpus import ghimport as gi
    candidates = gi.scan_fixes(args.git, rev=args.rev, limit=args.limit, pull_requests=args.prs)
    for c in candidates:
        if args.json:
            print(json.dumps(c.as_dict()))
        else:
            ref = f"#{c.issue}" if c.issue is not None else f"PR #{c.pr}"
            print(f"{c.commit[:12]}  {ref:<7} {c.subject[:70]}  ({len(c.source)} source, {len(c.tests)} test)")
    if not args.json:
        print(f"{len(candidates)} candidate fix(es)")
    return 0


def cmd_import_aoc(args) -> int:
    from evaluators.agent.corpus import aocimport as aoc
    cookie = aoc.read_session(args.session_file)
    site = aoc.AdventOfCode(cookie, args.aoc_url, delay_s=max(0.0, args.delay))
    years = args.year or aoc.default_years()
    report = aoc.import_days(site, args.tasks_dir / "aoc", years, language=args.language, force=args.force)
    for line in report.skipped:
        print(f"skipped {line}")
    print(f"{len(report.written)} task(s) written under {args.tasks_dir / 'aoc'} (git-ignored; do not share them)")
    return 0
