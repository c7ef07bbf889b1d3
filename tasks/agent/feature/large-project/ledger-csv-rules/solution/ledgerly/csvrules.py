"""Rules that classify imported CSV rows (`ledgerly import --rules FILE`).

    # comments start with # or ;
    skip /^PENDING /                 rows whose description matches are not imported
    match /coffee|starbucks/         a rule: the description matches (case-insensitive regex)
      account expenses:food:coffee   required: the other side of the transaction
      payee Coffee at \\1             optional: replaces the description; \\1..\\9 are regex groups
      tag coffee                     optional, repeatable: a tag, or `tag name: value`
      if amount < 0                  optional, repeatable: amount OP NUMBER with OP one of < <= > >= = !=

The first rule whose pattern and conditions all match wins; rows no rule matches keep their description
and go to the default account.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from ledgerly.errors import LedgerError

_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "=": operator.eq, "!=": operator.ne}
_CONDITION = re.compile(r"^amount\s*(<=|>=|!=|<|>|=)\s*(-?\d+(?:\.\d+)?)$")


@dataclass
class Rule:
    pattern: re.Pattern
    line: int
    account: str | None = None
    payee: str | None = None
    tags: list[tuple[str, str]] = field(default_factory=list)
    conditions: list[tuple[str, Decimal]] = field(default_factory=list)

    def matches(self, description: str, amount: Decimal) -> re.Match | None:
        m = self.pattern.search(description)
        if m and all(_OPS[op](amount, value) for op, value in self.conditions):
            return m
        return None


@dataclass
class Classification:
    account: str | None  # None: the default account
    payee: str
    tags: list[tuple[str, str]]


@dataclass
class RuleSet:
    skips: list[re.Pattern] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)

    def skip(self, description: str) -> bool:
        return any(p.search(description) for p in self.skips)

    def classify(self, description: str, amount: Decimal) -> Classification:
        for rule in self.rules:
            m = rule.matches(description, amount)
            if m:
                payee = description if rule.payee is None else _expand(rule.payee, m)
                return Classification(rule.account, payee, list(rule.tags))
        return Classification(None, description, [])


def _expand(template: str, m: re.Match) -> str:
    def group(g: re.Match) -> str:
        index = int(g.group(1))
        return (m.group(index) or "") if index <= (m.re.groups or 0) else ""
    return re.sub(r"\\(\d)", group, template).strip()


def _regex(text: str, where: str) -> re.Pattern:
    text = text.strip()
    if len(text) < 2 or not text.startswith("/") or not text.endswith("/"):
        raise LedgerError(f"{where}: the pattern must be written between slashes, like /coffee/")
    try:
        return re.compile(text[1:-1], re.IGNORECASE)
    except re.error as exc:
        raise LedgerError(f"{where}: bad pattern: {exc}") from None


def parse_rules(text: str, source: str = "<rules>") -> RuleSet:
    rules = RuleSet()
    current: Rule | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = f"{source}:{number}"
        if not line or line.startswith(("#", ";")):
            continue
        keyword, _, rest = line.partition(" ")
        rest = rest.strip()
        if keyword == "skip":
            rules.skips.append(_regex(rest, where))
            current = None
        elif keyword == "match":
            current = Rule(_regex(rest, where), number)
            rules.rules.append(current)
        elif keyword in ("account", "payee", "tag", "if"):
            if current is None or not raw[:1].isspace():
                raise LedgerError(f"{where}: '{keyword}' belongs to an indented line under a 'match' rule")
            _rule_line(current, keyword, rest, where)
        else:
            raise LedgerError(f"{where}: unknown rule keyword {keyword!r} (skip, match, account, payee, tag, if)")
    for rule in rules.rules:
        if not rule.account:
            raise LedgerError(f"{source}:{rule.line}: rule has no 'account' line")
    return rules


def _rule_line(rule: Rule, keyword: str, rest: str, where: str) -> None:
    if not rest:
        raise LedgerError(f"{where}: '{keyword}' needs a value")
    if keyword == "account":
        rule.account = rest
    elif keyword == "payee":
        rule.payee = rest
    elif keyword == "tag":
        name, colon, value = rest.partition(":")
        if not re.fullmatch(r"[\w-]+", name.strip()):
            raise LedgerError(f"{where}: bad tag name {name.strip()!r}")
        rule.tags.append((name.strip(), value.strip() if colon else ""))
    else:
        m = _CONDITION.match(rest)
        if not m:
            raise LedgerError(f"{where}: bad condition {rest!r} (try: if amount < 0)")
        try:
            rule.conditions.append((m.group(1), Decimal(m.group(2))))
        except InvalidOperation:
            raise LedgerError(f"{where}: bad number in {rest!r}") from None


def tag_comment(tags: list[tuple[str, str]]) -> str:
    """`:a:b: key: value, other: x` — bare tags first, then the tags with values."""
    bare = [name for name, value in tags if not value]
    valued = [f"{name}: {value}" for name, value in tags if value]
    parts = []
    if bare:
        parts.append(":" + ":".join(bare) + ":")
    if valued:
        parts.append(", ".join(valued))
    return " ".join(parts)
