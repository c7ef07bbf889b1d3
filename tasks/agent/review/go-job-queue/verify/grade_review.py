"""Hidden grader for a code-review task: recall of the planted defects, read from REVIEW.md.

A finding is a heading `### PATH:START-END` (or `### PATH:LINE`) followed by its explanation. A finding
counts for a planted defect when it names the same file, its line range overlaps the defect's lines
(within a small tolerance), the range is narrow (a finding spanning more than MAX_SPAN lines counts for
nothing), and the explanation uses the vocabulary of that kind of defect. Each finding can count once.
Listing many findings does not help: beyond MAX_FINDINGS the score shrinks with the square of the excess ratio.
Runs from the staged workspace (the current folder) and records one test, `review`, in $BANANABENCH_REPORT:
its score, and passed when the score reaches PASS_SCORE. Prints one line per planted defect.
"""

import json
import os
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFECTS = json.loads((HERE / "review_defects.json").read_text())
REVIEW = Path.cwd() / "REVIEW.md"
TOLERANCE = 2
MAX_SPAN = 10
MAX_FINDINGS = 10
PASS_SCORE = 0.6  # four of six defects with no padding

HEADING = re.compile(r"^#{2,4}\s+`?(?P<path>[\w./-]+)`?\s*:\s*(?:L|lines?\s*)?(?P<start>\d+)(?:\s*[-–]\s*L?(?P<end>\d+))?\b")


def findings(text):
    found, current = [], None
    for line in text.splitlines():
        m = HEADING.match(line.strip())
        if m:
            start = int(m.group("start"))
            end = int(m.group("end") or start)
            current = {"path": m.group("path").lstrip("./"), "start": min(start, end), "end": max(start, end),
                       "text": line}
            found.append(current)
        elif current is not None:
            current["text"] += "\n" + line
    return found


def same_file(named, planted):
    return named == planted or planted.endswith("/" + named) or named.endswith("/" + planted)


def matches(finding, defect):
    if finding["end"] - finding["start"] + 1 > MAX_SPAN:
        return False
    spots = [(defect["file"], defect["lines"])] + [tuple(alt) for alt in defect.get("also", [])]
    if not any(same_file(finding["path"], path) and finding["end"] >= lo - TOLERANCE and finding["start"] <= hi + TOLERANCE
               for path, (lo, hi) in spots):
        return False
    text = finding["text"].lower()
    return any(re.search(k, text) for k in defect["keywords"])


def record(score, message):
    line = {"id": "review", "outcome": "passed" if score >= PASS_SCORE else "failed", "score": round(score, 4),
            "message": message}
    with open(os.environ["BANANABENCH_REPORT"], "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")


def main():
    if not REVIEW.is_file():
        print("no REVIEW.md in the workspace")
        record(0.0, "no REVIEW.md in the workspace")
        return
    found = findings(REVIEW.read_text(encoding="utf-8", errors="replace"))
    used = set()
    hits = 0
    for defect in DEFECTS:
        match = next((i for i, f in enumerate(found) if i not in used and matches(f, defect)), None)
        if match is not None:
            used.add(match)
            hits += 1
        print(f"{'found ' if match is not None else 'missed'} {defect['id']}")
    score = hits / len(DEFECTS)
    if len(found) > MAX_FINDINGS:
        score *= (MAX_FINDINGS / len(found)) ** 2
        print(f"{len(found)} findings listed (more than {MAX_FINDINGS}): score scaled down")
    summary = f"{hits}/{len(DEFECTS)} planted defects found in {len(found)} finding(s), score {score:.3f}"
    print(summary)
    record(score, summary)


if __name__ == "__main__":
    main()
