"""Answer extraction rules, table-driven: what a demanding reader of model outputs expects."""

from __future__ import annotations

import json

import pytest

from evaluators.chat.extract import (
    canonical_number,
    extract_letter,
    extract_number,
    extract_pattern,
    extract_text,
    grade,
    verdict,
)
from tests.conftest import run_cli

LETTER_CASES = [
    # (response, letters offered, expected)
    ("The answer is B", "ABCD", "B"),
    ("The answer is (C).", "ABCD", "C"),
    ("the correct answer is: **D**", "ABCD", "D"),
    ("Answer: A", "ABCD", "A"),
    ("ANSWER: C", "ABCD", "C"),
    ("Final answer: $\\boxed{B}$", "ABCD", "B"),
    ("So we get \\boxed{\\text{D}}", "ABCD", "D"),
    ("The answer is option C because it fits.", "ABCD", "C"),
    ("I first thought the answer is A, but on reflection the answer is D.", "ABCD", "D"),
    ("The answer is B.\n\nWait, reconsidering: The answer is C", "ABCD", "C"),
    # "answer is" beats a later bare letter
    ("The answer is B. Option D is a distractor.", "ABCD", "B"),
    # only letters the item offers count
    ("The answer is E", "ABCD", None),
    ("The answer is E", "ABCDE", "E"),
    ("The answer is D, no wait, C", "ABC", "C"),
    # bare letters: the last one
    ("B", "ABCD", "B"),
    ("(C)", "ABCD", "C"),
    ("**A**", "ABCD", "A"),
    ("I'd go with C.", "ABCD", "C"),
    ("Between A and D, D is better supported.", "ABCD", "D"),
    ("Option A is correct", "ABCD", "A"),
    # the article "A" is not option A
    ("C. A careful look confirms it.", "ABCD", "C"),
    ("A plant uses its roots for that.", "ABCD", None),
    # echoed option lists are not an answer; a single "B) ..." line is
    ("A) roots\nB) leaves\nC) flowers\nD) seeds", "ABCD", None),
    ("A) roots\nB) leaves\nC) flowers\nD) seeds\n\nThe roots, so A", "ABCD", "A"),
    ("B) leaves", "ABCD", "B"),
    # thinking is removed first
    ("<think>The answer is A? no...</think>The answer is C", "ABCD", "C"),
    ("<think>Maybe B. Or D.</think>", "ABCD", None),
    ("<think>thinking until the budget ran out, leaning to B", "ABCD", None),
    ("reasoning opened by the template</think>\nAnswer: D", "ABCD", "D"),
    # nothing to find
    ("", "ABCD", None),
    (None, "ABCD", None),
    ("I am not sure.", "ABCD", None),
    ("The answer is a bit unclear", "ABCD", None),
    # letters inside words or code are not choices
    ("Because DNA replicates, BCD is a word", "ABCD", None),
    ("the A-team and B's idea", "ABCD", None),
    ("Answer: D\n", "ABCD", "D"),
    # a lower-case letter counts where it cannot be a word: wrapped in brackets, emphasis or \boxed, or
    # ending the line; never "a" the article, nor a letter that starts a phrase ("answer is e.g. ...")
    ("answer is (b)", "ABCD", "B"),
    ("Answer: (c)", "ABCD", "C"),
    ("The correct answer is **d**", "ABCD", "D"),
    ("Final answer: $\\boxed{c}$", "ABCD", "C"),
    ("so the answer: c", "ABCD", "C"),
    ("Thus the answer is b.\nDone.", "ABCD", "B"),
    ("The answer is a matter of taste", "ABCD", None),
    ("The answer is e.g. obvious", "ABCDE", None),
    ("the answer is (e)", "ABCD", None),
    ("I pick (b)", "ABCD", None),
    ("The answer is: C) flowers", "ABCD", "C"),
    ("The answer is B and not C", "ABCD", "B"),
]


@pytest.mark.parametrize("text,letters,expected", LETTER_CASES)
def test_extract_letter(text, letters, expected):
    assert extract_letter(text, letters) == expected


NUMBER_CASES = [
    ("#### 42", "42"),
    ("So the total is 40 + 2.\n#### 42", "42"),
    ("#### 1,234", "1234"),
    ("####  $18", "18"),
    ("#### -5", "-5"),
    ("#### **7**", "7"),
    ("#### 18.00", "18"),
    ("#### 0.375", "0.375"),
    # "####" wins over a later number
    ("#### 12\nThat is 3 dozen eggs... no, 1 dozen.", "12"),
    # the last "####" wins
    ("#### 10\nLet me recheck.\n#### 11", "11"),
    # otherwise the last number
    ("She has 5 apples and buys 3 more, so 8 apples.", "8"),
    ("The total cost is $1,250.", "1250"),
    ("It drops to \u22125 degrees.", "-5"),
    ("x = -2", "-2"),
    ("Between 3-5 items", "5"),
    ("That is 40% of the price", "40"),
    ("1,2,3", "3"),
    ("12,34", "34"),
    ("The answer is \\boxed{72}.", "72"),
    ("He ran 6,000 meters.", "6000"),
    ("approximately 3.50 dollars", "3.5"),
    # thinking is removed first
    ("<think>maybe 12? or 13</think>The answer is 14.", "14"),
    ("<think>let me compute 3*4 = 12", None),
    # nothing to find
    ("", None),
    (None, None),
    ("I cannot solve this.", None),
    ("x2 and y3", None),
]


@pytest.mark.parametrize("text,expected", NUMBER_CASES)
def test_extract_number(text, expected):
    assert extract_number(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("18", "18"), ("18.0", "18"), ("$18.00", "18"), ("1,000", "1000"), ("+3", "3"), ("-0.50", "-0.5"),
    ("\u22127", "-7"), ("12%", "12"), ("42.", "42"), ("abc", None), ("", None), (None, None), ("inf", None),
    ("1e3", "1000"),
])
def test_canonical_number(text, expected):
    assert canonical_number(text) == expected


@pytest.mark.parametrize("kind,answer,gold,expected", [
    ("number", "18", "18", "correct"), ("number", "18.0", "18", "correct"), ("number", "17", "18", "wrong"),
    ("number", None, "18", "unanswered"), ("letter", "B", "B", "correct"), ("letter", "C", "B", "wrong"),
    ("letter", None, "B", "unanswered"),
])
def test_verdict(kind, answer, gold, expected):
    assert verdict(kind, answer, gold) == expected


@pytest.mark.parametrize("response,expected", [
    ("The capital is Paris.\nThe answer is **Paris**.", "Paris"),
    ("Answer: \"New  York\"", "\"New  York\""[1:-1]),
    ("I think it is\nLyon\n\n", "Lyon"),
    ("Final answer: $\\boxed{42 km}$", "42 km"),
    ("<think>the answer is Rome</think>Madrid", "Madrid"),
    ("", None),
    ("<think>only thinking</think>", None),
])
def test_extract_text(response, expected):
    assert extract_text(response) == expected


def test_extract_pattern_takes_the_last_match_and_its_first_group():
    pattern = r"(\d+(?:\.\d+)?)\s*km"
    assert extract_pattern("first 12 km, then 15.5 km", pattern) == "15.5"
    assert extract_pattern("no distance", pattern) is None
    assert extract_pattern("code: X-17", r"X-\d+") == "X-17"  # no group: the whole match


def test_text_answers_compare_without_case_space_quotes_or_final_period():
    assert verdict("exact", "new  york.", "New York") == "correct"
    assert verdict("regex", "15.5", "15.50") == "wrong"  # text, not numbers: the spec's pattern decides the form
    assert verdict("exact", None, "x") == "unanswered"
    assert grade("exact", "The answer is Paris", "", "paris", "stop") == ("correct", "Paris")
    assert grade("regex", "It is 7 and then", "", "7", "length", r"(\d+)") == ("truncated", "7")


def test_extract_cli_reads_json_lines():
    lines = [{"text": "The answer is C"}, {"text": "<think>A</think>"}, {"text": "Answer: E", "letters": "ABCDE"}]
    proc = run_cli("chat", "extract", "--kind", "letter", input="".join(json.dumps(x) + "\n" for x in lines))
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(x) for x in proc.stdout.splitlines()] == [{"answer": "C"}, {"answer": None}, {"answer": "E"}]
    proc = run_cli("chat", "extract", "--kind", "number", input='{"text": "#### 1,000"}\n\n{"text": "nothing"}\n')
    assert [json.loads(x) for x in proc.stdout.splitlines()] == [{"answer": "1000"}, {"answer": None}]
    proc = run_cli("chat", "extract", "--kind", "regex", "--pattern", r"(\d+) km", input='{"text": "5 km, 9 km"}\n')
    assert [json.loads(x) for x in proc.stdout.splitlines()] == [{"answer": "9"}]
    assert run_cli("chat", "extract", "--kind", "regex", input='{"text": "x"}\n').returncode == 2


@pytest.mark.parametrize("stdin,needle", [
    ('{"text": "A"}\nnot json\n', "stdin:2: invalid JSON"),
    ('{"txt": "A"}\n', "stdin:1: text"),
    ('{"text": "A", "letters": "XYZ"}\n', "stdin:1: letters"),
])
def test_extract_cli_rejects_bad_lines_and_writes_nothing(stdin, needle):
    proc = run_cli("chat", "extract", "--kind", "letter", input=stdin)
    assert proc.returncode == 2 and needle in proc.stderr and proc.stdout == ""
