"""Full-match regular expressions without backtracking blow-ups."""


def full_match(pattern: str, text: str) -> bool:
    """True when the whole text matches the pattern."""
    raise NotImplementedError
