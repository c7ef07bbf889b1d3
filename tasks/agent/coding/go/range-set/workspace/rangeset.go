// Package rangeset stores a set of int64 points as maximal half-open ranges.
package rangeset

// Set is a set of half-open int64 ranges, kept merged.
type Set struct {
}

// New returns an empty set.
func New() *Set {
	return &Set{}
}

// Add marks [lo, hi) as covered.
func (s *Set) Add(lo, hi int64) {
	panic("not implemented")
}

// Remove un-marks [lo, hi).
func (s *Set) Remove(lo, hi int64) {
	panic("not implemented")
}

// Contains reports whether x is covered.
func (s *Set) Contains(x int64) bool {
	panic("not implemented")
}

// ContainsRange reports whether every point of [lo, hi) is covered.
func (s *Set) ContainsRange(lo, hi int64) bool {
	panic("not implemented")
}

// Covered is the total length of the covered points.
func (s *Set) Covered() int64 {
	panic("not implemented")
}

// Len is the number of maximal ranges.
func (s *Set) Len() int {
	panic("not implemented")
}

// Ranges lists the maximal ranges in increasing order.
func (s *Set) Ranges() [][2]int64 {
	panic("not implemented")
}
