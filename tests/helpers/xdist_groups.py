"""`xdist_group` marks that work again under pytest 9.2.

`--dist loadgroup` sends the tests of one `xdist_group` to one worker: each worker appends "@group" to those
tests' node ids and the scheduler groups by that suffix. pytest 9.2 keeps a node id in a structured field that
xdist 3.8's rewrite (of the old `_nodeid`) no longer reaches (pytest-dev/pytest-xdist#1386), so every group was
silently ignored: tests sharing a module-scoped model or a `built_once` build ran on both workers, building it
twice or waiting for it. This appends the suffix where pytest 9.2 reads it; it does nothing where xdist's own
rewrite took effect.
"""

from __future__ import annotations

import pytest


def _group(item: pytest.Item) -> str | None:
    names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                    for m in item.iter_markers("xdist_group")})
    return "_".join(names) or None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not getattr(config.option, "loadgroup", False):        # set on the workers of a --dist loadgroup run
        return
    for item in items:
        group = _group(item)
        node_id = getattr(item, "_id", None)
        if group and node_id is not None and not item.nodeid.endswith(f"@{group}"):
            item._id = type(node_id).parse(f"{item.nodeid}@{group}")
