//! Rota planning.

/// Minimum total cost of giving every row (nurse) its own column (shift), and the column of each row.
pub fn assign(cost: &[Vec<i64>]) -> (i64, Vec<usize>) {
    let _ = cost;
    todo!()
}
