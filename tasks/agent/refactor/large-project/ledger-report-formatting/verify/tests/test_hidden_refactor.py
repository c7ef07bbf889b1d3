"""Hidden checks for the report-formatting refactor.

Golden test: thousands of random journals rendered by every report (with many option combinations) must
give byte-identical output to the frozen pre-refactor copy in `ledgerly_golden/`.
Structural test: one shared formatting module, no formatting copies left in the reports, short functions.
"""

import ast
import random
import unittest
from datetime import date, timedelta
from pathlib import Path

import ledgerly_golden.parser as g_parser
import ledgerly_golden.query as g_query
import ledgerly_golden.reports.activity as g_activity
import ledgerly_golden.reports.balance as g_balance
import ledgerly_golden.reports.register as g_register
from ledgerly import parser, query
from ledgerly.reports import activity, balance, register

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "ledgerly" / "reports"
MAX_FUNCTION_LINES = 20

ACCOUNTS = ["assets:bank:checking", "assets:bank:savings", "assets:cash", "assets:broker", "expenses:food",
            "expenses:food:restaurant", "expenses:rent", "expenses:travel:hotel", "expenses:travel:train",
            "income:salary", "income:gifts", "liabilities:card", "equity:opening", "a", "a:b:c:d"]


STYLES = [  # symbol, prefix, space, grouping
    ("$", True, False, True), ("$", True, False, False), ("EUR", False, True, False), ("EUR", False, True, True),
    ("AAPL", False, True, False), ("", False, False, False), ("kg", False, False, False), ("£", True, True, True),
]


def write_amount(rng, style, magnitude=None):
    symbol, prefix, space, grouping = style
    decimals = rng.choice([0, 1, 2, 2, 2, 3, 4])
    magnitude = magnitude or rng.choice([1, 10, 1000, 100000, 10000000])
    value = round(rng.uniform(-magnitude, magnitude), decimals)
    number = f"{abs(value):,.{decimals}f}" if grouping else f"{abs(value):.{decimals}f}"
    sign = "-" if value < 0 else ""
    gap = " " if space else ""
    if not symbol:
        return sign + number
    return sign + symbol + gap + number if prefix else sign + number + gap + symbol


def random_journal(rng):
    styles = rng.sample(STYLES, rng.randint(1, 4))
    lines = []
    for style in styles:
        if style[0] not in ("$", "") and rng.random() < 0.85:
            lines.append(f"P 2023-01-01 {style[0]} ${rng.uniform(0.1, 200):.{rng.randint(2, 5)}f}")
    start = date(2023, 1, 1) + timedelta(days=rng.randint(0, 300))
    for _ in range(rng.randint(0, 25)):
        day = start + timedelta(days=rng.randint(0, 500))
        lines.append("")
        lines.append(f"{day.isoformat()} {rng.choice(['* ', '! ', ''])}Payee {rng.randint(1, 50)}")
        style = rng.choice(styles)
        for _ in range(rng.randint(1, 3)):
            lines.append(f"    {rng.choice(ACCOUNTS)}  {write_amount(rng, style)}")
        if len(styles) > 1 and rng.random() < 0.2:
            other = rng.choice([s for s in styles if s[0] != style[0]] or [style])
            if other[0] != style[0]:
                lines.append(f"    {rng.choice(ACCOUNTS)}  {write_amount(rng, other, 100).lstrip('-')} @@ "
                             f"{write_amount(rng, style, 1000).lstrip('-')}")
        lines.append(f"    {rng.choice(ACCOUNTS)}")
    return "\n".join(lines) + "\n"


def render_all(mod, text, rng_state):
    """Every report over one journal, as (label, output or error) pairs."""
    p, q, a, b, r = mod
    rng = random.Random(rng_state)
    out = []
    try:
        journal = p.parse_text(text, "random.journal")
    except Exception as exc:  # both versions must fail the same way
        return [("parse", f"{type(exc).__name__}: {exc}")]
    terms_pool = [[], ["expenses"], ["assets", "income"], ["not:food"], ["^a$"], ["payee:Payee 1"]]
    for _ in range(6):
        terms = rng.choice(terms_pool)
        convert = rng.choice([None, None, "$"])
        depth = rng.choice([None, None, 1, 2, 3])
        flat, empty = rng.random() < 0.5, rng.random() < 0.3
        begin = rng.choice([None, date(2023, 6, 1)])

        def run(label, fn):
            try:
                out.append((label, fn()))
            except Exception as exc:
                out.append((label, f"{type(exc).__name__}: {exc}"))

        query_obj = q.parse_terms(terms)
        query_obj.begin = begin
        run(f"balance {terms} {convert} {depth} {flat} {empty}", lambda: b.render_balance(
            *b.balance_report(journal, query_obj, depth=depth, flat=flat, convert_to=convert, empty=empty),
            journal.commodities, show_total=rng.random() < 0.8))
        run(f"register {terms} {convert}", lambda: r.render_register(
            r.register_report(journal, query_obj, convert_to=convert), journal.commodities))
        interval = rng.choice(["monthly", "quarterly", "weekly", "yearly"])
        run(f"activity {terms} {interval} {depth} {convert}", lambda: a.render_activity(
            a.activity_report(journal, query_obj, interval, depth=depth, convert_to=convert, begin=begin),
            journal.commodities))
    return out


NEW = (parser, query, activity, balance, register)
OLD = (g_parser, g_query, g_activity, g_balance, g_register)


class GoldenOutput(unittest.TestCase):
    def test_random_journals_render_identically(self):
        rng = random.Random(7)
        compared = 0
        for i in range(650):
            text = random_journal(rng)
            seed = rng.random()
            new, old = render_all(NEW, text, seed), render_all(OLD, text, seed)
            for (label, got), (_, want) in zip(new, old):
                self.assertEqual(got, want, f"journal #{i}, {label}\n--- journal ---\n{text}")
                compared += 1
            self.assertEqual(len(new), len(old))
        self.assertGreater(compared, 10000)

    def test_known_sample(self):
        text = (ROOT / "tests" / "sample.journal").read_text()
        self.assertEqual(render_all(NEW, text, 1), render_all(OLD, text, 1))


def functions(path):
    tree = ast.parse(path.read_text())
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


class Structure(unittest.TestCase):
    def test_shared_formatting_module(self):
        fmt = REPORTS / "fmt.py"
        self.assertTrue(fmt.is_file(), "ledgerly/reports/fmt.py should hold the shared formatting")
        self.assertIn("format_amount", {f.name for f in functions(fmt)})

    def test_reports_use_it_and_keep_no_copies(self):
        for name in ("balance.py", "register.py", "activity.py"):
            path = REPORTS / name
            source = path.read_text()
            for marker in ("quantize", "scaleb", "ROUND_HALF", ".partition(\".\")", "insert(0"):
                self.assertNotIn(marker, source, f"{name} still formats amounts itself ({marker})")
            imports = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ImportFrom)]
            self.assertTrue(any((n.module or "").endswith("fmt") for n in imports), f"{name} does not use reports.fmt")

    def test_one_place_for_the_rounding(self):
        hits = [p.name for p in (ROOT / "ledgerly").rglob("*.py") if "ROUND_HALF_UP" in p.read_text()]
        self.assertEqual(hits, ["fmt.py"])

    def test_functions_are_short(self):
        for path in sorted(REPORTS.glob("*.py")):
            for fn in functions(path):
                length = fn.end_lineno - fn.lineno + 1
                self.assertLessEqual(length, MAX_FUNCTION_LINES, f"{path.name}:{fn.lineno} {fn.name} has {length} lines")


if __name__ == "__main__":
    unittest.main()
