"""Counting contiguous slices whose sum lies in a closed range."""

from bisect import bisect_left, bisect_right


def count_range_sums(nums: list[int], lo: int, hi: int) -> int:
    """Number of non-empty slices nums[i:j+1] with lo <= sum <= hi.

    For every prefix sum P[j] we count the earlier prefix sums P[i] with
    P[j] - hi <= P[i] <= P[j] - lo, using a Fenwick tree over the sorted prefix values.
    """
    prefix = [0]
    for x in nums:
        prefix.append(prefix[-1] + x)
    values = sorted(set(prefix))
    size = len(values)
    tree = [0] * (size + 1)

    def add(pos: int) -> None:
        pos += 1
        while pos <= size:
            tree[pos] += 1
            pos += pos & -pos

    def count_upto(pos: int) -> int:
        total = 0
        while pos > 0:
            total += tree[pos]
            pos -= pos & -pos
        return total

    result = 0
    for p in prefix:
        left = bisect_left(values, p - hi)
        right = bisect_right(values, p - lo)
        result += count_upto(right) - count_upto(left)
        add(bisect_left(values, p))
    return result
