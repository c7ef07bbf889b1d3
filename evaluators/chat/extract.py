"""Answer extraction: the final letter, number or text in a model's response, or None (unanswered).

Thinking is removed first (`<think>` blocks; a separate `reasoning_content` never reaches here).
Letters: "answer is X" (also "Answer: X", "\\boxed{X}") preferred, the last such one (a lower-case x
too, where it cannot be a word: "(c)", "**c**", "\\boxed{c}", or ending its line); else the last bare
upper-case option letter the item offers, leaving out the labels of an echoed option list and the
word "A" ("A careful look..."). Numbers: "#### N" preferred, the last one; else the last
number in the text. Numbers are compared as decimals (commas, signs, currency and percent
signs handled), so 18, 18.0 and $18.00 agree. Exact text: "answer is X" (or "Answer: X") preferred,
the last one, else the last line; a regex answer: the spec pattern's last match (its first group).
Text answers compare with case, surrounding space, quotes, emphasis and a final period ignored.
Nothing found means *unanswered*, which is
counted apart from wrong, never folded into it; an answer the token budget cut is *truncated*
(see `grade`), counted apart too.

`EXTRACTION_VERSION` names these rules; it is part of every run's signature, and `chat rescore`
re-applies the current rules to stored raw responses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

from evaluators.core.text import split_reasoning

LETTERS = "ABCDEFGH"
KINDS = ("letter", "number", "exact", "regex")

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


def canonical_number(text: str | None) -> str | None:
    """'1,234', '$18.00', '-5', '40%' -> '1234', '18', '-5', '40'; None if not a number."""
    if text is None:
        return None
    cleaned = text.strip().replace(",", "").replace("$", "").replace("%", "").replace("\u2212", "-")
    cleaned = cleaned.rstrip(".").lstrip("+").strip()
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        return None
    if not value.is_finite():
        return None
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


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


_TEXT_ANSWER = re.compile(r"answer\s*(?:is|:|=)\s*[:\-]?\s*(?P<text>[^\n]+)", re.IGNORECASE)
_BOXED = re.compile(r"\\boxed\{(?P<text>[^{}]*)\}")
_WRAP = " \t*_`\"'$“”‘’"


def clean_text(value: str) -> str:
    """A text answer without surrounding space, quotes, emphasis, `\\boxed{}` or a final period."""
    boxed = _BOXED.search(value)
    text = (boxed.group("text") if boxed else value).strip(_WRAP)
    return text[:-1].strip(_WRAP) if text.endswith(".") else text


def extract_text(text: str | None) -> str | None:
    """The final text answer: after the last "answer is"/"Answer:", else the last non-empty line."""
    body = answer_text(text)
    if not body:
        return None
    marked = list(_TEXT_ANSWER.finditer(body))
    value = marked[-1].group("text") if marked else next(line for line in reversed(body.splitlines()) if line.strip())
    return clean_text(value) or None


def extract_pattern(text: str | None, pattern: str) -> str | None:
    """The last match of `pattern` in the answer (its first group, if it has groups), or None."""
    body = answer_text(text)
    matches = list(re.finditer(pattern, body)) if body else []
    if not matches:
        return None
    found = matches[-1].group(1) if matches[-1].groups() else matches[-1].group(0)
    return clean_text(found or "") or None


def same_text(a: str, b: str) -> bool:
    """Text answers agree up to case, spacing and what `clean_text` removes."""
    def key(value: str) -> str:
        return re.sub(r"\s+", " ", clean_text(value)).casefold()

    return key(a) == key(b)


def extract(kind: str, text: str | None, letters: str = "ABCD", pattern: str | None = None) -> str | None:
    if kind == "letter":
        return extract_letter(text, letters)
    if kind == "number":
        return extract_number(text)
    if kind == "exact":
        return extract_text(text)
    if kind == "regex" and pattern:
        return extract_pattern(text, pattern)
    raise ValueError(f"unknown answer kind {kind!r}" if kind not in KINDS else "a regex answer needs a pattern")


def verdict(kind: str, answer: str | None, gold: str | Sequence[str]) -> str:
    """correct / wrong / unanswered for an extracted answer; `gold` may be several accepted answers."""
    if answer is None:
        return "unanswered"
    golds = (gold,) if isinstance(gold, str) else tuple(gold)
    if kind == "number":
        same = any(canonical_number(answer) == canonical_number(g) for g in golds)
    elif kind in ("exact", "regex"):
        same = any(same_text(answer, g) for g in golds)
    else:
        same = answer in golds
    return "correct" if same else "wrong"


def grade(kind: str, text: str | None, letters: str, gold: str | Sequence[str], finish_reason: str | None,
          pattern: str | None = None) -> tuple[str, str | None]:
    """(status, extracted answer) of one response.

    A response the token budget cut (`finish_reason` "length") that still holds text is *truncated*: the
    model never finished its answer, so the letter or number found in the cut text is kept for reading
    but not graded. A cut response whose budget went entirely to thinking has no text: *unanswered*.
    """
    answer = extract(kind, text, letters, pattern)
    if finish_reason == "length" and answer_text(text).strip():
        return TRUNCATED, answer
    return verdict(kind, answer, gold), answer


__all__ = ["EXTRACTION_VERSION", "KINDS", "LETTERS", "TRUNCATED", "answer_text", "canonical_number", "clean_text",
           "extract", "extract_letter", "extract_number", "extract_pattern", "extract_text", "grade", "same_text",
           "verdict"]
