import unittest

from logstat.latency import nearest_rank
from tests.test_logstat import run


class Latency(unittest.TestCase):
    def test_nearest_rank(self):
        values = list(range(1, 71))
        self.assertEqual(nearest_rank(values, 90), 63)
        self.assertEqual(nearest_rank([5.0], 99), 5.0)

    def test_text(self):
        out = run("--latency").stdout
        self.assertTrue(out.endswith("latency (ms):\n  GET /api/items   n=1  p50=12.5  p90=12.5  p99=12.5  max=12.5\n"
                                     "  GET /index.html  n=1  p50=3  p90=3  p99=3  max=3\n"), out)
