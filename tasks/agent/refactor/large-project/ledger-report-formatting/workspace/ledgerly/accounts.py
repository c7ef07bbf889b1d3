"""Account names (`assets:bank:checking`) and the account tree with rolled-up balances."""

from __future__ import annotations

from dataclasses import dataclass

from ledgerly.amount import Balance

SEP = ":"


def parent(name: str) -> str | None:
    return name.rsplit(SEP, 1)[0] if SEP in name else None


def ancestors(name: str) -> list[str]:
    """`a:b:c` -> [`a`, `a:b`] (outermost first)."""
    parts = name.split(SEP)
    return [SEP.join(parts[:i]) for i in range(1, len(parts))]


def depth(name: str) -> int:
    return name.count(SEP) + 1


def truncate(name: str, max_depth: int | None) -> str:
    if max_depth is None:
        return name
    return SEP.join(name.split(SEP)[:max_depth])


def leaf(name: str) -> str:
    return name.rsplit(SEP, 1)[-1]


@dataclass
class Node:
    name: str
    own: Balance  # postings made directly to this account
    total: Balance  # own plus every descendant


class AccountTree:
    """Balances per account, rolled up to every ancestor."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}

    def _node(self, name: str) -> Node:
        if name not in self.nodes:
            self.nodes[name] = Node(name, Balance(), Balance())
        return self.nodes[name]

    def add(self, account: str, balance: Balance) -> None:
        self._node(account).own.add_balance(balance)
        for name in ancestors(account) + [account]:
            self._node(name).total.add_balance(balance)

    def names(self) -> list[str]:
        return sorted(self.nodes)

    def children(self, name: str | None) -> list[str]:
        return sorted(n for n in self.nodes if parent(n) == name)

    def roots(self) -> list[str]:
        return self.children(None)

    def walk(self, max_depth: int | None = None):
        """Depth-first (name, node, depth) in sorted order, stopping below max_depth."""
        def visit(name: str):
            node = self.nodes[name]
            yield name, node, depth(name)
            if max_depth is None or depth(name) < max_depth:
                for child in self.children(name):
                    yield from visit(child)
        for root in self.roots():
            yield from visit(root)
