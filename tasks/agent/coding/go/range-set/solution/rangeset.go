// Package rangeset stores a set of int64 points as maximal half-open ranges.
package rangeset

import "math/rand"

// node is a treap node keyed by the range start; stored ranges never overlap or touch.
type node struct {
	lo, hi      int64
	prio        uint32
	left, right *node
}

// Set is a set of half-open int64 ranges, kept merged.
type Set struct {
	root    *node
	covered int64
	count   int
	rng     *rand.Rand
}

// New returns an empty set.
func New() *Set {
	return &Set{rng: rand.New(rand.NewSource(1))}
}

// split returns the nodes with lo < key and those with lo >= key.
func split(t *node, key int64) (*node, *node) {
	if t == nil {
		return nil, nil
	}
	if t.lo < key {
		l, r := split(t.right, key)
		t.right = l
		return t, r
	}
	l, r := split(t.left, key)
	t.left = r
	return l, t
}

// merge joins two treaps where every key of a is smaller than every key of b.
func merge(a, b *node) *node {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	if a.prio > b.prio {
		a.right = merge(a.right, b)
		return a
	}
	b.left = merge(a, b.left)
	return b
}

// popMax detaches the node with the largest key.
func popMax(t *node) (*node, *node) {
	if t == nil {
		return nil, nil
	}
	if t.right == nil {
		rest := t.left
		t.left = nil
		return rest, t
	}
	rest, max := popMax(t.right)
	t.right = rest
	return t, max
}

func (s *Set) newNode(lo, hi int64) *node {
	s.covered += hi - lo
	s.count++
	return &node{lo: lo, hi: hi, prio: s.rng.Uint32()}
}

// drop accounts for every node of t disappearing and returns the largest hi among them.
func (s *Set) drop(t *node, maxHi int64) int64 {
	if t == nil {
		return maxHi
	}
	s.covered -= t.hi - t.lo
	s.count--
	if t.hi > maxHi {
		maxHi = t.hi
	}
	maxHi = s.drop(t.left, maxHi)
	return s.drop(t.right, maxHi)
}

// Add marks [lo, hi) as covered.
func (s *Set) Add(lo, hi int64) {
	if lo >= hi {
		return
	}
	if f := s.floor(lo); f != nil && f.hi >= lo {
		if f.hi >= hi {
			return
		}
		lo = f.lo
	}
	before, rest := split(s.root, lo)
	inside, after := split(rest, hi+1)
	hi = s.drop(inside, hi)
	s.root = merge(merge(before, s.newNode(lo, hi)), after)
}

// Remove un-marks [lo, hi).
func (s *Set) Remove(lo, hi int64) {
	if lo >= hi {
		return
	}
	before, rest := split(s.root, lo)
	before, prev := popMax(before)
	tailHi := int64(0)
	hasTail := false
	if prev != nil {
		if prev.hi > lo {
			s.covered -= prev.hi - prev.lo
			s.count--
			if prev.hi > hi {
				tailHi, hasTail = prev.hi, true
			}
			before = merge(before, s.newNode(prev.lo, lo))
		} else {
			before = merge(before, prev)
		}
	}
	inside, after := split(rest, hi)
	if maxHi := s.drop(inside, hi); maxHi > hi {
		tailHi, hasTail = maxHi, true
	}
	if hasTail {
		after = merge(s.newNode(hi, tailHi), after)
	}
	s.root = merge(before, after)
}

// floor is the range with the largest start <= x.
func (s *Set) floor(x int64) *node {
	var best *node
	for t := s.root; t != nil; {
		if t.lo <= x {
			best = t
			t = t.right
		} else {
			t = t.left
		}
	}
	return best
}

// Contains reports whether x is covered.
func (s *Set) Contains(x int64) bool {
	f := s.floor(x)
	return f != nil && x < f.hi
}

// ContainsRange reports whether every point of [lo, hi) is covered.
func (s *Set) ContainsRange(lo, hi int64) bool {
	if lo >= hi {
		return true
	}
	f := s.floor(lo)
	return f != nil && lo < f.hi && hi <= f.hi
}

// Covered is the total length of the covered points.
func (s *Set) Covered() int64 { return s.covered }

// Len is the number of maximal ranges.
func (s *Set) Len() int { return s.count }

// Ranges lists the maximal ranges in increasing order.
func (s *Set) Ranges() [][2]int64 {
	out := make([][2]int64, 0, s.count)
	var walk func(*node)
	walk = func(t *node) {
		if t == nil {
			return
		}
		walk(t.left)
		out = append(out, [2]int64{t.lo, t.hi})
		walk(t.right)
	}
	walk(s.root)
	return out
}
