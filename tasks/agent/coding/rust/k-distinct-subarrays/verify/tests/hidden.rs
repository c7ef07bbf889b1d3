use std::collections::HashSet;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use telemetry::count_k_distinct;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn brute(values: &[i64], k: usize) -> u64 {
    let mut total = 0;
    for i in 0..values.len() {
        let mut seen = HashSet::new();
        for v in &values[i..] {
            seen.insert(*v);
            if seen.len() == k {
                total += 1;
            }
            if seen.len() > k {
                break;
            }
        }
    }
    total
}

/// Independent reference: for each right end j mark the last position of every value in a Fenwick
/// tree; the windows ending at j with exactly k distinct values start in (p_{k+1}, p_k], where p_i is
/// the i-th largest marked position.
fn reference(values: &[i64], k: usize) -> u64 {
    if k == 0 {
        return 0;
    }
    let n = values.len();
    let mut tree = vec![0i64; n + 1];
    let mut log = 1;
    while (1 << log) <= n {
        log += 1;
    }
    fn add(tree: &mut [i64], pos: usize, delta: i64) {
        let mut i = pos + 1;
        while i < tree.len() {
            tree[i] += delta;
            i += i & i.wrapping_neg();
        }
    }
    // position of the r-th smallest marked position (r >= 1)
    let kth = |tree: &[i64], mut r: i64| -> usize {
        let mut pos = 0;
        for b in (0..log).rev() {
            let next = pos + (1 << b);
            if next < tree.len() && tree[next] < r {
                pos = next;
                r -= tree[next];
            }
        }
        pos
    };
    let mut last: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
    let mut total = 0u64;
    for (j, v) in values.iter().enumerate() {
        if let Some(p) = last.insert(*v, j) {
            add(&mut tree, p, -1);
        }
        add(&mut tree, j, 1);
        let distinct = last.len();
        if distinct >= k {
            let pk = kth(&tree, (distinct - k + 1) as i64) as i64;
            let pk1 = if distinct == k { -1 } else { kth(&tree, (distinct - k) as i64) as i64 };
            total += (pk - pk1) as u64;
        }
    }
    total
}

#[test]
fn reference_matches_brute_force() {
    let mut rng = Lcg(4242);
    for _ in 0..500 {
        let n = rng.below(25) as usize;
        let values: Vec<i64> = (0..n).map(|_| rng.below(5) as i64).collect();
        let k = rng.below(6) as usize;
        assert_eq!(reference(&values, k), brute(&values, k));
    }
}

#[test]
fn examples() {
    assert_eq!(count_k_distinct(&[1, 2, 1, 2, 3], 2), 7);
    assert_eq!(count_k_distinct(&[1, 2, 1, 3, 4], 3), 3);
    assert_eq!(count_k_distinct(&[], 1), 0);
    assert_eq!(count_k_distinct(&[5, 5, 5], 0), 0);
    assert_eq!(count_k_distinct(&[5, 5, 5], 1), 6);
    assert_eq!(count_k_distinct(&[5, 5, 5], 2), 0);
    assert_eq!(count_k_distinct(&[i64::MIN, i64::MAX, -1, 0], 4), 1);
    assert_eq!(count_k_distinct(&[1, 2, 3], 7), 0);
}

#[test]
fn random_small_against_brute_force() {
    let mut rng = Lcg(12345);
    for _ in 0..3000 {
        let n = rng.below(30) as usize;
        let alphabet = 1 + rng.below(6) as i64;
        let values: Vec<i64> = (0..n).map(|_| rng.below(alphabet as u64) as i64 * 1_000_000_007 - 3).collect();
        let k = rng.below(8) as usize;
        assert_eq!(count_k_distinct(&values, k), brute(&values, k), "values={:?} k={}", values, k);
    }
}

#[test]
fn large_inputs_are_fast() {
    let mut rng = Lcg(999);
    let cases: Vec<(Vec<i64>, usize)> = vec![
        ((0..1_000_000).map(|_| (rng.next() as i64) * 7919 - (1 << 40)).collect(), 3),
        ((0..1_000_000).map(|_| rng.below(1000) as i64).collect(), 500),
        ((0..1_000_000).map(|_| rng.below(5) as i64).collect(), 5),
        ((0..600_000).map(|i| (i / 3) as i64).collect(), 40_000),
    ];
    for (values, k) in cases {
        let values = Arc::new(values);
        let shared = Arc::clone(&values);
        let (got, want) =
            within_k_of_baseline(&format!("k={}", k), K, || reference(&values, k), move || count_k_distinct(&shared, k));
        assert_eq!(got, want, "k={}", k);
    }
}

/// An O(n) or O(n log n) solution runs within ~3x of the Fenwick-tree reference; O(n^2) is 1000s of times slower.
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
