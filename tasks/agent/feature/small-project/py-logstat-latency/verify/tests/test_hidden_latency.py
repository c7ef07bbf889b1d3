"""Hidden acceptance tests for --latency: exact text and JSON against an independent reference over
randomly generated logs, plus the documented edge cases."""

import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import unittest
from datetime import datetime, timedelta, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UUIDS = ["9f1c2d3e-aaaa-bbbb-cccc-0123456789ab", "9F1C2D3E-AAAA-BBBB-CCCC-0123456789AB",
         "12345678-1234-1234-1234-123456789012"]
NOT_UUIDS = ["9f1c2d3e-aaaa-bbbb-cccc-0123456789a", "abc", "v2", "12a", "0x10", "g2345678-1234-1234-1234-123456789012"]


def logline(ip, when, method, target, status, size, duration):
    stamp = when.strftime("%d/%b/%Y:%H:%M:%S %z")
    tail = f" {duration}" if duration is not None else ""
    return f'{ip} - - [{stamp}] "{method} {target} HTTP/1.1" {status} {size} "-" "bench/1.0"{tail}\n'


def run(text, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as fh:
        fh.write(text)
    try:
        p = subprocess.run([sys.executable, "-m", "logstat", fh.name, *args], capture_output=True, text=True,
                           cwd=ROOT, timeout=60)
    finally:
        os.unlink(fh.name)
    return p


def norm(method, target):
    path = target.split("?", 1)[0]
    segs = []
    for s in path.split("/"):
        if re.fullmatch(r"[0-9]+", s):
            s = ":id"
        elif re.fullmatch(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", s):
            s = ":uuid"
        segs.append(s)
    return method + " " + "/".join(segs)


def reference(samples, min_count):
    rows = []
    for ep, vals in samples.items():
        if len(vals) < min_count:
            continue
        v = sorted(vals)
        n = len(v)
        pick = [v[(p * n + 99) // 100 - 1] for p in (50, 90, 99)]
        rows.append({"endpoint": ep, "count": n, "p50": pick[0], "p90": pick[1], "p99": pick[2], "max": v[-1]})
    rows.sort(key=lambda r: (-r["p99"], r["endpoint"]))
    return rows


def fmt(x):
    t = f"{x:.3f}".rstrip("0").rstrip(".")
    return "0" if t in ("", "-0") else t


def reference_text(rows):
    if not rows:
        return "latency (ms): no data\n"
    w = max(len(r["endpoint"]) for r in rows)
    return "latency (ms):\n" + "".join(
        f"  {r['endpoint'].ljust(w)}  n={r['count']}  p50={fmt(r['p50'])}  p90={fmt(r['p90'])}  "
        f"p99={fmt(r['p99'])}  max={fmt(r['max'])}\n" for r in rows)


def random_log(rng, n):
    start = datetime(2024, 10, 10, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    lines, samples = [], {}
    templates = [("GET", "/api/users/{id}"), ("GET", "/api/users/{id}/orders/{uuid}"), ("POST", "/api/users"),
                 ("GET", "/static/app.js"), ("DELETE", "/api/items/{id}"), ("GET", "/api/v2/{word}"),
                 ("GET", "/")]
    for i in range(n):
        method, tpl = rng.choice(templates)
        target = tpl.replace("{id}", str(rng.randint(0, 99999))).replace("{uuid}", rng.choice(UUIDS)) \
                    .replace("{word}", rng.choice(NOT_UUIDS))
        if rng.random() < 0.3:
            target += "?page=" + str(rng.randint(1, 9))
        duration = rng.choice([None, rng.randint(0, 3000), round(rng.uniform(0, 500), rng.randint(1, 4)),
                               round(rng.expovariate(1 / 40), 3)])
        when = start + timedelta(seconds=i * 7)
        status = rng.choice([200, 200, 201, 304, 404, 500])
        lines.append(logline(f"10.0.{rng.randint(0, 3)}.{rng.randint(1, 9)}", when, method, target, status,
                             rng.randint(0, 5000), duration))
        if duration is not None:
            samples.setdefault(norm(method, target), []).append(float(duration))
    return "".join(lines), samples


class HiddenLatency(unittest.TestCase):
    def test_random_logs_text_and_json(self):
        rng = random.Random(99)
        for round_ in range(12):
            text, samples = random_log(rng, rng.choice([1, 5, 70, 140, 700]))
            min_count = rng.choice([1, 1, 3, 20])
            rows = reference(samples, min_count)
            out = run(text, "--latency", "--min-count", str(min_count))
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertTrue(out.stdout.endswith(reference_text(rows)),
                            f"round {round_}:\n{out.stdout[-1500:]}\n--- want ---\n{reference_text(rows)}")
            data = json.loads(run(text, "--latency", "--json", "--min-count", str(min_count)).stdout)
            self.assertEqual(data["latency"], rows, f"round {round_}")

    def test_exact_ranks(self):
        # n = 70: ranks 35, 63 and 70 (not interpolated, not 0-based)
        text = "".join(logline("10.0.0.1", datetime(2024, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=i),
                               "GET", "/r", 200, 1, i + 1) for i in range(70))
        data = json.loads(run(text, "--json", "--latency").stdout)
        self.assertEqual(data["latency"], [{"endpoint": "GET /r", "count": 70, "p50": 35.0, "p90": 63.0,
                                            "p99": 70.0, "max": 70.0}])

    def test_filters_apply_and_untimed_lines_are_ignored(self):
        t0 = datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc)
        text = (logline("1.1.1.1", t0, "GET", "/a/1", 200, 10, 5) +
                logline("1.1.1.1", t0 + timedelta(minutes=1), "GET", "/a/2?x=1", 500, 10, 50) +
                logline("1.1.1.1", t0 + timedelta(minutes=2), "GET", "/a/3", 200, 10, None) +
                logline("1.1.1.1", t0 + timedelta(minutes=3), "GET", "/b", 200, 10, 7.25) +
                "not a log line\n")
        out = run(text, "--latency", "--status", "2xx").stdout
        self.assertTrue(out.endswith("latency (ms):\n  GET /b      n=1  p50=7.25  p90=7.25  p99=7.25  max=7.25\n"
                                     "  GET /a/:id  n=1  p50=5  p90=5  p99=5  max=5\n"), out)
        out = run(text, "--latency", "--since", "2024-05-01T10:02:00", "--prefix", "/a").stdout
        self.assertTrue(out.endswith("latency (ms): no data\n"), out)
        data = json.loads(run(text, "--json", "--latency", "--prefix", "/zzz").stdout)
        self.assertEqual(data["latency"], [])
        self.assertEqual(data["requests"], 0)

    def test_without_flag_output_is_unchanged(self):
        rng = random.Random(5)
        text, _ = random_log(rng, 50)
        plain = run(text).stdout
        self.assertNotIn("latency", plain)
        self.assertTrue(plain.startswith("requests: 50\n"))
        self.assertNotIn("latency", json.loads(run(text, "--json").stdout))


if __name__ == "__main__":
    unittest.main()
