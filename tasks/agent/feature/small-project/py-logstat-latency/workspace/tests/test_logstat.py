import json
import os
import subprocess
import sys
import tempfile
import unittest
from datetime import timezone

from logstat.parser import ParseError, parse_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = """\
10.0.0.1 - - [10/Oct/2024:13:55:36 +0000] "GET /api/items?id=3 HTTP/1.1" 200 2326 "-" "curl/8.0" 12.5
10.0.0.2 - - [10/Oct/2024:13:56:00 +0000] "POST /api/items HTTP/1.1" 201 15 "-" "curl/8.0"
10.0.0.1 - - [10/Oct/2024:14:00:00 +0000] "GET /index.html HTTP/1.1" 404 0 "-" "Mozilla/5.0" 3
garbage line
"""


def run(*args, text=SAMPLE):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as fh:
        fh.write(text)
    try:
        return subprocess.run([sys.executable, "-m", "logstat", fh.name, *args], capture_output=True, text=True,
                              cwd=ROOT, timeout=30)
    finally:
        os.unlink(fh.name)


class Parser(unittest.TestCase):
    def test_fields(self):
        r = parse_line(SAMPLE.splitlines()[0])
        self.assertEqual((r.ip, r.method, r.path, r.status, r.bytes, r.duration_ms), ("10.0.0.1", "GET", "/api/items", 200, 2326, 12.5))
        self.assertEqual(r.time.tzinfo, timezone.utc)
        self.assertIsNone(parse_line(SAMPLE.splitlines()[1]).duration_ms)
        with self.assertRaises(ParseError):
            parse_line("garbage line")


class Cli(unittest.TestCase):
    def test_text(self):
        out = run("--top", "2")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("requests: 3\n", out.stdout)
        self.assertIn("status: 2xx=2, 4xx=1\n", out.stdout)
        self.assertIn("(1 unparsable line(s) skipped)", out.stdout)

    def test_json_and_filters(self):
        data = json.loads(run("--json", "--status", "2xx", "--since", "2024-10-10T13:56:00").stdout)
        self.assertEqual(data["requests"], 1)
        self.assertEqual(data["top_paths"], [{"path": "/api/items", "requests": 1}])
        self.assertEqual(run("--strict").returncode, 1)
