"""Building and printing the summary."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from logstat.filters import status_class


@dataclass
class Summary:
    requests: int = 0
    bytes: int = 0
    by_status: Counter = field(default_factory=Counter)
    by_path: Counter = field(default_factory=Counter)
    ips: set = field(default_factory=set)

    def add(self, record) -> None:
        self.requests += 1
        self.bytes += record.bytes
        self.by_status[status_class(record.status)] += 1
        self.by_path[record.path] += 1
        self.ips.add(record.ip)

    def top_paths(self, n: int) -> list[tuple[str, int]]:
        return sorted(self.by_path.items(), key=lambda kv: (-kv[1], kv[0]))[:n]

    def to_dict(self, top: int) -> dict:
        return {
            "requests": self.requests,
            "bytes": self.bytes,
            "unique_ips": len(self.ips),
            "status": dict(sorted(self.by_status.items())),
            "top_paths": [{"path": p, "requests": c} for p, c in self.top_paths(top)],
        }


def summarize(records) -> Summary:
    summary = Summary()
    for r in records:
        summary.add(r)
    return summary


def human_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError


def render_text(summary: Summary, top: int) -> str:
    lines = [
        f"requests: {summary.requests}",
        f"bytes: {human_bytes(summary.bytes)}",
        f"unique IPs: {len(summary.ips)}",
        "status: " + ", ".join(f"{k}={v}" for k, v in sorted(summary.by_status.items())),
        f"top {top} paths:",
    ]
    width = max((len(p) for p, _ in summary.top_paths(top)), default=0)
    for path, count in summary.top_paths(top):
        lines.append(f"  {path.ljust(width)}  {count}")
    return "\n".join(lines) + "\n"
