use std::collections::HashSet;
use std::sync::mpsc;
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

fn with_deadline<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> (T, Duration) {
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit * 4) {
        Ok(v) => (v, start.elapsed()),
        Err(_) => panic!("call did not finish within {:?}", limit * 4),
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
        let want = reference(&values, k);
        let (got, took) = with_deadline(Duration::from_secs(2), move || count_k_distinct(&values, k));
        assert_eq!(got, want, "k={}", k);
        assert!(took < Duration::from_secs(2), "k={} took {:?}", k, took);
    }
}
