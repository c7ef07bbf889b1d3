"""Distinct palindromic subsequences of a word."""

MOD = 1_000_000_007


def count_palindromes(s: str) -> int:
    """Number of distinct non-empty palindromic subsequences of s, modulo 1e9+7.

    dp[i][j] counts them inside s[i..j]. When the ends match, the inner palindromes are counted twice
    (with and without the wrapping pair) and the duplicates that the same letter inside produces are
    removed using the next/previous occurrence of that letter.
    """
    n = len(s)
    if n == 0:
        return 0
    nxt = [0] * n
    prv = [0] * n
    last: dict[str, int] = {}
    for i, c in enumerate(s):
        prv[i] = last.get(c, -1)
        last[c] = i
    last = {}
    for i in range(n - 1, -1, -1):
        nxt[i] = last.get(s[i], n)
        last[s[i]] = i
    dp = [[0] * n for _ in range(n)]
    for i in range(n - 1, -1, -1):
        row = dp[i]
        below = dp[i + 1] if i + 1 < n else None
        row[i] = 1
        ci = s[i]
        for j in range(i + 1, n):
            if s[j] != ci:
                inner = below[j - 1] if i + 1 <= j - 1 else 0
                row[j] = (below[j] + row[j - 1] - inner) % MOD
                continue
            inner = below[j - 1] if i + 1 <= j - 1 else 0
            lo, hi = nxt[i], prv[j]
            if lo > hi:
                row[j] = (2 * inner + 2) % MOD
            elif lo == hi:
                row[j] = (2 * inner + 1) % MOD
            else:
                row[j] = (2 * inner - dp[lo + 1][hi - 1]) % MOD if lo + 1 <= hi - 1 else (2 * inner) % MOD
    return dp[0][n - 1] % MOD
