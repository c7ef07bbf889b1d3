"""Pick non-overlapping jobs (with a machine cool-down) for maximum profit."""


def best_schedule(jobs: list[tuple[int, int, int]], cooldown: int) -> tuple[int, list[int]]:
    """Return (max total profit, indices of one optimal set of jobs sorted by start)."""
    raise NotImplementedError
