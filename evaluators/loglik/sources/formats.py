"""How `bananabench loglik build` turns a source dataset's row into an item: the named formatting rules.

A spec's `[build.sources.<split>]` names one (`format = "hellaswag"`). Each takes a source row and
returns (context, choices, label), or None for a row its rule excludes; a row it cannot read raises
KeyError/TypeError/ValueError (the build stops naming the row). The rules, per source:

- `mark` (ArithMark 2.0): the prompt as is, numeric options written without a trailing `.0`, the
  answer index; `arithmark3` (ArithMark 3.0): the same, excluding `time_session` prompts that state
  no duration; `logicmark`: premises and question on separate lines, then as `mark`.
- `hellaswag`: lm-eval's cleanup (`activity_label: ctx_a Ctx_b`, `[title]` → `. `, other `[...]`
  removed, double spaces collapsed).
- `openbookqa`: `question_stem`, the choices' text, the answer key among the choice labels.
- `truthfulqa`: `Q: {question}\nA:`.
- `pythonio`: LF line endings, `Input: {input}\nOutput:`, choices with trailing whitespace removed
  (indentation kept).

Every choice gets one leading ASCII space (the token boundary); the build strips the context's
trailing whitespace.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Formatted = tuple[str, list[str], int]


# -- field helpers -----------------------------------------------------------------------------------

def _field(row: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in row and row[name] is not None:
            return row[name]
    raise KeyError(f"none of the fields {', '.join(names)}")


def _number(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _choice_list(value: Any) -> list[Any]:
    if isinstance(value, dict):  # {"text": [...], "label": [...]}
        value = value.get("text")
    if not isinstance(value, list):
        raise KeyError("choices are not a list")
    return value


def _label(value: Any, labels: list[str] | None = None) -> int:
    if isinstance(value, bool):
        raise KeyError("boolean label")
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if text.lstrip("-").isdigit():
        return int(text)
    if labels and text in labels:
        return labels.index(text)
    if len(text) == 1 and text.isalpha():
        return ord(text.upper()) - ord("A")
    raise KeyError(f"label {value!r}")


def _spaced(choice: str) -> str:
    return " " + choice


# -- per-source rules ---------------------------------------------------------------------------------

_DURATION = re.compile(r"\d+(\.\d+)?\s*(hours?|hrs?|minutes?|mins?|seconds?|secs?|h\b|m\b)", re.IGNORECASE)


def _mark(row: dict[str, Any]) -> Formatted:
    text = str(_field(row, "prompt", "question", "expression", "problem", "context", "input"))
    options = [_number(o) for o in _choice_list(_field(row, "options", "choices"))]
    return text.rstrip(), [_spaced(o) for o in options], _label(_field(row, "answer_index", "label", "answer_idx"))


def _arithmark3(row: dict[str, Any]) -> Formatted | None:
    kind = next((str(row[k]) for k in ("category", "type", "task", "subtype", "template") if row.get(k)), "")
    text = str(_field(row, "prompt", "question", "expression", "problem", "context", "input"))
    if kind == "time_session" and not _DURATION.search(text):
        return None
    return _mark(row)


def _logicmark(row: dict[str, Any]) -> Formatted:
    if "premises" in row and "question" in row:
        premises = row["premises"]
        if isinstance(premises, list):
            premises = "\n".join(map(str, premises))
        row = {**row, "prompt": f"{str(premises).rstrip()}\n{row['question']}"}
    return _mark(row)


def _hellaswag_clean(text: str) -> str:
    text = text.strip().replace(" [title]", ". ")
    text = re.sub(r"\[.*?\]", "", text)
    return text.replace("  ", " ")


def _hellaswag(row: dict[str, Any]) -> Formatted:
    ctx = f"{row['activity_label']}: {row['ctx_a']} {str(row['ctx_b']).capitalize()}"
    endings = [_spaced(_hellaswag_clean(str(e))) for e in _choice_list(row["endings"])]
    return _hellaswag_clean(ctx).rstrip(), endings, _label(row["label"])


def _openbookqa(row: dict[str, Any]) -> Formatted:
    choices = row["choices"]
    texts = _choice_list(choices)
    labels = choices.get("label") if isinstance(choices, dict) else None
    return (str(row["question_stem"]).strip(), [_spaced(str(t).strip()) for t in texts],
            _label(row["answerKey"], labels))


def _pythonio(row: dict[str, Any]) -> Formatted:
    source = str(_field(row, "input", "code", "question", "prompt")).replace("\r\n", "\n").replace("\r", "\n")
    choices = [str(c).replace("\r\n", "\n").replace("\r", "\n").rstrip()
               for c in _choice_list(_field(row, "choices", "options"))]
    return f"Input: {source.rstrip()}\nOutput:", [_spaced(c) for c in choices], _label(
        _field(row, "label", "answer_index", "answer"))


def _truthfulqa(row: dict[str, Any]) -> Formatted:
    choices = [_spaced(str(c).strip()) for c in _choice_list(row["choices"])]
    return f"Q: {str(row['question']).strip()}\nA:", choices, _label(row["label"])


Format = Callable[[dict[str, Any]], Formatted | None]
# The rules a spec's `[build.sources.<split>] format` names.
FORMATS: dict[str, Format] = {
    "mark": _mark, "arithmark3": _arithmark3, "logicmark": _logicmark, "hellaswag": _hellaswag,
    "openbookqa": _openbookqa, "pythonio": _pythonio, "truthfulqa": _truthfulqa,
}
