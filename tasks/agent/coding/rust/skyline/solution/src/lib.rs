//! Outline computations for the map renderer.

use std::collections::BinaryHeap;
use std::cmp::Reverse;

/// Key points `(x, height)` of the outline of `buildings` given as `(left, right, height)`.
///
/// Sweep over the building edges from left to right with a max-heap of (height, right end) of the
/// buildings started so far; expired tops are dropped lazily.
pub fn skyline(buildings: &[(i64, i64, u64)]) -> Vec<(i64, u64)> {
    let mut xs: Vec<i64> = Vec::with_capacity(buildings.len() * 2);
    for &(l, r, h) in buildings {
        if h > 0 {
            xs.push(l);
            xs.push(r);
        }
    }
    xs.sort_unstable();
    xs.dedup();
    let mut order: Vec<usize> = (0..buildings.len()).filter(|&i| buildings[i].2 > 0).collect();
    order.sort_unstable_by_key(|&i| buildings[i].0);
    let mut heap: BinaryHeap<(u64, Reverse<i64>)> = BinaryHeap::new();
    let mut out: Vec<(i64, u64)> = Vec::new();
    let mut next = 0;
    for x in xs {
        while next < order.len() && buildings[order[next]].0 <= x {
            let (_, r, h) = buildings[order[next]];
            heap.push((h, Reverse(r)));
            next += 1;
        }
        while let Some(&(_, Reverse(r))) = heap.peek() {
            if r <= x {
                heap.pop();
            } else {
                break;
            }
        }
        let h = heap.peek().map(|&(h, _)| h).unwrap_or(0);
        if out.last().map(|&(_, last)| last) != Some(h) && !(out.is_empty() && h == 0) {
            out.push((x, h));
        }
    }
    out
}
