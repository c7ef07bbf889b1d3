"""Pick non-overlapping jobs (with a machine cool-down) for maximum profit."""

from bisect import bisect_right


def best_schedule(jobs: list[tuple[int, int, int]], cooldown: int) -> tuple[int, list[int]]:
    """Return (max total profit, indices of one optimal set of jobs sorted by start).

    Classic weighted interval scheduling: sort by the time the machine is free again
    (end + cooldown), best[k] is the optimum over the first k jobs in that order.
    """
    order = sorted(range(len(jobs)), key=lambda i: jobs[i][1] + cooldown)
    free_at = [jobs[i][1] + cooldown for i in order]
    best = [0] * (len(order) + 1)
    take = [False] * len(order)
    prev = [0] * len(order)
    for k, i in enumerate(order):
        start, _end, profit = jobs[i]
        p = bisect_right(free_at, start, 0, k)
        prev[k] = p
        with_job = best[p] + profit
        if profit > 0 and with_job > best[k]:
            best[k + 1] = with_job
            take[k] = True
        else:
            best[k + 1] = best[k]
    chosen = []
    k = len(order)
    while k > 0:
        if take[k - 1]:
            chosen.append(order[k - 1])
            k = prev[k - 1]
        else:
            k -= 1
    chosen.sort(key=lambda i: jobs[i][0])
    return best[-1], chosen
