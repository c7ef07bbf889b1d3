use assembly::shortest_superstring;
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

fn ov(a: &str, b: &str) -> usize {
    (0..=a.len().min(b.len())).rev().find(|&k| a[a.len() - k..] == b[..k]).unwrap()
}

/// Exhaustive search over all orders (small inputs only).
fn by_permutations(words: &[String]) -> usize {
    let mut ws: Vec<String> = words.to_vec();
    ws.sort();
    ws.dedup();
    let ws: Vec<String> = ws
        .iter()
        .filter(|w| !ws.iter().any(|o| o != *w && o.contains(w.as_str())))
        .cloned()
        .collect();
    if ws.is_empty() {
        return 0;
    }
    fn go(ws: &[String], used: &mut Vec<bool>, last: usize, len: usize, best: &mut usize, depth: usize) {
        if depth == ws.len() {
            *best = (*best).min(len);
            return;
        }
        for i in 0..ws.len() {
            if !used[i] {
                used[i] = true;
                go(ws, used, i, len + ws[i].len() - ov(&ws[last], &ws[i]), best, depth + 1);
                used[i] = false;
            }
        }
    }
    let mut best = usize::MAX;
    for s in 0..ws.len() {
        let mut used = vec![false; ws.len()];
        used[s] = true;
        go(&ws, &mut used, s, ws[s].len(), &mut best, 1);
    }
    best
}

/// Reference optimum length: DP over subsets with the minimal total length.
fn optimum(words: &[String]) -> usize {
    let mut ws: Vec<String> = words.to_vec();
    ws.sort();
    ws.dedup();
    let ws: Vec<String> = ws
        .iter()
        .filter(|w| !ws.iter().any(|o| o != *w && o.contains(w.as_str())))
        .cloned()
        .collect();
    let n = ws.len();
    if n == 0 {
        return 0;
    }
    let mut dp = vec![vec![usize::MAX; n]; 1 << n];
    for i in 0..n {
        dp[1 << i][i] = ws[i].len();
    }
    for mask in 1..(1usize << n) {
        for last in 0..n {
            let cur = dp[mask][last];
            if cur == usize::MAX {
                continue;
            }
            for nx in 0..n {
                if mask >> nx & 1 == 0 {
                    let v = cur + ws[nx].len() - ov(&ws[last], &ws[nx]);
                    let e = &mut dp[mask | 1 << nx][nx];
                    if v < *e {
                        *e = v;
                    }
                }
            }
        }
    }
    *dp[(1 << n) - 1].iter().min().unwrap()
}

/// The solution's superstring of owned words.
fn solve(words: &[String]) -> String {
    let refs: Vec<&str> = words.iter().map(|s| s.as_str()).collect();
    shortest_superstring(&refs)
}

/// A small case: the solution's answer under the hang guard only, checked against the optimum.
fn check(words: &[String]) {
    let owned = words.to_vec();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(solve(&owned));
    });
    let got = rx.recv_timeout(HANG_GUARD).unwrap_or_else(|_| panic!("no answer within {:?} for {:?}", HANG_GUARD, words));
    check_answer(words, &got, optimum(words));
}

fn check_answer(words: &[String], got: &str, want: usize) {
    for w in words {
        assert!(got.contains(w.as_str()), "{:?} does not contain {:?} (words {:?})", got, w, words);
    }
    assert_eq!(got.len(), want, "{:?} is not shortest for {:?}", got, words);
}

fn random_words(rng: &mut Lcg, n: usize, alphabet: &[u8], maxlen: u64) -> Vec<String> {
    (0..n)
        .map(|_| (0..1 + rng.below(maxlen)).map(|_| alphabet[rng.below(alphabet.len() as u64) as usize] as char).collect())
        .collect()
}

#[test]
fn examples() {
    let ex: Vec<String> = ["catg", "ctaagt", "gcta", "ttca", "atgcatc"].iter().map(|s| s.to_string()).collect();
    check(&ex);
    assert_eq!(shortest_superstring(&[]), "");
    assert_eq!(shortest_superstring(&["abc"]), "abc");
    assert_eq!(shortest_superstring(&["abc", "abc", "b"]), "abc");
    // greedy (largest overlap first) picks "abcd"+"bcde" style merges that lose here
    let tricky: Vec<String> = ["abcab", "bcabc", "cabca"].iter().map(|s| s.to_string()).collect();
    check(&tricky);
}

#[test]
fn reference_agrees_with_permutations() {
    let mut rng = Lcg(5);
    for _ in 0..300 {
        let n = 1 + rng.below(6) as usize;
        let ws = random_words(&mut rng, n, b"ab", 6);
        assert_eq!(optimum(&ws), by_permutations(&ws), "{:?}", ws);
    }
}

#[test]
fn random_small() {
    let mut rng = Lcg(6);
    for _ in 0..1500 {
        let n = rng.below(8) as usize;
        let alphabet: &[u8] = if rng.below(2) == 0 { b"ab" } else { b"abc" };
        let ws = random_words(&mut rng, n, alphabet, 7);
        check(&ws);
    }
}

#[test]
fn greedy_traps() {
    // pieces of a random string cut with large overlaps: greedy merging is usually not optimal
    let mut rng = Lcg(7);
    for _ in 0..40 {
        let base: String = (0..60).map(|_| (b"ab"[rng.below(2) as usize]) as char).collect();
        let mut ws = Vec::new();
        for _ in 0..10 {
            let s = rng.below(50) as usize;
            ws.push(base[s..s + 3 + rng.below(8) as usize].to_string());
        }
        check(&ws);
    }
}

#[test]
fn sixteen_words_fast() {
    let mut rng = Lcg(8);
    for round in 0..4 {
        let alphabet: &[u8] = if round % 2 == 0 { b"acgt" } else { b"ab" };
        let mut ws = Vec::new();
        while ws.len() < 16 {
            let w: String = (0..10 + rng.below(11)).map(|_| alphabet[rng.below(alphabet.len() as u64) as usize] as char).collect();
            if !ws.iter().any(|o: &String| o.contains(&w) || w.contains(o.as_str())) {
                ws.push(w);
            }
        }
        let ws = Arc::new(ws);
        let shared = Arc::clone(&ws);
        let (got, want) = within_k_of_baseline(&format!("16 words, round {}", round), K, || optimum(&ws), move || solve(&shared));
        check_answer(&ws, &got, want);
    }
}

/// A subset DP runs within ~1x of the reference DP (faster with precomputed overlaps); trying permutations never ends.
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
