import unittest
from decimal import Decimal

from ledgerly.csvrules import parse_rules, tag_comment
from ledgerly.errors import LedgerError


class CsvRules(unittest.TestCase):
    def test_first_matching_rule_wins(self):
        rules = parse_rules("match /amazon/\n  if amount < 0\n  account expenses:shopping\n"
                            "match /amazon/\n  account income:refunds\n  payee Refund\n")
        self.assertEqual(rules.classify("AMAZON EU", Decimal("-3")).account, "expenses:shopping")
        found = rules.classify("Amazon", Decimal("3"))
        self.assertEqual((found.account, found.payee), ("income:refunds", "Refund"))

    def test_errors_name_the_line(self):
        with self.assertRaisesRegex(LedgerError, "r:2:"):
            parse_rules("match /x/\nnope\n", "r")

    def test_tag_comment(self):
        self.assertEqual(tag_comment([("a", ""), ("k", "v"), ("b", "")]), ":a:b: k: v")
