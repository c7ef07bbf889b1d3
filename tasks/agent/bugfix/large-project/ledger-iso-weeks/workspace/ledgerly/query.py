"""Selecting postings with query terms, as on the command line:

    expenses            account matches the regex (case-insensitive); several terms: any of them
    not:food            account does not match
    payee:store         payee/description matches
    tag:trip  tag:project=x   the posting or its transaction has the tag (with that value)
    status:*  status:!  status:   cleared / pending / unmarked
    amt:>100  amt:<0    the posting's quantity compared with a number
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation

from ledgerly.journal import Journal, Posting, Transaction


@dataclass
class Query:
    accounts: list[re.Pattern] = field(default_factory=list)
    not_accounts: list[re.Pattern] = field(default_factory=list)
    payees: list[re.Pattern] = field(default_factory=list)
    tags: list[tuple[str, str | None]] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    amount_tests: list[tuple[str, Decimal]] = field(default_factory=list)
    begin: date | None = None
    end: date | None = None  # exclusive

    def match_posting(self, txn: Transaction, posting: Posting) -> bool:
        if self.begin and txn.date < self.begin:
            return False
        if self.end and txn.date >= self.end:
            return False
        if self.accounts and not any(p.search(posting.account) for p in self.accounts):
            return False
        if any(p.search(posting.account) for p in self.not_accounts):
            return False
        if self.payees and not any(p.search(txn.payee) for p in self.payees):
            return False
        if self.statuses and txn.status not in self.statuses:
            return False
        for name, value in self.tags:
            tags = {**txn.tags, **posting.tags}
            if name not in tags or (value is not None and tags[name] != value):
                return False
        for op, number in self.amount_tests:
            q = posting.amount.quantity if posting.amount else Decimal(0)
            if not {"<": q < number, "<=": q <= number, ">": q > number, ">=": q >= number, "=": q == number}[op]:
                return False
        return True


def _regex(text: str) -> re.Pattern:
    try:
        return re.compile(text, re.IGNORECASE)
    except re.error as exc:
        raise ValueError(f"bad pattern {text!r}: {exc}") from None


def parse_terms(terms: list[str]) -> Query:
    q = Query()
    for term in terms:
        key, sep, value = term.partition(":")
        if not sep or key not in ("not", "payee", "desc", "tag", "status", "amt"):
            q.accounts.append(_regex(term))
        elif key == "not":
            q.not_accounts.append(_regex(value))
        elif key in ("payee", "desc"):
            q.payees.append(_regex(value))
        elif key == "tag":
            name, eq, tag_value = value.partition("=")
            q.tags.append((name, tag_value if eq else None))
        elif key == "status":
            q.statuses.append(value)
        else:
            m = re.fullmatch(r"(<=|>=|<|>|=)?(-?\d+(?:\.\d+)?)", value)
            if not m:
                raise ValueError(f"bad amount test {term!r} (try amt:>100)")
            try:
                q.amount_tests.append((m.group(1) or "=", Decimal(m.group(2))))
            except InvalidOperation:
                raise ValueError(f"bad amount test {term!r}") from None
    return q


def select(journal: Journal, query: Query) -> list[tuple[Transaction, Posting]]:
    return [(t, p) for t, p in journal.postings() if query.match_posting(t, p)]
