//! Outline computations for the map renderer.

/// Key points `(x, height)` of the outline of `buildings` given as `(left, right, height)`.
pub fn skyline(buildings: &[(i64, i64, u64)]) -> Vec<(i64, u64)> {
    let _ = buildings;
    Vec::new()
}
