"""Latency percentiles per endpoint (method + normalized path)."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
PERCENTILES = (50, 90, 99)


def endpoint(record) -> str:
    """`GET /api/users/:id/orders/:uuid`: numeric and UUID path segments collapsed."""
    segments = []
    for seg in record.path.split("/"):
        if seg.isascii() and seg.isdigit():
            seg = ":id"
        elif _UUID.match(seg):
            seg = ":uuid"
        segments.append(seg)
    return f"{record.method} {'/'.join(segments)}"


def nearest_rank(sorted_values: list[float], p: int) -> float:
    """Nearest-rank percentile: the value at 1-based rank ceil(p * n / 100), in exact integer arithmetic."""
    n = len(sorted_values)
    rank = max(1, -(-p * n // 100))
    return sorted_values[rank - 1]


@dataclass
class EndpointLatency:
    endpoint: str
    count: int
    p50: float
    p90: float
    p99: float
    max: float

    def to_dict(self) -> dict:
        return {"endpoint": self.endpoint, "count": self.count, "p50": self.p50, "p90": self.p90,
                "p99": self.p99, "max": self.max}


def latency_table(records, min_count: int = 1) -> list[EndpointLatency]:
    samples: dict[str, list[float]] = defaultdict(list)
    for r in records:
        if r.duration_ms is not None:
            samples[endpoint(r)].append(r.duration_ms)
    rows = []
    for name, values in samples.items():
        if len(values) < min_count:
            continue
        values.sort()
        p50, p90, p99 = (nearest_rank(values, p) for p in PERCENTILES)
        rows.append(EndpointLatency(name, len(values), p50, p90, p99, values[-1]))
    rows.sort(key=lambda e: (-e.p99, e.endpoint))
    return rows


def ms(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def render_latency(rows: list[EndpointLatency]) -> str:
    if not rows:
        return "latency (ms): no data\n"
    width = max(len(r.endpoint) for r in rows)
    lines = ["latency (ms):"]
    for r in rows:
        lines.append(f"  {r.endpoint.ljust(width)}  n={r.count}  p50={ms(r.p50)}  p90={ms(r.p90)}  "
                     f"p99={ms(r.p99)}  max={ms(r.max)}")
    return "\n".join(lines) + "\n"
