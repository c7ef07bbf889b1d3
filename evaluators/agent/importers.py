"""Task importers for `bananabench agent`: import-pr, scan-fixes, import-aoc.

They talk to GitHub and adventofcode.com on the user's machine; both base URLs can be changed (flags or
environment) so that mirrors, GitHub Enterprise or a local stand-in work the same way.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from evaluators.agent.verifyspec import RUNNERS
from evaluators.core.errors import BadInput

DEFAULT_TASKS = Path("tasks/agent")


def register(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser(
        "import-pr", help="create an issue/bugfix or issue/feature task from a merged pull request",
        description="Create tasks/agent/issue/<kind>/NAME/ from a merged pull request that fixes an issue: the "
                    "repository pinned at the fix's parent ([repo]), the issue text as the prompt, the fix's test "
                    "files as hidden tests and its source change as solution/solution.patch. With --commit and "
                    "--git the code comes from a local clone and GitHub is asked only for the issue text.")
    p.add_argument("repo", metavar="OWNER/REPO")
    p.add_argument("pr", type=int, metavar="PR", help="pull request number")
    p.add_argument("name", metavar="NAME", help="task name, e.g. sqlparse-strip-comments")
    p.add_argument("--runner", required=True, choices=RUNNERS,
                   help="the test runner that grades the task (the hidden tests are the fix's test files; then run "
                        "`agent validate --write-tests` to fill in the expected tests)")
    p.add_argument("--kind", choices=("bugfix", "feature"), default="bugfix")
    p.add_argument("--commit", metavar="SHA", help="the fix commit in --git (instead of the PR's merge commit)")
    p.add_argument("--git", metavar="DIR", type=Path, help="local clone holding --commit")
    p.add_argument("--issue", type=int, metavar="N", help="issue number (default: the one the PR/commit fixes)")
    p.add_argument("--language", help="language tag (default: from the test files)")
    p.add_argument("--prepare", action="append", default=[], metavar="CMD",
                   help="command run once on the host after checkout, e.g. 'go mod vendor' (repeatable)")
    p.add_argument("--repo-url", metavar="URL", help="clone URL to pin in [repo] (default: GitHub's, or --git's origin)")
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


def cmd_import_pr(args) -> int:
    from evaluators.agent import ghimport as gi

    if not re.fullmatch(r"[\w.-]+/[\w.-]+", args.repo):
        raise BadInput(f"OWNER/REPO: {args.repo!r} is not of the form owner/name")
    if not _NAME.match(args.name):
        raise BadInput(f"NAME: {args.name!r} must be lowercase letters, digits, '.', '_' or '-'")
    if bool(args.commit) != bool(args.git):
        raise BadInput("--commit and --git go together")
    gh = gi.GitHub(args.api_url)
    pr = None
    if args.git:
        fix, message = gi.local_fix(args.git, args.commit, args.repo_url)
        issue = args.issue or gi.linked_issue(message, repo=args.repo)
    else:
        pr = gh.json(f"/repos/{args.repo}/pulls/{args.pr}")
        fix = gi.api_fix(gh, args.repo, pr, args.repo_url)
        issue = args.issue or gi.linked_issue(pr.get("body") or "", pr.get("title") or "", repo=args.repo)
    if issue is None and pr is None:
        pr = gh.json(f"/repos/{args.repo}/pulls/{args.pr}")
        issue = gi.linked_issue(pr.get("body") or "", pr.get("title") or "", repo=args.repo)
    if issue is None:
        raise BadInput(f"{args.repo}#{args.pr} links no issue (\"fixes #N\"); give it with --issue N")
    data = gh.json(f"/repos/{args.repo}/issues/{issue}")
    tests = sorted(fix.tests)
    language = args.language or gi.guess_language(tests) or gi.guess_language(
        [p for p, _, _ in gi.split_diff(fix.diff)])
    if language is None:
        raise BadInput("cannot tell the language from the changed files; give it with --language")
    spec = gi.TaskSpec(
        title=data.get("title") or f"{args.repo} issue {issue}",
        prompt=f"# {data.get('title', '').strip()}\n\n{(data.get('body') or '').strip()}",
        kind=args.kind, language=language, runner=args.runner,
        description=f"https://github.com/{args.repo}/issues/{issue}, fixed by "
                    f"https://github.com/{args.repo}/pull/{args.pr} (commit {fix.commit[:12]})",
        prepare=args.prepare)
    dest = args.tasks_dir / "issue" / args.kind / args.name
    gi.write_task(dest, spec, fix, force=args.force)
    print(f"wrote {dest}: {len(tests)} hidden test file(s), repo pinned at {fix.parent[:12]}")
    print(f"next: bananabench agent validate --write-tests --tasks-dir {args.tasks_dir} issue/{args.kind}/{args.name}")
    for path in fix.deleted_tests:
        print(f"note: the fix deletes {path}; verification restores it from the start state, so leave it out of "
              "[verify] targets")
    for path in fix.skipped:
        print(f"note: left the binary change of {path} out of the solution")
    return 0


def cmd_scan_fixes(args) -> int:
    from evaluators.agent import ghimport as gi

    candidates = gi.scan_fixes(args.git, rev=args.rev, limit=args.limit)
    for c in candidates:
        if args.json:
            print(json.dumps(c.as_dict()))
        else:
            print(f"{c.commit[:12]}  #{c.issue:<6} {c.subject[:70]}  ({len(c.source)} source, {len(c.tests)} test)")
    if not args.json:
        print(f"{len(candidates)} candidate fix(es)")
    return 0


def cmd_import_aoc(args) -> int:
    from evaluators.agent import aocimport as aoc

    cookie = aoc.read_session(args.session_file)
    site = aoc.AdventOfCode(cookie, args.aoc_url, delay_s=max(0.0, args.delay))
    years = args.year or aoc.default_years()
    report = aoc.import_days(site, args.tasks_dir / "aoc", years, language=args.language, force=args.force)
    for line in report.skipped:
        print(f"skipped {line}")
    print(f"{len(report.written)} task(s) written under {args.tasks_dir / 'aoc'} (git-ignored; do not share them)")
    return 0
