"""A chat benchmark from its spec: how a question is asked and graded, and its records as items.

`[scoring]` of a chat spec:

    answer = "letter"        # letter | number | exact | regex: what the answer is and how it is read
    pattern = '...'          # regex only: the answer is the last match (its first group, if it has one)
    max_tokens = 1024        # the token budget of one answer
    system = "..."           # the system prompt (default: one per answer kind)
    prompt = "..."           # a Jinja template of the user turn (default: one per answer kind) over
                             # question, options [{letter, text}] and letters
    answer_separator = "|"   # number/exact/regex: a record's answer text holds several accepted answers

Letters are compared as letters, numbers as decimals (`18`, `18.0` and `$18.00` agree), exact and
regex answers as text with case, surrounding space, quotes and a final period ignored.

`[record]` maps `question` and `answer` (letter: the correct option's index, letter, or one of
`choice_labels`; number: a number; exact and regex: the expected text, or a list of accepted answers),
`choices` (letter: a list of 2-8 options), optional `id` (default: a content hash), `category`,
`choice_labels` and `target` (the assistant's reply when the item is a few-shot example).

`[fewshot]` (see `specs.spec.FewshotSpec`) puts solved examples before each question as prior turns:
the example's user turn, then its `target` (default: the reply the system prompt asks for, "The answer
is B." or "#### 72"; a regex answer needs `target` mapped).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from evaluators.chat.extract import LETTERS, canonical_number
from evaluators.core.contract import Metric
from evaluators.core.errors import BadInput, located
from evaluators.specs import fewshot
from evaluators.specs.records import MappingError, RecordMapper, content_id, read_records, select, type_name
from evaluators.specs.spec import BenchmarkSpec, resolve
from evaluators.specs.spec_data import DataFile

ANSWERS = ("letter", "number", "exact", "regex")
REQUIRED = ("question", "answer")
OPTIONAL = ("id", "choices", "choice_labels", "category", "target")
# A few-shot example's reply when the spec maps no target: the final line each default system prompt asks for.
DEFAULT_TARGET = {"letter": "The answer is {gold}.", "number": "#### {gold}", "exact": "The answer is {gold}."}
FINAL_LINE = {"letter": "End your response with a line of the form \"The answer is X\", where X is the letter of "
                        "the correct option.",
              "number": "End your response with a line of the form \"#### N\", where N is the final answer as a "
                        "number."}
DEFAULT_SYSTEM = {
    "letter": "Answer the multiple-choice question. You may reason step by step first. " + FINAL_LINE["letter"],
    "number": "Solve the math problem. You may reason step by step first. " + FINAL_LINE["number"],
    "exact": "Answer the question. You may reason step by step first. End your response with a line of the form "
             "\"The answer is X\", where X is your final answer and nothing else.",
}
DEFAULT_SYSTEM["regex"] = DEFAULT_SYSTEM["exact"]
LETTER_PROMPT = ("{{ question }}\n\n{% for o in options %}{{ o.letter }}) {{ o.text }}\n{% endfor %}\n"
                 "Answer with one of {{ letters | join(', ') }}.")
DEFAULT_PROMPT = {"letter": LETTER_PROMPT, "number": "{{ question }}", "exact": "{{ question }}",
                  "regex": "{{ question }}"}


@dataclass(frozen=True)
class Scoring:
    answer: str
    pattern: str | None
    max_tokens: int
    system: str
    prompt: str
    answer_separator: str | None = None

    def signature(self) -> dict[str, Any]:
        sig = {"answer": self.answer, "pattern": self.pattern, "system": self.system, "prompt": self.prompt}
        return {**sig, **({"answer_separator": self.answer_separator} if self.answer_separator else {})}


@dataclass(frozen=True)
class Item:
    """One question, ready to prompt and grade."""

    item_id: str
    question: str
    options: tuple[str, ...]  # empty unless the answer is a letter
    gold: str  # a letter, a canonical number, or the expected text
    category: str | None
    content_hash: str
    index: int  # position in the source
    line: int
    accepted: tuple[str, ...] = ()  # every accepted answer, when there are several (gold is the first)
    target: str | None = None  # the reply when this item is a few-shot example (None: the default one)
    examples: tuple[Item, ...] = ()  # the few-shot examples asked before it

    @property
    def letters(self) -> str:
        return LETTERS[:len(self.options)]

    @property
    def golds(self) -> tuple[str, ...]:
        return self.accepted or (self.gold,)


@dataclass
class Task:
    """A chat spec read and checked, with a compiled prompt template."""

    spec: BenchmarkSpec
    scoring: Scoring

    def signature(self) -> dict[str, Any]:
        """The scoring rules, and the few-shot rule when there is one (0-shot signatures stay as they were)."""
        few = self.spec.fewshot
        return {**self.scoring.signature(), **({"fewshot": few.signature()} if few.count else {})}

    def reply(self, example: Item) -> str:
        """The assistant's turn after a few-shot example's question."""
        return example.target or DEFAULT_TARGET[self.scoring.answer].format(gold=example.gold)

    @property
    def name(self) -> str:
        """The short name (the first alias, else the id): the key of `--max-tokens NAME=N`."""
        return (self.spec.aliases or (self.spec.id,))[0]

    def render(self, item: Item) -> str:
        """The user turn for `item`."""
        import jinja2
        from jinja2.sandbox import SandboxedEnvironment

        env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)
        options = [{"letter": letter, "text": text} for letter, text in zip(item.letters, item.options, strict=True)]
        return env.from_string(self.scoring.prompt).render(question=item.question, options=options,
                                                           letters=list(item.letters), category=item.category)


def load_task(name: str) -> Task:
    """A built-in chat benchmark by id or alias, or a spec file."""
    return parse(resolve(name, "chat"))


def parse(spec: BenchmarkSpec) -> Task:
    s = spec.scoring
    answer = s.text("answer", required=True, choices=ANSWERS)
    pattern = s.text("pattern")
    if answer == "regex":
        if not pattern:
            raise s.error("answer", "a regex answer needs pattern (the answer is its last match)")
        import re

        try:
            re.compile(pattern)
        except re.error as exc:
            raise s.error("pattern", f"not a valid regular expression: {exc}") from None
    elif pattern is not None:
        raise s.error("pattern", "only a regex answer has a pattern")
    scoring = Scoring(answer=answer, pattern=pattern, max_tokens=s.integer("max_tokens", default=1024, minimum=1),
                      system=s.text("system", default=DEFAULT_SYSTEM[answer]),
                      prompt=s.text("prompt", default=DEFAULT_PROMPT[answer]),
                      answer_separator=s.text("answer_separator"))
    if scoring.answer_separator is not None and (answer == "letter" or not scoring.answer_separator.strip()):
        raise s.error("answer_separator", "splits the answer text of a number, exact or regex answer: a non-blank "
                                          "string")
    s.done()
    task = Task(spec, scoring)
    try:
        import jinja2
        from jinja2.sandbox import SandboxedEnvironment

        SandboxedEnvironment().parse(scoring.prompt)
    except jinja2.TemplateSyntaxError as exc:
        raise s.error("prompt", f"not a valid template: {exc.message}") from None
    if spec.headline != Metric.ACCURACY:
        raise spec.error(("headline",), f"a chat benchmark's headline is {Metric.ACCURACY!r}")
    spec.check_record([*REQUIRED, *(("choices",) if answer == "letter" else ())], OPTIONAL, "chat")
    for key in ("choices", "choice_labels"):
        if answer != "letter" and key in spec.record:
            raise spec.error(("record", key), "only a letter answer has choices")
    if spec.build is not None:
        raise spec.error(("build",), "a chat benchmark has no [build]")
    _check_fewshot(spec, answer)
    if spec.data.manifest:
        raise spec.error(("data", "manifest"), "a chat benchmark reads one data file, not a manifest of splits")
    return task


def _check_fewshot(spec: BenchmarkSpec, answer: str) -> None:
    few = spec.fewshot
    if not few.count:
        if "target" in spec.record:
            raise spec.error(("record", "target"), "a few-shot example's reply: give [fewshot] count too")
        return
    for key, default in (("delimiter", "\n\n"), ("description", "")):
        if getattr(few, key) != default:
            raise spec.error(("fewshot", key), "a chat benchmark's examples are prior turns (no text delimiters); "
                                               "put a description in [scoring] system")
    if answer == "regex" and "target" not in spec.record:
        raise spec.error(("fewshot", "count"), "a regex answer's few-shot replies need record.target (the reply "
                                               "the pattern reads)")


def _hash(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _letter(fields: dict[str, Any], options: tuple[str, ...]) -> str:
    value = fields["answer"]
    labels = fields.get("choice_labels")
    if labels is not None:
        if not isinstance(labels, (list, tuple)) or len(labels) != len(options):
            raise MappingError("choice_labels", f"expected {len(options)} labels, one per option")
        labels = [str(x) for x in labels]
        if len(set(labels)) != len(labels):
            raise MappingError("choice_labels", f"duplicate labels {labels}")
        if str(value) not in labels:
            raise MappingError("answer", f"{value!r} is not one of the labels {labels}")
        return LETTERS[labels.index(str(value))]
    if isinstance(value, str) and value in LETTERS[:len(options)]:
        return value
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(options):
        raise MappingError("answer", f"expected an option index 0-{len(options) - 1} or its letter, not {value!r}")
    return LETTERS[value]


def _golds(task: Task, fields: dict[str, Any], options: tuple[str, ...]) -> tuple[str, ...]:
    """Every accepted answer: one letter, or the numbers or texts a list (or the separator) gives."""
    if task.scoring.answer == "letter":
        return (_letter(fields, options),)
    value, separator = fields["answer"], task.scoring.answer_separator
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if separator and len(values) == 1 and isinstance(values[0], str):
        values = values[0].split(separator)
    if not values:
        raise MappingError("answer", "an empty list of accepted answers")
    return tuple(_accepted(task.scoring.answer, v) for v in values)


def _accepted(kind: str, value: Any) -> str:
    if kind == "number":
        number = canonical_number(value if isinstance(value, str) else None if isinstance(value, bool) else str(value))
        if number is None:
            raise MappingError("answer", f"expected a number, not {value!r}")
        return number
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or not str(value).strip():
        raise MappingError("answer", f"expected the answer text, not {type_name(value)}")
    return str(value).strip()


def item(task: Task, fields: dict[str, Any], index: int, line: int) -> Item:
    """An item from a record's mapped fields (MappingError naming the field when one is wrong)."""
    question = fields["question"]
    if not isinstance(question, str) or not question.strip():
        raise MappingError("question", "expected a non-empty string")
    options: tuple[str, ...] = ()
    if task.scoring.answer == "letter":
        choices = fields["choices"]
        if not isinstance(choices, (list, tuple)) or not 2 <= len(choices) <= len(LETTERS):
            raise MappingError("choices", f"expected a list of 2-{len(LETTERS)} options, not {type_name(choices)}")
        options = tuple(str(c) for c in choices)
    golds = _golds(task, fields, options)
    target = fields.get("target")
    if target is not None and (not isinstance(target, str) or not target.strip()):
        raise MappingError("target", f"expected a non-empty string, not {type_name(target)}")
    category = fields.get("category")
    if category is not None and (not isinstance(category, str) or not category.strip()):
        raise MappingError("category", "expected a non-empty string")
    item_id = fields.get("id") or content_id(question, list(options))
    if isinstance(item_id, bool) or not isinstance(item_id, (str, int)) or not str(item_id).strip():
        raise MappingError("id", f"expected a non-empty string, not {item_id!r}")
    asked = {"question": question, "options": list(options), "gold": golds[0],
             **({"accepted": list(golds)} if len(golds) > 1 else {}), **({"target": target} if target else {})}
    return Item(item_id=str(item_id), question=question, options=options, gold=golds[0], category=category,
                content_hash=_hash(asked), index=index, line=line, accepted=golds if len(golds) > 1 else (),
                target=target)


def _mapped(task: Task, path: Path, fmt: str | None) -> list[Item]:
    """Every record mapped to an item (the first bad one names its line), duplicates refused."""
    mapper = RecordMapper(task.spec)
    items, seen = [], {}
    for index, (line, record) in enumerate(read_records(path, fmt)):
        try:
            one = item(task, mapper.map(record), index, line)
        except MappingError as err:
            raise mapper.error(path, line, err) from None
        if one.item_id in seen:
            raise BadInput(located(path, line, "id", f"item {one.item_id!r} appears twice "
                                                     f"(first on line {seen[one.item_id]})"))
        seen[one.item_id] = line
        items.append(one)
    if not items:
        raise BadInput(f"{path}: no records")
    return items


def read_items(task: Task, data: DataFile) -> list[Item]:
    """Every record mapped to an item, then selected; with `[fewshot]`, each selected item carries its examples
    (drawn from the file's own records or the spec's file of examples), and its content hash names them."""
    items = _mapped(task, data.path, task.spec.data.format)
    selected = select(items, task.spec.select, lambda i: i.category)
    few = task.spec.fewshot
    if not few.count:
        return selected
    if few.path is not None and not few.path.is_file():
        raise task.spec.error(("fewshot", "path"), f"{few.path}: no such file")
    pool = items if few.path is None else _mapped(task, few.path, None)
    drawn = fewshot.draw(task.spec, pool, selected, lambda i: i.item_id)
    return [replace(i, examples=tuple(drawn[i.item_id]),
                    content_hash=_hash([i.content_hash, *(e.content_hash for e in drawn[i.item_id])]))
            for i in selected]


def dataset_sha256(items: list[Item]) -> str:
    """Identifies exactly the selected items (not the file they came from)."""
    return hashlib.sha256("\n".join(f"{i.item_id}:{i.content_hash}" for i in items).encode()).hexdigest()


def describe(task: Task) -> dict[str, Any]:
    """The evaluator's part of `benchmarks show`."""
    return {"scoring": {**task.scoring.signature(), "max_tokens": task.scoring.max_tokens}, "metrics": [Metric.ACCURACY]}


def validate(task: Task, data: DataFile) -> tuple[int, list[str]]:
    """Map every record of `data`: (items selected, why a run over them would not be official)."""
    return len(read_items(task, data)), [] if data.pinned else list(data.notes)
