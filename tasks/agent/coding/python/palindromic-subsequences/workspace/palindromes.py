"""Distinct palindromic subsequences of a word."""

MOD = 1_000_000_007


def count_palindromes(s: str) -> int:
    """Number of distinct non-empty palindromic subsequences of s, modulo 1e9+7."""
    raise NotImplementedError
