//! Window statistics over telemetry samples.

/// Number of contiguous non-empty windows of `values` with exactly `k` distinct values.
pub fn count_k_distinct(values: &[i64], k: usize) -> u64 {
    let _ = (values, k);
    unimplemented!()
}
