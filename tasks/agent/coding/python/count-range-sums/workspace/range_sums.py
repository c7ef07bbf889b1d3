"""Counting contiguous slices whose sum lies in a closed range."""


def count_range_sums(nums: list[int], lo: int, hi: int) -> int:
    """Number of non-empty slices nums[i:j+1] with lo <= sum <= hi."""
    raise NotImplementedError
