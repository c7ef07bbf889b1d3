"""Full-match regular expressions without backtracking blow-ups.

The pattern is compiled to a Thompson NFA; matching simulates the set of active states, so the cost is
O(len(pattern) * len(text)) whatever the pattern looks like.
"""

from __future__ import annotations

# NFA node kinds: ("char", predicate, next), ("split", next1, next2), ("match",)


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0

    def peek(self) -> str | None:
        return self.p[self.i] if self.i < len(self.p) else None

    def take(self) -> str:
        ch = self.p[self.i]
        self.i += 1
        return ch

    def parse_alt(self):
        branches = [self.parse_concat()]
        while self.peek() == "|":
            self.take()
            branches.append(self.parse_concat())
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def parse_concat(self):
        items = []
        while self.peek() is not None and self.peek() not in "|)":
            items.append(self.parse_repeat())
        return ("cat", items)

    def parse_repeat(self):
        atom = self.parse_atom()
        while self.peek() is not None and self.peek() in "*+?":
            atom = (self.take(), atom)
        return atom

    def parse_atom(self):
        ch = self.take()
        if ch == "(":
            inner = self.parse_alt()
            self.take()  # ')'
            return inner
        if ch == ".":
            return ("pred", lambda c: True)
        if ch == "[":
            return ("pred", self.parse_class())
        if ch == "\\":
            ch = self.take()
        return ("pred", lambda c, want=ch: c == want)

    def parse_class(self):
        negate = False
        if self.peek() == "^":
            self.take()
            negate = True
        singles: set[str] = set()
        ranges: list[tuple[str, str]] = []
        while self.peek() != "]":
            ch = self.take()
            if ch == "\\":
                ch = self.take()
            if self.peek() == "-" and self.i + 1 < len(self.p) and self.p[self.i + 1] != "]":
                self.take()
                end = self.take()
                if end == "\\":
                    end = self.take()
                ranges.append((ch, end))
            else:
                singles.add(ch)
        self.take()  # ']'

        def pred(c: str) -> bool:
            inside = c in singles or any(a <= c <= b for a, b in ranges)
            return inside != negate

        return pred


class _Nfa:
    def __init__(self) -> None:
        self.nodes: list[list] = []

    def new(self, *node) -> int:
        self.nodes.append(list(node))
        return len(self.nodes) - 1

    def build(self, ast, out: int) -> int:
        """Return the entry state of `ast` whose exit continues at `out`."""
        kind = ast[0]
        if kind == "pred":
            return self.new("char", ast[1], out)
        if kind == "cat":
            entry = out
            for item in reversed(ast[1]):
                entry = self.build(item, entry)
            return entry
        if kind == "alt":
            entries = [self.build(b, out) for b in ast[1]]
            entry = entries[-1]
            for e in reversed(entries[:-1]):
                entry = self.new("split", e, entry)
            return entry
        if kind == "?":
            return self.new("split", self.build(ast[1], out), out)
        if kind in "*+":
            loop = self.new("split", -1, out)
            body = self.build(ast[1], loop)
            self.nodes[loop][1] = body
            return loop if kind == "*" else body
        raise ValueError(kind)


def _closure(nfa: _Nfa, states: list[int]) -> set[int]:
    seen: set[int] = set()
    stack = list(states)
    while stack:
        s = stack.pop()
        if s in seen:
            continue
        seen.add(s)
        node = nfa.nodes[s]
        if node[0] == "split":
            stack.append(node[1])
            stack.append(node[2])
    return seen


def full_match(pattern: str, text: str) -> bool:
    """True when the whole text matches the pattern."""
    nfa = _Nfa()
    accept = nfa.new("match")
    start = nfa.build(_Parser(pattern).parse_alt(), accept)
    current = _closure(nfa, [start])
    for c in text:
        nxt = [nfa.nodes[s][2] for s in current if nfa.nodes[s][0] == "char" and nfa.nodes[s][1](c)]
        if not nxt:
            return False
        current = _closure(nfa, nxt)
    return accept in current
