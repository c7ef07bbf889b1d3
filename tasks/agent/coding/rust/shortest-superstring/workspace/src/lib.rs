//! Toy sequence assembly.

/// A shortest string that contains every word as a substring.
pub fn shortest_superstring(words: &[&str]) -> String {
    words.concat()
}
