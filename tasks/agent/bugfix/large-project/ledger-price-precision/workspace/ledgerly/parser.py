"""Reading journal files.

    ; a comment line
    account assets:checking            ; declare an account
    P 2024-01-01 EUR 1.0950 USD         ; a market price: 1 EUR = 1.095 USD
    2024-01-05 * (1042) Grocery store  ; :food: a transaction with status, code, tags
        expenses:food           $45.20
        assets:checking                 ; one posting may omit its amount
    2024-01-06 Exchange
        assets:eur              100 EUR @ $1.10
        assets:checking        -$110.00

Dates are YYYY-MM-DD (or YYYY/MM/DD). Postings are indented and separate account and amount by two or
more spaces (or a tab). `@ PRICE` is a per-unit price, `@@ TOTAL` a total price. Tags are written
`:tag1:tag2:` or `key: value` in comments.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from pathlib import Path

from ledgerly.amount import Amount, parse_amount
from ledgerly.errors import ParseError
from ledgerly.journal import Journal, Posting, PriceDirective, Transaction

_DATE = r"\d{4}[-/]\d{2}[-/]\d{2}"
_TXN = re.compile(rf"^(?P<date>{_DATE})(?:\s+(?P<status>[*!]))?(?:\s+\((?P<code>[^)]*)\))?\s*(?P<payee>.*)$")
_PRICE = re.compile(rf"^P\s+(?P<date>{_DATE})\s+(?P<commodity>\S+)\s+(?P<price>.+)$")
_SPLIT = re.compile(r"\s{2,}|\t")
_TAG_LIST = re.compile(r":((?:[\w-]+:)+)")
_TAG_VALUE = re.compile(r"([\w-]+):\s*([^,:]+?)\s*(?:,|$)")


def parse_date(text: str) -> date:
    return date(int(text[0:4]), int(text[5:7]), int(text[8:10]))


def split_comment(text: str) -> tuple[str, str]:
    if ";" in text:
        body, comment = text.split(";", 1)
        return body.rstrip(), comment.strip()
    return text.rstrip(), ""


def parse_tags(comment: str) -> dict[str, str]:
    tags: dict[str, str] = {}
    for group in _TAG_LIST.findall(comment):
        for name in group.strip(":").split(":"):
            tags[name] = ""
    stripped = _TAG_LIST.sub(" ", comment)
    for key, value in _TAG_VALUE.findall(stripped):
        tags[key] = value
    return tags


class _Parser:
    def __init__(self, source: str, journal: Journal) -> None:
        self.source = source
        self.journal = journal
        self.txn: Transaction | None = None

    def error(self, line: int, message: str) -> ParseError:
        return ParseError(self.source, line, message)

    def feed(self, lines: list[str]) -> None:
        for number, raw in enumerate(lines, 1):
            line = raw.rstrip("\n").rstrip("\r")
            if not line.strip() or line.lstrip().startswith((";", "#")) and not line[:1].isspace():
                if not line.strip():
                    self.finish()
                continue
            if line[0].isspace():
                self.posting_line(line, number)
            else:
                self.finish()
                self.top_line(line, number)
        self.finish()

    def top_line(self, line: str, number: int) -> None:
        if line.startswith("P "):
            m = _PRICE.match(split_comment(line)[0])
            if not m:
                raise self.error(number, "bad price directive (want: P DATE COMMODITY PRICE)")
            price, _ = self.amount(m.group("price"), number)  # prices do not set display styles
            self.journal.prices.append(PriceDirective(self.date(m.group("date"), number), m.group("commodity"), price))
            return
        if line.startswith("account "):
            self.journal.accounts_declared.append(split_comment(line[8:])[0].strip())
            return
        if line.startswith(("include ", "~ ", "= ")):
            raise self.error(number, f"unsupported directive {line.split()[0]!r}")
        body, comment = split_comment(line)
        m = _TXN.match(body)
        if not m:
            raise self.error(number, f"expected a transaction date, got {line.strip()[:30]!r}")
        self.txn = Transaction(
            date=self.date(m.group("date"), number), payee=m.group("payee").strip(), status=m.group("status") or "",
            code=m.group("code") or "", comment=comment, tags=parse_tags(comment), source=self.source, line=number,
        )

    def posting_line(self, line: str, number: int) -> None:
        stripped = line.strip()
        if stripped.startswith(";"):
            if self.txn is None:
                return
            target = self.txn.postings[-1] if self.txn.postings else self.txn
            target.comment = (target.comment + " " + stripped[1:].strip()).strip()
            target.tags.update(parse_tags(stripped[1:]))
            return
        if self.txn is None:
            raise self.error(number, "posting outside a transaction")
        body, comment = split_comment(stripped)
        parts = _SPLIT.split(body, maxsplit=1)
        account = parts[0].strip()
        if not account:
            raise self.error(number, "missing account name")
        posting = Posting(account=account, amount=None, comment=comment, tags=parse_tags(comment), line=number)
        if len(parts) == 2 and parts[1].strip():
            self.posting_amount(posting, parts[1].strip(), number)
        self.txn.postings.append(posting)

    def posting_amount(self, posting: Posting, text: str, number: int) -> None:
        total = "@@" in text
        amount_text, _, price_text = text.partition("@@" if total else "@")
        amount, style = self.amount(amount_text, number)
        self.journal.commodities.observe(style)
        posting.amount = amount
        if price_text.strip():
            price, _ = self.amount(price_text, number)
            if total:
                if amount.quantity == 0:
                    raise self.error(number, "@@ total price on a zero amount")
                price = Amount(abs(price.quantity / amount.quantity), price.commodity)
            posting.price = price

    def amount(self, text: str, number: int):
        try:
            return parse_amount(text)
        except ValueError as exc:
            raise self.error(number, str(exc)) from None

    def date(self, text: str, number: int) -> date:
        try:
            return parse_date(text)
        except ValueError:
            raise self.error(number, f"invalid date {text!r}") from None

    def finish(self) -> None:
        txn, self.txn = self.txn, None
        if txn is None:
            return
        if not txn.postings:
            raise self.error(txn.line, "transaction without postings")
        missing = [p for p in txn.postings if p.amount is None]
        if len(missing) > 1:
            raise self.error(missing[1].line, "only one posting per transaction may omit its amount")
        if missing:
            rest = txn.balance()
            amounts = list(rest)
            if len(amounts) != 1:
                raise self.error(missing[0].line, "cannot infer an amount: the other postings use "
                                                  f"{len(amounts)} commodities")
            missing[0].amount = -amounts[0]
        residue = [a for a in txn.balance() if abs(a.quantity) >= self.tolerance(a.commodity)]
        if residue:
            shown = ", ".join(f"{a.quantity} {a.commodity}" for a in residue)
            raise self.error(txn.line, f"transaction does not balance (off by {shown})")
        self.journal.transactions.append(txn)

    def tolerance(self, commodity: str) -> Decimal:
        return Decimal(1).scaleb(-self.journal.commodities.get(commodity).precision) / 2


def parse_text(text: str, source: str = "<string>", journal: Journal | None = None) -> Journal:
    journal = journal or Journal()
    _Parser(source, journal).feed(text.splitlines())
    return journal


def parse_files(paths: list[str | Path]) -> Journal:
    journal = Journal()
    for path in paths:
        p = Path(path)
        parse_text(p.read_text(encoding="utf-8"), str(p), journal)
    return journal
