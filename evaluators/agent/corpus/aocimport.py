"""Advent of Code tasks for the puzzles a user solved: `agent import-aoc`.

The puzzle text may not be redistributed, so these tasks are written to `tasks/agent/aoc/<year>/dayNN/`,
which git ignores, from the user's own session cookie (`aoc_session.txt`). A day becomes a task only when
its answers are known (the puzzle page shows them once solved): the agent gets the puzzle text and
`input.txt`, writes its answers to `answers.txt`, and the hidden check gives half a point per part.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import os
import re
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from evaluators.core import atomic
from evaluators.core.errors import BadInput, EvaluationFailure
from evaluators.core.http import TRANSIENT_ERRORS, HttpClient, HttpError, RetryPolicy, describe_error
from evaluators.core.secrets import register_secret

AOC_URL = "https://adventofcode.com"
ENV_URL = "BANANABENCH_AOC_URL"
USER_AGENT = "bananabench import-aoc (personal benchmark; one request at a time)"
FIRST_YEAR = 2015

CHECK_SCRIPT = '''"""Hidden check for an Advent of Code task: answers.txt against the known answers.

Runs from the staged workspace and records one test per part in $BANANABENCH_REPORT.
"""

import json
import os
from pathlib import Path

expected = json.loads((Path(__file__).resolve().parent / "expected_answers.json").read_text())
path = Path("answers.txt")
given = path.read_text().split() if path.is_file() else []
with open(os.environ["BANANABENCH_REPORT"], "a") as report:
    for part, answer in enumerate(expected, 1):
        ok = len(given) >= part and given[part - 1] == answer
        print(f"part {part}: {'right' if ok else 'wrong or missing'}")
        report.write(json.dumps({"id": f"part{part}", "outcome": "passed" if ok else "failed"}) + "\\n")
'''


def read_session(path: Path) -> str:
    if not path.is_file():
        raise BadInput(f"{path}: no session cookie file (log in to adventofcode.com and save the `session` "
                       "cookie value in it)")
    cookie = path.read_text(encoding="utf-8").strip()
    if cookie.startswith("session="):
        cookie = cookie[len("session="):]
    if not re.fullmatch(r"[0-9A-Fa-f]{16,}", cookie):
        raise BadInput(f"{path}: does not look like an Advent of Code session cookie (a long hex string)")
    register_secret(cookie)
    return cookie


class AdventOfCode:
    """Polite, sequential access to the site with the user's session cookie."""

    def __init__(self, cookie: str, base_url: str | None = None, delay_s: float = 1.0, timeout: float = 30,
                 retry: RetryPolicy | None = None) -> None:
        self.cookie = cookie
        self.base_url = (base_url or os.environ.get(ENV_URL) or AOC_URL).rstrip("/")
        self.client = HttpClient(self.base_url, headers={"Cookie": f"session={cookie}", "User-Agent": USER_AGENT})
        self.delay_s = delay_s
        self.timeout = timeout
        self.retry = retry or RetryPolicy(attempts=3, base_s=max(delay_s, 1.0))
        self._last = 0.0

    def _fetch(self, path: str) -> bytes:
        """One request, no sooner than `delay_s` after the previous one."""
        wait = self._last + self.delay_s - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._last = time.monotonic()
        return self.client.request("GET", path, timeout=self.timeout, headers={"Accept": "text/html, text/plain"})

    def get(self, path: str) -> str | None:
        """The page text, or None for a 404 (a year or day that does not exist)."""
        try:
            return self.retry.call(lambda: self._fetch(path)).decode("utf-8", errors="replace")
        except HttpError as exc:
            if exc.status == 404:
                return None
            if exc.status in (400, 401, 403, 500) and "input" in path:
                raise BadInput(f"adventofcode: {path}: HTTP {exc.status}; the session cookie is probably "
                               "expired, log in again and update aoc_session.txt") from None
            raise EvaluationFailure(f"adventofcode: {path}: HTTP {exc.status} {exc.message}") from None
        except TRANSIENT_ERRORS as exc:
            raise EvaluationFailure(f"adventofcode: cannot reach {self.base_url}: {describe_error(exc)}") from None


_DAY_LINK = re.compile(r'<a\b[^>]*aria-label="Day (?P<day>\d+)(?P<stars>, (?:one|two) stars?)?"[^>]*>', re.I)


def solved_days(calendar_html: str) -> dict[int, int]:
    """Day -> stars earned (1 or 2), from a year's calendar page."""
    days = {}
    for m in _DAY_LINK.finditer(calendar_html):
        stars = m.group("stars") or ""
        count = 2 if "two" in stars else 1 if "one" in stars else 0
        if count:
            days[int(m.group("day"))] = count
    return days


class _Markdown(HTMLParser):
    """Just enough HTML -> Markdown for puzzle articles: headings, paragraphs, lists, code, emphasis, links."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.pre = False
        self.href: list[str | None] = []
        self.marks: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "h2":
            self.out.append("\n## ")
        elif tag == "p":
            self.out.append("\n\n")
        elif tag == "pre":
            self.pre = True
            self.out.append("\n\n```\n")
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag in ("em", "strong"):
            self.marks.append("**" if tag == "strong" or "star" in (attrs.get("class") or "") else "*")
            self.out.append(self.marks[-1])
        elif tag == "li":
            self.out.append("\n- ")
        elif tag == "ul":
            self.out.append("\n")
        elif tag == "a":
            self.href.append(attrs.get("href"))
            self.out.append("[")

    def handle_endtag(self, tag):
        if tag == "h2":
            self.out.append("\n")
        elif tag == "pre":
            self.pre = False
            self.out.append("```\n")
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag in ("em", "strong") and self.marks:
            self.out.append(self.marks.pop())
        elif tag == "a":
            href = self.href.pop() if self.href else None
            self.out.append(f"]({href})" if href else "]")

    def handle_data(self, data):
        self.out.append(data if self.pre else re.sub(r"\s+", " ", data))


def article_markdown(article_html: str) -> str:
    parser = _Markdown()
    parser.feed(article_html)
    text = "".join(parser.out)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


@dataclass
class Puzzle:
    title: str
    parts: list[str]  # Markdown per part
    answers: list[str]


def parse_puzzle(page: str) -> Puzzle:
    articles = re.findall(r'<article class="day-desc"[^>]*>(.*?)</article>', page, flags=re.S)
    answers = [html.unescape(a) for a in re.findall(r"Your puzzle answer was <code>(.*?)</code>", page)]
    title_match = re.search(r"<h2>--- Day \d+: (.*?) ---</h2>", page)
    title = html.unescape(title_match.group(1)) if title_match else "Advent of Code"
    return Puzzle(title=title, parts=[article_markdown(a) for a in articles], answers=answers)


def _prompt(year: int, day: int, puzzle: Puzzle) -> str:
    parts = "\n\n".join(puzzle.parts)
    count = len(puzzle.answers)
    wanted = "the answer to part 1 on the first line and the answer to part 2 on the second line" \
        if count == 2 else "the answer on the first line"
    return (f"{parts}\n\n---\n\nYour puzzle input is in `input.txt` (Advent of Code {year}, day {day}). Solve the "
            f"puzzle with a program in any language available here, run it on the input, and write {wanted} to "
            "`answers.txt`.\n")


def write_day(dest: Path, *, year: int, day: int, puzzle: Puzzle, puzzle_input: str, language: str) -> Path:
    answers = puzzle.answers[:2]
    if not answers:
        raise BadInput(f"{year} day {day}: no answers on the puzzle page")
    with atomic.staged_directory(dest) as tmp:
        title = f"Advent of Code {year} day {day}: {puzzle.title}"
        (tmp / "task.toml").write_text(
            f"title = {json.dumps(title, ensure_ascii=False)}\ncategory = \"aoc/{year}\"\ntags = [{json.dumps(language)}]\n"
            "description = \"Imported from adventofcode.com with your own session for private use; the puzzle "
            "text and input may not be redistributed.\"\n\n[verify]\nrunner = \"script\"\n"
            "cmd = 'python3 -I \"$BANANABENCH_VERIFY/check_answers.py\"'\n"
            f"tests = {json.dumps([f'part{n}' for n in range(1, len(answers) + 1)])}\npartial = true\n"
            "timeout_s = 60\n", encoding="utf-8")
        (tmp / "prompt.md").write_text(_prompt(year, day, puzzle), encoding="utf-8")
        (tmp / "workspace").mkdir()
        (tmp / "workspace" / "input.txt").write_text(puzzle_input, encoding="utf-8")
        (tmp / "verify").mkdir()
        (tmp / "verify" / "check_answers.py").write_text(CHECK_SCRIPT, encoding="utf-8")
        (tmp / "verify" / "expected_answers.json").write_text(json.dumps(answers) + "\n", encoding="utf-8")
        (tmp / "solution").mkdir()
        (tmp / "solution" / "answers.txt").write_text("\n".join(answers) + "\n", encoding="utf-8")
    return dest


def default_years(today: dt.date | None = None) -> list[int]:
    today = today or dt.date.today()
    last = today.year if today.month == 12 else today.year - 1
    return list(range(FIRST_YEAR, last + 1))


@dataclass
class ImportReport:
    written: list[Path]
    skipped: list[str]


def import_days(site: AdventOfCode, root: Path, years: list[int], *, language: str = "python",
                force: bool = False, log=print) -> ImportReport:
    """Write a task for every solved day of the given years under root/<year>/dayNN/."""
    report = ImportReport([], [])
    for year in years:
        calendar = site.get(f"/{year}")
        if calendar is None:
            report.skipped.append(f"{year}: no such event")
            continue
        if 'href="/auth/login"' in calendar:
            raise BadInput("adventofcode: the site does not recognise the session cookie (expired?); log in "
                           "again and update the session file")
        for day, stars in sorted(solved_days(calendar).items()):
            dest = root / str(year) / f"day{day:02d}"
            if dest.exists() and not force:
                report.skipped.append(f"{year} day {day}: already imported")
                continue
            page = site.get(f"/{year}/day/{day}")
            puzzle_input = site.get(f"/{year}/day/{day}/input")
            if page is None or puzzle_input is None:
                report.skipped.append(f"{year} day {day}: page or input missing")
                continue
            puzzle = parse_puzzle(page)
            if not puzzle.answers:
                report.skipped.append(f"{year} day {day}: {stars} star(s) but no answer on the page")
                continue
            report.written.append(write_day(dest, year=year, day=day, puzzle=puzzle, puzzle_input=puzzle_input,
                                            language=language))
            log(f"imported {year} day {day:2d}: {puzzle.title} ({len(puzzle.answers[:2])} part(s)) -> {dest}")
    return report
