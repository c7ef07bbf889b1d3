use cityscape::skyline;
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
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Brute force: height of every elementary interval between consecutive edges.
fn brute(b: &[(i64, i64, u64)]) -> Vec<(i64, u64)> {
    let mut xs: Vec<i64> = b.iter().flat_map(|&(l, r, _)| vec![l, r]).collect();
    xs.sort();
    xs.dedup();
    let mut out: Vec<(i64, u64)> = Vec::new();
    for &x in &xs {
        let h = b.iter().filter(|&&(l, r, _)| l <= x && x < r).map(|&(_, _, h)| h).max().unwrap_or(0);
        let prev = out.last().map(|p| p.1).unwrap_or(0);
        if h != prev {
            out.push((x, h));
        }
    }
    out
}

/// Independent reference: divide and conquer, merging two outlines.
fn merge(a: &[(i64, u64)], b: &[(i64, u64)]) -> Vec<(i64, u64)> {
    let (mut i, mut j, mut ha, mut hb) = (0, 0, 0u64, 0u64);
    let mut out: Vec<(i64, u64)> = Vec::new();
    while i < a.len() || j < b.len() {
        let x;
        if j >= b.len() || (i < a.len() && a[i].0 < b[j].0) {
            x = a[i].0;
            ha = a[i].1;
            i += 1;
        } else if i >= a.len() || b[j].0 < a[i].0 {
            x = b[j].0;
            hb = b[j].1;
            j += 1;
        } else {
            x = a[i].0;
            ha = a[i].1;
            hb = b[j].1;
            i += 1;
            j += 1;
        }
        let h = ha.max(hb);
        if out.last().map(|p| p.1).unwrap_or(0) != h {
            if out.last().map(|p| p.0) == Some(x) {
                out.pop();
                if out.last().map(|p| p.1).unwrap_or(0) == h {
                    continue;
                }
            }
            out.push((x, h));
        }
    }
    out
}

fn reference(b: &[(i64, i64, u64)]) -> Vec<(i64, u64)> {
    match b.len() {
        0 => vec![],
        1 => {
            if b[0].2 == 0 {
                vec![]
            } else {
                vec![(b[0].0, b[0].2), (b[0].1, 0)]
            }
        }
        n => merge(&reference(&b[..n / 2]), &reference(&b[n / 2..])),
    }
}

fn random_buildings(rng: &mut Lcg, n: usize, span: u64, width: u64, height: u64) -> Vec<(i64, i64, u64)> {
    (0..n)
        .map(|_| {
            let l = rng.below(span) as i64 - (span / 2) as i64;
            (l, l + 1 + rng.below(width) as i64, rng.below(height + 1))
        })
        .collect()
}

#[test]
fn example() {
    let b = [(2, 9, 10), (3, 7, 15), (5, 12, 12), (15, 20, 10), (19, 24, 8)];
    assert_eq!(skyline(&b), vec![(2, 10), (3, 15), (7, 12), (12, 0), (15, 10), (20, 8), (24, 0)]);
}

#[test]
fn edge_cases() {
    assert_eq!(skyline(&[]), vec![]);
    assert_eq!(skyline(&[(1, 5, 0)]), vec![]);
    assert_eq!(skyline(&[(1, 3, 4), (3, 5, 4)]), vec![(1, 4), (5, 0)]);
    assert_eq!(skyline(&[(1, 3, 4), (1, 3, 4)]), vec![(1, 4), (3, 0)]);
    assert_eq!(skyline(&[(0, 2, 3), (2, 5, 3), (5, 6, 1)]), vec![(0, 3), (5, 1), (6, 0)]);
    assert_eq!(skyline(&[(0, 10, 1), (0, 10, 2)]), vec![(0, 2), (10, 0)]);
    assert_eq!(skyline(&[(0, 5, 2), (5, 10, 1), (0, 5, 1)]), vec![(0, 2), (5, 1), (10, 0)]);
    assert_eq!(
        skyline(&[(-1_000_000_000_000, 1_000_000_000_000, u64::MAX)]),
        vec![(-1_000_000_000_000, u64::MAX), (1_000_000_000_000, 0)]
    );
    assert_eq!(skyline(&[(3, 4, 0), (1, 2, 5), (2, 3, 0)]), vec![(1, 5), (2, 0)]);
}

#[test]
fn random_small_against_brute_force() {
    let mut rng = Lcg(31337);
    for _ in 0..4000 {
        let n = rng.below(12) as usize;
        let b = random_buildings(&mut rng, n, 20, 8, 4);
        assert_eq!(skyline(&b), brute(&b), "buildings {:?}", b);
    }
}

#[test]
fn large_inputs() {
    let mut rng = Lcg(2718);
    let cases = vec![
        random_buildings(&mut rng, 300_000, 2_000_000_000_000, 1_000_000_000, 1_000_000),
        random_buildings(&mut rng, 300_000, 1_000_000, 1_000_000, 1_000_000),
        random_buildings(&mut rng, 300_000, 1000, 5, 3),
        (0..200_000i64).map(|i| (i, 400_000 - i, i as u64)).collect(),
    ];
    for (i, b) in cases.into_iter().enumerate() {
        let b = Arc::new(b);
        let shared = Arc::clone(&b);
        let (got, want) =
            within_k_of_baseline(&format!("large case {}", i), K, || reference(&b), move || skyline(&shared));
        assert!(got == want, "large case differs ({} vs {} key points)", got.len(), want.len());
    }
}

/// A heap sweep runs within ~4x of the divide-and-conquer reference; an O(n^2) one is 1000s of times slower.
const K: f64 = 20.0;

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
