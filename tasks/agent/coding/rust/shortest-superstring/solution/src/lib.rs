//! Toy sequence assembly.

/// Length of the longest suffix of `a` that is a prefix of `b`.
fn overlap(a: &str, b: &str) -> usize {
    let max = a.len().min(b.len());
    (0..=max).rev().find(|&k| a.ends_with(&b[..k])).unwrap_or(0)
}

/// A shortest string that contains every word as a substring.
///
/// Words contained in other words are dropped; then a DP over (set of used words, last word) finds the
/// order that maximises the total overlap, which gives the shortest concatenation.
pub fn shortest_superstring(words: &[&str]) -> String {
    let mut unique: Vec<&str> = words.to_vec();
    unique.sort();
    unique.dedup();
    let kept: Vec<&str> = unique
        .iter()
        .enumerate()
        .filter(|&(i, w)| !unique.iter().enumerate().any(|(j, other)| i != j && other.contains(*w)))
        .map(|(_, w)| *w)
        .collect();
    let n = kept.len();
    if n == 0 {
        return String::new();
    }
    let mut over = vec![vec![0usize; n]; n];
    for i in 0..n {
        for j in 0..n {
            if i != j {
                over[i][j] = overlap(kept[i], kept[j]);
            }
        }
    }
    let full = (1usize << n) - 1;
    const NONE: usize = usize::MAX;
    let mut best = vec![vec![NONE; n]; 1 << n];
    let mut parent = vec![vec![NONE; n]; 1 << n];
    for i in 0..n {
        best[1 << i][i] = 0;
    }
    for mask in 1..=full {
        for last in 0..n {
            let cur = best[mask][last];
            if cur == NONE {
                continue;
            }
            for next in 0..n {
                if mask & (1 << next) != 0 {
                    continue;
                }
                let m2 = mask | (1 << next);
                let val = cur + over[last][next];
                if best[m2][next] == NONE || val > best[m2][next] {
                    best[m2][next] = val;
                    parent[m2][next] = last;
                }
            }
        }
    }
    let mut last = (0..n).max_by_key(|&i| best[full][i]).unwrap();
    let mut order = Vec::with_capacity(n);
    let mut mask = full;
    while last != NONE {
        order.push(last);
        let prev = parent[mask][last];
        mask &= !(1 << last);
        last = prev;
    }
    order.reverse();
    let mut out = String::from(kept[order[0]]);
    for pair in order.windows(2) {
        out.push_str(&kept[pair[1]][over[pair[0]][pair[1]]..]);
    }
    out
}
