"""Answer extraction: the final letter or number in a model's response, or None (unanswered).

Thinking is removed first (`<think>` blocks; a separate `reasoning_content` never reaches here).
Letters: "answer is X" (also "Answer: X", "\\boxed{X}") preferred, the last such one (a lower-case x
too, where it cannot be a word: "(c)", "**c**", "\\boxed{c}", or ending its line); else the last bare
upper-case option letter the item offers, leaving out the labels of an echoed option list and the
word "A" ("A careful look..."). Numbers: "#### N" preferred, the last one; else the last
number in the text. Numbers are compared as decimals (commas, signs, currency and percent
signs handled), so 18, 18.0 and $18.00 agree. Nothing found means *unanswered*, which is
counted apart from wrong, never folded into it; an answer the token budget cut is *truncated*
(see `grade`), counted apart too.

`EXTRACTION_VERSION` names these rules; it is part of every run's signature, and `chat rescore`
re-applies the current rules to stored raw responses.
"""

from __future__ import annotations

import re

from evaluators.chat.datasets import LETTERS, canonical_number
from evaluators.core.text import split_reasoning

EXTRACTION_VERSION = "2026-12-v2"
TRUNCATED = "truncated"

# "The answer is (B)", "the correct answer is: **C**", "Answer: D", "final answer: $\boxed{A}$"
_ANSWER_IS = re.compile(
    r"answer\s*(?:is|:|=|would\s+be|should\s+be)?\s*[:\-]?\s*(?:option\s+|choice\s+)?"
    r"[\s\*_\(\[\{\"'`$]*(?:\\boxed\{\s*)?(?:\\text(?:bf)?\{\s*)?([A-H])(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_BOXED_LETTER = re.compile(r"\\boxed\{\s*(?:\\text(?:bf)?\{\s*)?([A-H])\s*\}", re.IGNORECASE)
_WRAPPERS = "([{*_\"'`$"
_CLOSERS = ")]}*_\"'`$"
_ENDS_LINE = re.compile(r"[.,;:!?]?[ \t]*(?:\n|$)")
_BARE_LETTER = re.compile(r"(?<![A-Za-z0-9'’\-])([A-H])(?![A-Za-z0-9'’\-])")
_OPTION_LINE = re.compile(r"^\s*[\(\[]?([A-H])[\)\].:]\s+\S")
_HASHES = re.compile(r"####\s*\**\s*([-\u2212+]?\s*\$?\s*(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)")
_NUMBER = re.compile(r"(?<![\w.])([-\u2212]?)\$?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?![\d])")


def answer_text(text: str | None) -> str:
    """The part of a response that may hold the answer: thinking removed."""
    return split_reasoning(text)[0]


def _is_article(text: str, start: int) -> bool:
    """An "A" (or "I") used as a word: "A careful look shows..." is not option A."""
    letter = text[start]
    if letter not in "AI":
        return False
    after = text[start + 1:start + 3]
    if not (len(after) == 2 and after[0] == " " and after[1].islower()):
        return False
    before = text[max(0, start - 8):start].lower()
    return not re.search(r"(option|choice|answer|letter|\()\s*$", before)


def _lower_case_choice(text: str, match: re.Match) -> bool:
    """An "answer is x" match with a lower-case x names an option only where x cannot be a word: wrapped
    ("(c)", "**c**") or ending its line ("answer: c", "answer is c.")."""
    start, end = match.span(1)
    before, after = text[start - 1:start], text[end:end + 1]
    return (bool(before) and before in _WRAPPERS) or (bool(after) and after in _CLOSERS) \
        or _ENDS_LINE.match(text, end) is not None


def extract_letter(text: str | None, letters: str = "ABCD") -> str | None:
    """The chosen option letter among `letters`, or None."""
    body = answer_text(text)
    if not body:
        return None
    allowed = set(letters)
    preferred = [m for m in _ANSWER_IS.finditer(body) if m.group(1).upper() in allowed
                 and (m.group(1).isupper() or _lower_case_choice(body, m))]
    boxed = [m for m in _BOXED_LETTER.finditer(body) if m.group(1).upper() in allowed]
    strong = sorted(preferred + boxed, key=lambda m: m.start(1))
    if strong:
        return strong[-1].group(1).upper()
    lines = body.splitlines()
    echoed = [i for i, line in enumerate(lines) if _OPTION_LINE.match(line)]
    if len(echoed) >= 2:  # the model restated the option list: those labels are not choices
        body = "\n".join(line for i, line in enumerate(lines) if i not in set(echoed))
    bare = [m for m in _BARE_LETTER.finditer(body) if m.group(1) in allowed and not _is_article(body, m.start(1))]
    return bare[-1].group(1) if bare else None


def extract_number(text: str | None) -> str | None:
    """The final numeric answer as a canonical decimal string, or None."""
    body = answer_text(text)
    if not body:
        return None
    hashes = _HASHES.findall(body)
    if hashes:
        value = canonical_number(hashes[-1].replace(" ", ""))
        if value is not None:
            return value
    numbers = _NUMBER.findall(body)
    if not numbers:
        return None
    sign, digits = numbers[-1]
    return canonical_number(("-" if sign else "") + digits)


def extract(kind: str, text: str | None, letters: str = "ABCD") -> str | None:
    if kind == "letter":
        return extract_letter(text, letters)
    if kind == "number":
        return extract_number(text)
    raise ValueError(f"unknown answer kind {kind!r}")


def verdict(kind: str, answer: str | None, gold: str) -> str:
    """correct / wrong / unanswered for an extracted answer."""
    if answer is None:
        return "unanswered"
    if kind == "number":
        return "correct" if canonical_number(answer) == canonical_number(gold) else "wrong"
    return "correct" if answer == gold else "wrong"


def grade(kind: str, text: str | None, letters: str, gold: str, finish_reason: str | None) -> tuple[str, str | None]:
    """(status, extracted answer) of one response.

    A response the token budget cut (`finish_reason` "length") that still holds text is *truncated*: the
    model never finished its answer, so the letter or number found in the cut text is kept for reading
    but not graded. A cut response whose budget went entirely to thinking has no text: *unanswered*.
    """
    answer = extract(kind, text, letters)
    if finish_reason == "length" and answer_text(text).strip():
        return TRUNCATED, answer
    return verdict(kind, answer, gold), answer


__all__ = ["EXTRACTION_VERSION", "LETTERS", "TRUNCATED", "answer_text", "extract", "extract_letter", "extract_number",
           "grade", "verdict"]
