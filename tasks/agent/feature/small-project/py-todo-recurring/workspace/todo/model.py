"""The task record and its JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date


@dataclass
class Task:
    id: int
    title: str
    due: date | None = None
    done: bool = False
    tags: list[str] = field(default_factory=list)
    priority: int = 2  # 1 = high, 2 = normal, 3 = low

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "due": self.due.isoformat() if self.due else None,
            "done": self.done,
            "tags": list(self.tags),
            "priority": self.priority,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Task:
        due = data.get("due")
        return cls(
            id=int(data["id"]),
            title=str(data["title"]),
            due=date.fromisoformat(due) if due else None,
            done=bool(data.get("done", False)),
            tags=[str(t) for t in data.get("tags", [])],
            priority=int(data.get("priority", 2)),
        )

    def is_overdue(self, today: date) -> bool:
        return not self.done and self.due is not None and self.due < today
