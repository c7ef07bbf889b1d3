use rota::assign;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

/// Exhaustive search over injective row -> column maps.
fn brute(cost: &[Vec<i64>]) -> i64 {
    fn go(cost: &[Vec<i64>], row: usize, used: &mut Vec<bool>) -> i64 {
        if row == cost.len() {
            return 0;
        }
        let mut best = i64::MAX;
        for j in 0..cost[0].len() {
            if !used[j] {
                used[j] = true;
                let rest = go(cost, row + 1, used);
                used[j] = false;
                best = best.min(cost[row][j] + rest);
            }
        }
        best
    }
    if cost.is_empty() {
        return 0;
    }
    go(cost, 0, &mut vec![false; cost[0].len()])
}

/// Reference optimum: min-cost flow by successive shortest paths (Bellman-Ford on the residual graph),
/// independent of the Hungarian formulation; fine for the sizes used here.
fn min_cost_flow(cost: &[Vec<i64>]) -> i64 {
    let n = cost.len();
    if n == 0 {
        return 0;
    }
    let m = cost[0].len();
    // nodes: source 0, rows 1..=n, columns n+1..=n+m, sink n+m+1
    let nodes = n + m + 2;
    let (s, t) = (0, n + m + 1);
    let mut to = Vec::new();
    let mut cap = Vec::new();
    let mut w = Vec::new();
    let mut adj = vec![Vec::new(); nodes];
    let mut edge = |a: usize, b: usize, c: i64, to: &mut Vec<usize>, cap: &mut Vec<i64>, w: &mut Vec<i64>, adj: &mut Vec<Vec<usize>>| {
        adj[a].push(to.len());
        to.push(b);
        cap.push(1);
        w.push(c);
        adj[b].push(to.len());
        to.push(a);
        cap.push(0);
        w.push(-c);
    };
    for i in 0..n {
        edge(s, 1 + i, 0, &mut to, &mut cap, &mut w, &mut adj);
        for j in 0..m {
            edge(1 + i, 1 + n + j, cost[i][j], &mut to, &mut cap, &mut w, &mut adj);
        }
    }
    for j in 0..m {
        edge(1 + n + j, t, 0, &mut to, &mut cap, &mut w, &mut adj);
    }
    let mut total = 0;
    for _ in 0..n {
        let mut dist = vec![i64::MAX; nodes];
        let mut prev = vec![usize::MAX; nodes];
        let mut inq = vec![false; nodes];
        let mut queue = std::collections::VecDeque::new();
        dist[s] = 0;
        queue.push_back(s);
        while let Some(a) = queue.pop_front() {
            inq[a] = false;
            for &e in &adj[a] {
                if cap[e] > 0 && dist[a] + w[e] < dist[to[e]] {
                    dist[to[e]] = dist[a] + w[e];
                    prev[to[e]] = e;
                    if !inq[to[e]] {
                        inq[to[e]] = true;
                        queue.push_back(to[e]);
                    }
                }
            }
        }
        let mut v = t;
        while v != s {
            let e = prev[v];
            cap[e] -= 1;
            cap[e ^ 1] += 1;
            v = to[e ^ 1];
        }
        total += dist[t];
    }
    total
}

fn matrix(rng: &mut Lcg, n: usize, m: usize, lo: i64, hi: i64) -> Vec<Vec<i64>> {
    (0..n).map(|_| (0..m).map(|_| rng.range(lo, hi)).collect()).collect()
}

/// The solution's answer for a small matrix, under the hang guard only.
fn answer(cost: &[Vec<i64>]) -> (i64, Vec<usize>) {
    let owned = cost.to_vec();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(assign(&owned));
    });
    rx.recv_timeout(HANG_GUARD).expect("no answer in time")
}

fn check(cost: Vec<Vec<i64>>, want: i64) {
    let (total, cols) = answer(&cost);
    check_answer(&cost, total, cols, want);
}

fn check_answer(cost: &[Vec<i64>], total: i64, cols: Vec<usize>, want: i64) {
    assert_eq!(cols.len(), cost.len(), "one column per row");
    let mut seen = vec![false; cost.get(0).map(|r| r.len()).unwrap_or(0)];
    for &c in &cols {
        assert!(c < seen.len() && !seen[c], "column {} out of range or used twice", c);
        seen[c] = true;
    }
    let sum: i64 = cols.iter().enumerate().map(|(i, &c)| cost[i][c]).sum();
    assert_eq!(sum, total, "reported total does not match the assignment");
    assert_eq!(total, want, "not optimal");
}

/// A large matrix: the solution timed against the min-cost-flow reference on it.
fn check_large(what: &str, cost: Vec<Vec<i64>>) {
    let cost = Arc::new(cost);
    let shared = Arc::clone(&cost);
    let ((total, cols), want) = within_k_of_baseline(what, K, || min_cost_flow(&cost), move || assign(&shared));
    check_answer(&cost, total, cols, want);
}

#[test]
fn examples() {
    check(vec![], 0);
    check(vec![vec![4, 1, 3], vec![2, 0, 5], vec![3, 2, 2]], 5);
    check(vec![vec![7, 3]], 3);
    check(vec![vec![1, 2, 3, 4], vec![2, 4, 6, 8]], 4);
    check(vec![vec![-5, 0], vec![-5, -1]], -6);
    check(vec![vec![1_000_000_000; 3]; 3], 3_000_000_000);
}

#[test]
fn random_small_against_brute_force() {
    let mut rng = Lcg(17);
    for _ in 0..2500 {
        let n = rng.range(0, 6) as usize;
        let m = n + rng.range(0, 2) as usize;
        let (lo, hi) = [(0, 3), (-10, 10), (-1_000_000_000, 1_000_000_000)][rng.range(0, 2) as usize];
        let cost = matrix(&mut rng, n, m.max(1), lo, hi);
        let want = brute(&cost);
        check(cost, want);
    }
}

#[test]
fn medium_against_min_cost_flow() {
    let mut rng = Lcg(18);
    for _ in 0..30 {
        let n = rng.range(10, 40) as usize;
        let m = n + rng.range(0, 15) as usize;
        let cost = matrix(&mut rng, n, m, -1000, 1000);
        let want = min_cost_flow(&cost);
        check(cost, want);
    }
}

#[test]
fn large_is_fast() {
    let mut rng = Lcg(19);
    // planted optimum: cost 0 on a hidden permutation, >= 1 elsewhere
    let n = 400;
    let mut perm: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        perm.swap(i, rng.range(0, i as i64) as usize);
    }
    let mut planted = matrix(&mut rng, n, n, 1, 1_000_000_000);
    for i in 0..n {
        planted[i][perm[i]] = 0;
    }
    check_large("planted 400x400", planted);
    // nearly uniform costs: many ties, long augmenting paths
    check_large("flat 300x400", matrix(&mut rng, 300, 400, 0, 2));
    check_large("wide 150x400", matrix(&mut rng, 150, 400, -1_000_000_000, 1_000_000_000));
}

/// An O(n^2 m) Hungarian method runs within ~3x of the min-cost-flow reference; exhaustive search never ends.
const K: f64 = 10.0;

/// The least a call may run before it counts as hung.
const HANG_GUARD: Duration = Duration::from_secs(10);

/// Runs `solution` right after `baseline` on this host, so that host load slows both alike, and returns both
/// answers. Fails when the solution is more than `k` times slower in each of 3 rounds (a round lost to a burst
/// of load is measured again), or runs past 4k times the baseline, at least HANG_GUARD (a hang).
fn within_k_of_baseline<T: Send + 'static, B>(
    what: &str,
    k: f64,
    baseline: impl Fn() -> B,
    solution: impl Fn() -> T + Send + Sync + 'static,
) -> (T, B) {
    let solution = Arc::new(solution);
    let mut seen = Vec::new();
    for _ in 0..3 {
        let start = Instant::now();
        let expected = baseline();
        let base = start.elapsed();
        let guard = base.mul_f64(4.0 * k).max(HANG_GUARD);
        let (tx, rx) = mpsc::channel();
        let run = Arc::clone(&solution);
        thread::spawn(move || {
            let start = Instant::now();
            let got = run();
            let _ = tx.send((got, start.elapsed()));
        });
        match rx.recv_timeout(guard) {
            Ok((got, took)) if took.as_secs_f64() <= k * base.as_secs_f64() => return (got, expected),
            Ok((_, took)) => seen.push(format!("{:?} vs baseline {:?}", took, base)),
            Err(RecvTimeoutError::Timeout) => panic!("{}: no answer within {:?} (the baseline took {:?})", what, guard, base),
            Err(RecvTimeoutError::Disconnected) => panic!("{}: the solution panicked", what),
        }
    }
    panic!("{}: more than {}x slower than the baseline in 3 rounds: {}", what, k, seen.join("; "));
}
