//! Rota planning.

/// Minimum total cost of giving every row (nurse) its own column (shift), and the column of each row.
///
/// Hungarian method with potentials (shortest augmenting paths), O(n^2 m): each row is added in turn and
/// an alternating path to a free column is found with a Dijkstra-like scan on reduced costs.
pub fn assign(cost: &[Vec<i64>]) -> (i64, Vec<usize>) {
    let n = cost.len();
    if n == 0 {
        return (0, Vec::new());
    }
    let m = cost[0].len();
    const INF: i64 = i64::MAX / 4;
    // 1-based arrays; column 0 is a virtual column holding the row being inserted.
    let mut u = vec![0i64; n + 1];
    let mut v = vec![0i64; m + 1];
    let mut row_of = vec![0usize; m + 1];
    let mut way = vec![0usize; m + 1];
    for i in 1..=n {
        row_of[0] = i;
        let mut j0 = 0;
        let mut minv = vec![INF; m + 1];
        let mut used = vec![false; m + 1];
        loop {
            used[j0] = true;
            let i0 = row_of[j0];
            let mut delta = INF;
            let mut j1 = 0;
            for j in 1..=m {
                if !used[j] {
                    let cur = cost[i0 - 1][j - 1] - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=m {
                if used[j] {
                    u[row_of[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if row_of[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            row_of[j0] = row_of[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    let mut col_of = vec![0usize; n];
    for j in 1..=m {
        if row_of[j] != 0 {
            col_of[row_of[j] - 1] = j - 1;
        }
    }
    let total = (0..n).map(|i| cost[i][col_of[i]]).sum();
    (total, col_of)
}
