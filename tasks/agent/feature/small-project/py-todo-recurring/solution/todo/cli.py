"""`python -m todo COMMAND ...`: add, list, done, remove, show.

The task file is $TODO_FILE (default ~/.todo.json). $TODO_TODAY (an ISO date) overrides today's date,
which keeps scripts and tests reproducible.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import date
from pathlib import Path

from todo.dates import DateError, parse_date
from todo.model import Task
from todo.recurrence import RuleError, next_due, parse_rule
from todo.store import Store, StoreError

PRIORITY_MARK = {1: "!", 2: "", 3: "~"}


def today() -> date:
    override = os.environ.get("TODO_TODAY")
    return date.fromisoformat(override) if override else date.today()


def task_file() -> Path:
    return Path(os.environ.get("TODO_FILE") or Path.home() / ".todo.json")


def describe(task: Task) -> str:
    """One line per task: `[id] title (due DATE) #tag ...`, with ! / ~ for high / low priority."""
    mark = PRIORITY_MARK[task.priority]
    line = f"[{task.id}]{mark} {task.title}"
    if task.due and task.every:
        line += f" (due {task.due.isoformat()}, every {task.every})"
    elif task.due:
        line += f" (due {task.due.isoformat()})"
    for tag in task.tags:
        line += f" #{tag}"
    if task.done:
        line += " ✓"
    return line


def cmd_add(args: argparse.Namespace, store: Store) -> int:
    due = parse_date(args.due, today()) if args.due else None
    every = None
    if args.every is not None:
        if due is None:
            raise RuleError("--every needs a --due date to start from")
        n, unit = parse_rule(args.every)
        every = f"{n}{unit}"
    task = store.add(Task(id=0, title=args.title, due=due, tags=args.tag or [], priority=args.priority,
                          every=every, anchor=due if every else None))
    store.save()
    print(f"added: {describe(task)}")
    return 0


def sort_key(task: Task):
    return (task.done, task.due is None, task.due or date.max, task.priority, task.id)


def cmd_list(args: argparse.Namespace, store: Store) -> int:
    now = today()
    shown = [t for t in store.tasks if args.all or not t.done]
    if args.tag:
        shown = [t for t in shown if args.tag in t.tags]
    if args.overdue:
        shown = [t for t in shown if t.is_overdue(now)]
    for task in sorted(shown, key=sort_key):
        print(describe(task) + ("  OVERDUE" if task.is_overdue(now) else ""))
    if not shown:
        print("nothing to do")
    return 0


def _find(store: Store, task_id: int) -> Task:
    task = store.get(task_id)
    if task is None:
        raise LookupError(f"no task with id {task_id}")
    return task


def cmd_done(args: argparse.Namespace, store: Store) -> int:
    task = _find(store, args.id)
    if task.done:
        print(f"already done: {describe(task)}")
        return 0
    task.done = True
    follow_up = None
    if task.every and task.due:
        anchor = task.anchor or task.due
        follow_up = store.add(Task(id=0, title=task.title, due=next_due(anchor, task.due, task.every, today()),
                                   tags=list(task.tags), priority=task.priority, every=task.every,
                                   anchor=anchor))
    store.save()
    print(f"done: {describe(task)}")
    if follow_up is not None:
        print(f"next: {describe(follow_up)}")
    return 0


def cmd_remove(args: argparse.Namespace, store: Store) -> int:
    task = _find(store, args.id)
    store.remove(task.id)
    store.save()
    print(f"removed: {describe(task)}")
    return 0


def cmd_show(args: argparse.Namespace, store: Store) -> int:
    task = _find(store, args.id)
    print(describe(task))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="todo", description="A tiny todo list.")
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="add a task")
    add.add_argument("title")
    add.add_argument("--due", help="2024-05-01, today, tomorrow, +3d, +2w, or a weekday")
    add.add_argument("--tag", action="append", help="a tag (repeatable)")
    add.add_argument("--priority", type=int, choices=(1, 2, 3), default=2)
    add.add_argument("--every", help="repeat: <n>d, <n>w, <n>m or <n>y (needs --due)")
    add.set_defaults(func=cmd_add)
    ls = sub.add_parser("list", help="list open tasks")
    ls.add_argument("--all", action="store_true", help="include finished tasks")
    ls.add_argument("--tag")
    ls.add_argument("--overdue", action="store_true")
    ls.set_defaults(func=cmd_list)
    for name, func, text in (("done", cmd_done, "mark a task as done"), ("remove", cmd_remove, "delete a task"),
                             ("show", cmd_show, "show one task")):
        p = sub.add_parser(name, help=text)
        p.add_argument("id", type=int)
        p.set_defaults(func=func)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        store = Store.open(task_file())
        return args.func(args, store)
    except (DateError, RuleError, LookupError, StoreError) as exc:
        print(f"todo: error: {exc}", file=sys.stderr)
        return 2
