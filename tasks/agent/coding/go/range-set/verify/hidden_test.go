package rangeset

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
)

const span = 64

// bitRef covers points in [-8, span) with a bool per point.
type bitRef [span + 8]bool

func (b *bitRef) set(lo, hi int64, v bool) {
	for x := lo; x < hi; x++ {
		b[x+8] = v
	}
}

func (b *bitRef) ranges() [][2]int64 {
	out := [][2]int64{}
	for x := int64(-8); x < span; x++ {
		if b[x+8] && (x == -8 || !b[x+7]) {
			end := x
			for end < span && b[end+8] {
				end++
			}
			out = append(out, [2]int64{x, end})
		}
	}
	return out
}

func TestExample(t *testing.T) {
	s := New()
	s.Add(1, 3)
	s.Add(3, 5)
	if got := s.Ranges(); !reflect.DeepEqual(got, [][2]int64{{1, 5}}) {
		t.Fatalf("Ranges = %v", got)
	}
	s.Add(10, 20)
	s.Remove(12, 15)
	if got := s.Ranges(); !reflect.DeepEqual(got, [][2]int64{{1, 5}, {10, 12}, {15, 20}}) {
		t.Fatalf("Ranges = %v", got)
	}
	if s.Covered() != 4+2+5 || s.Len() != 3 {
		t.Fatalf("Covered=%d Len=%d", s.Covered(), s.Len())
	}
	if !s.ContainsRange(15, 20) || s.ContainsRange(15, 21) || s.ContainsRange(4, 11) || !s.ContainsRange(7, 7) {
		t.Fatal("ContainsRange wrong")
	}
	if s.Contains(5) || !s.Contains(4) || !s.Contains(10) || s.Contains(12) || s.Contains(-1000) {
		t.Fatal("Contains wrong")
	}
	s.Add(5, 10)
	if got := s.Ranges(); !reflect.DeepEqual(got, [][2]int64{{1, 12}, {15, 20}}) {
		t.Fatalf("Ranges = %v", got)
	}
	s.Add(7, 3)
	s.Remove(9, 9)
	if s.Len() != 2 {
		t.Fatal("empty ranges must be no-ops")
	}
	s.Remove(-1000000000000000000, 1000000000000000000)
	if s.Len() != 0 || s.Covered() != 0 || len(s.Ranges()) != 0 {
		t.Fatal("set not empty after removing everything")
	}
	s.Add(-1000000000000000000, 1000000000000000000)
	if s.Covered() != 2000000000000000000 || !s.Contains(0) {
		t.Fatal("extreme range")
	}
}

func TestRandomAgainstBits(t *testing.T) {
	rng := rand.New(rand.NewSource(99))
	for round := 0; round < 600; round++ {
		s := New()
		var ref bitRef
		for op := 0; op < 60; op++ {
			lo := int64(rng.Intn(span+8)) - 8
			hi := lo + int64(rng.Intn(12)) - 1
			if hi > span {
				hi = span
			}
			switch rng.Intn(5) {
			case 0, 1:
				s.Add(lo, hi)
				if lo < hi {
					ref.set(lo, hi, true)
				}
			case 2:
				s.Remove(lo, hi)
				if lo < hi {
					ref.set(lo, hi, false)
				}
			case 3:
				x := int64(rng.Intn(span+8)) - 8
				if s.Contains(x) != ref[x+8] {
					t.Fatalf("round %d: Contains(%d) wrong; want %v, ranges %v", round, x, ref[x+8], ref.ranges())
				}
			case 4:
				want := true
				for x := lo; x < hi; x++ {
					want = want && ref[x+8]
				}
				if s.ContainsRange(lo, hi) != want {
					t.Fatalf("round %d: ContainsRange(%d, %d) want %v, ranges %v", round, lo, hi, want, ref.ranges())
				}
			}
			want := ref.ranges()
			if got := s.Ranges(); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d op %d: Ranges = %v want %v", round, op, got, want)
			}
			var cov int64
			for _, r := range want {
				cov += r[1] - r[0]
			}
			if s.Covered() != cov || s.Len() != len(want) {
				t.Fatalf("round %d: Covered=%d Len=%d want %d %d", round, s.Covered(), s.Len(), cov, len(want))
			}
		}
	}
}

// bstNode is a node of the baseline's plain binary search tree.
type bstNode struct {
	key         int64
	left, right *bstNode
}

// treeBaseline is the calibration: 3n inserts and n lookups in a plain binary search tree, which the random
// order of the test's own permutation keeps O(log n) deep, like the operations of a balanced tree.
func treeBaseline(perm []int) {
	var root *bstNode
	insert := func(key int64) {
		at := &root
		for *at != nil {
			if key < (*at).key {
				at = &(*at).left
			} else {
				at = &(*at).right
			}
		}
		*at = &bstNode{key: key}
	}
	for _, i := range perm {
		insert(int64(20 * i))
	}
	for _, i := range perm {
		insert(int64(20*i + 4))
	}
	for _, i := range perm {
		insert(int64(20*i + 6))
		key, at := int64(20*i), root
		for at != nil && at.key != key {
			if key < at.key {
				at = at.left
			} else {
				at = at.right
			}
		}
		if at == nil {
			panic("key lost")
		}
	}
}

// k: an O(log n)-per-operation set runs within ~7x of the tree baseline; a sorted slice that shifts its tail
// on every insert is 100s of times slower.
const k = 25

// bookings is the size of the timed test.
const bookings = 200000

func TestLargeRandomOrderFast(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	perm := rng.Perm(bookings)
	msg := ""
	withinKOfBaseline(t, "200k bookings", k, func() { treeBaseline(perm) }, func() { msg = work(perm) })
	if msg != "" {
		t.Fatal(msg)
	}
}

// work books, splits and glues the ranges in random order, checking as it goes; "" when all is well.
func work(perm []int) string {
	const n = bookings
	s := New()
	// disjoint, non-touching bookings [20i, 20i+10) in random order
	for _, i := range perm {
		s.Add(int64(20*i), int64(20*i+10))
	}
	if s.Len() != n || s.Covered() != 10*n {
		return "wrong Len/Covered after bookings"
	}
	for q := 0; q < n; q++ {
		i := int64(perm[(q*7919)%n])
		if !s.Contains(20*i+3) || s.Contains(20*i+15) || !s.ContainsRange(20*i, 20*i+10) {
			return "wrong lookup"
		}
		// cancel the middle of every booking: splits it in two
		s.Remove(20*i+4, 20*i+6)
	}
	if s.Len() != 2*n || s.Covered() != 8*n {
		return "wrong Len/Covered after cancellations"
	}
	// glue everything back together with one Add per gap, random order again
	for _, i := range perm {
		s.Add(int64(20*i+4), int64(20*i+21))
	}
	if s.Len() != 1 || s.Covered() != int64(20*n+1) {
		return "wrong Len/Covered after filling"
	}
	return ""
}

const hangGuard = 10 * time.Second // the least a call may run before it counts as hung

// withinKOfBaseline runs solution right after baseline on this host, so that host load slows both alike. It
// fails when the solution is more than k times slower in each of 3 rounds (a round lost to a burst of load is
// measured again), or runs past 4k times the baseline, at least hangGuard (a hang).
func withinKOfBaseline(t *testing.T, what string, k float64, baseline, solution func()) {
	t.Helper()
	var seen []string
	for round := 0; round < 3; round++ {
		start := time.Now()
		baseline()
		base := time.Since(start)
		guard := time.Duration(4 * k * float64(base))
		if guard < hangGuard {
			guard = hangGuard
		}
		done := make(chan time.Duration, 1)
		go func() {
			start := time.Now()
			solution()
			done <- time.Since(start)
		}()
		select {
		case took := <-done:
			if took.Seconds() <= k*base.Seconds() {
				return
			}
			seen = append(seen, fmt.Sprintf("%v vs baseline %v", took, base))
		case <-time.After(guard):
			t.Fatalf("%s: no answer within %v (the baseline took %v)", what, guard, base)
		}
	}
	t.Fatalf("%s: more than %gx slower than the baseline in 3 rounds: %s", what, k, strings.Join(seen, "; "))
}
