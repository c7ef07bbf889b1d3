//! Window statistics over telemetry samples.

use std::collections::HashMap;

/// Number of windows with at most `k` distinct values, by a sliding window.
fn at_most(ids: &[usize], distinct_total: usize, k: usize) -> u64 {
    if k == 0 {
        return 0;
    }
    let mut counts = vec![0u32; distinct_total];
    let mut distinct = 0;
    let mut left = 0;
    let mut total = 0u64;
    for right in 0..ids.len() {
        if counts[ids[right]] == 0 {
            distinct += 1;
        }
        counts[ids[right]] += 1;
        while distinct > k {
            counts[ids[left]] -= 1;
            if counts[ids[left]] == 0 {
                distinct -= 1;
            }
            left += 1;
        }
        total += (right - left + 1) as u64;
    }
    total
}

/// Number of contiguous non-empty windows of `values` with exactly `k` distinct values.
pub fn count_k_distinct(values: &[i64], k: usize) -> u64 {
    if k == 0 {
        return 0;
    }
    let mut index: HashMap<i64, usize> = HashMap::with_capacity(values.len());
    let ids: Vec<usize> = values
        .iter()
        .map(|v| {
            let next = index.len();
            *index.entry(*v).or_insert(next)
        })
        .collect();
    at_most(&ids, index.len(), k) - at_most(&ids, index.len(), k - 1)
}
