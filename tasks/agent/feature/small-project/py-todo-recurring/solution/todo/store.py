"""Loading and saving the task list (one JSON file, written atomically)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from todo.model import Task

FORMAT_VERSION = 1


class StoreError(Exception):
    """The task file exists but cannot be read."""


class Store:
    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.tasks: list[Task] = []
        self.next_id = 1

    @classmethod
    def open(cls, path: str | os.PathLike) -> Store:
        store = cls(path)
        if store.path.exists():
            try:
                data = json.loads(store.path.read_text(encoding="utf-8"))
                store.tasks = [Task.from_dict(t) for t in data.get("tasks", [])]
                store.next_id = int(data.get("next_id", 1))
            except (ValueError, KeyError, TypeError) as exc:
                raise StoreError(f"{store.path}: not a valid task file ({exc})") from None
        store.next_id = max([store.next_id] + [t.id + 1 for t in store.tasks])
        return store

    def save(self) -> None:
        data = {"version": FORMAT_VERSION, "next_id": self.next_id, "tasks": [t.to_dict() for t in self.tasks]}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".todo-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
        os.replace(tmp, self.path)

    def add(self, task: Task) -> Task:
        task.id = self.next_id
        self.next_id += 1
        self.tasks.append(task)
        return task

    def get(self, task_id: int) -> Task | None:
        return next((t for t in self.tasks if t.id == task_id), None)

    def remove(self, task_id: int) -> Task | None:
        task = self.get(task_id)
        if task is not None:
            self.tasks.remove(task)
        return task
