"""Turning a bank's CSV export into journal transactions.

The CSV needs a header row. `--date-column`, `--description-column` and `--amount-column` name the
columns (defaults: date, description, amount); amounts may use a decimal comma (`-12,50`) when
`--decimal-comma` is given. Every row becomes a two-posting transaction between `--account` (the bank
account) and `--default-account` (where the money went).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from ledgerly.errors import LedgerError


@dataclass
class ImportSettings:
    account: str
    default_account: str = "expenses:unknown"
    commodity: str = "$"
    date_column: str = "date"
    description_column: str = "description"
    amount_column: str = "amount"
    date_format: str = "%Y-%m-%d"
    decimal_comma: bool = False


@dataclass
class ImportedRow:
    date: datetime
    description: str
    amount: Decimal
    line: int


def read_rows(text: str, settings: ImportSettings) -> list[ImportedRow]:
    reader = csv.DictReader(io.StringIO(text))
    columns = reader.fieldnames or []
    for col in (settings.date_column, settings.description_column, settings.amount_column):
        if col not in columns:
            raise LedgerError(f"CSV has no column {col!r} (columns: {', '.join(columns)})")
    rows = []
    for number, record in enumerate(reader, 2):
        raw_amount = (record[settings.amount_column] or "").strip()
        if settings.decimal_comma:
            raw_amount = raw_amount.replace(".", "").replace(",", ".")
        else:
            raw_amount = raw_amount.replace(",", "")
        try:
            amount = Decimal(raw_amount)
            when = datetime.strptime((record[settings.date_column] or "").strip(), settings.date_format)
        except (InvalidOperation, ValueError) as exc:
            raise LedgerError(f"CSV line {number}: {exc}") from None
        rows.append(ImportedRow(when, (record[settings.description_column] or "").strip(), amount, number))
    return rows


def format_quantity(quantity: Decimal, commodity: str) -> str:
    text = f"{quantity:.2f}"
    if len(commodity) == 1 and not commodity.isalnum():
        return f"-{commodity}{text[1:]}" if text.startswith("-") else f"{commodity}{text}"
    return f"{text} {commodity}"


def to_journal(rows: list[ImportedRow], settings: ImportSettings) -> str:
    out = []
    for row in sorted(rows, key=lambda r: (r.date, r.line)):
        out.append(f"{row.date:%Y-%m-%d} {row.description}")
        out.append(f"    {settings.default_account}  {format_quantity(-row.amount, settings.commodity)}")
        out.append(f"    {settings.account}  {format_quantity(row.amount, settings.commodity)}")
        out.append("")
    return "\n".join(out)
