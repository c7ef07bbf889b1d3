package terrain

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"
)

// relax is a slow but obviously correct reference: start with infinite water on inner cells and
// repeatedly lower each cell to max(height, min neighbour level) until nothing changes.
func relax(height [][]int) int64 {
	rows := len(height)
	if rows == 0 || len(height[0]) == 0 {
		return 0
	}
	cols := len(height[0])
	level := make([][]int, rows)
	for r := range level {
		level[r] = make([]int, cols)
		for c := range level[r] {
			if r == 0 || c == 0 || r == rows-1 || c == cols-1 {
				level[r][c] = height[r][c]
			} else {
				level[r][c] = 1 << 62
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for r := 1; r < rows-1; r++ {
			for c := 1; c < cols-1; c++ {
				m := level[r-1][c]
				for _, v := range []int{level[r+1][c], level[r][c-1], level[r][c+1]} {
					if v < m {
						m = v
					}
				}
				if m < height[r][c] {
					m = height[r][c]
				}
				if m < level[r][c] {
					level[r][c] = m
					changed = true
				}
			}
		}
	}
	var total int64
	for r := range level {
		for c := range level[r] {
			total += int64(level[r][c] - height[r][c])
		}
	}
	return total
}

// unionFind is a fast independent reference: process cells by increasing height, merging basins;
// a basin's water is settled when it first touches the border or a lower region.
func unionFindRef(height [][]int) int64 {
	rows := len(height)
	if rows == 0 || len(height[0]) == 0 {
		return 0
	}
	cols := len(height[0])
	n := rows * cols
	outside := n
	parent := make([]int, n+1)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	// size and sum of heights of the not-yet-drained components
	size := make([]int64, n+1)
	sum := make([]int64, n+1)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		return height[order[a]/cols][order[a]%cols] < height[order[b]/cols][order[b]%cols]
	})
	active := make([]bool, n)
	var total int64
	// Water trapped = sum over cells of (spill level - height). A component that is closed (not connected
	// to the outside) accumulates cells; when it connects to the outside at level L, every cell in it gets
	// level L.
	for idx := 0; idx < n; {
		h := height[order[idx]/cols][order[idx]%cols]
		j := idx
		for j < n && height[order[j]/cols][order[j]%cols] == h {
			j++
		}
		// activate all cells of this height
		for k := idx; k < j; k++ {
			p := order[k]
			active[p] = true
			size[p], sum[p] = 1, int64(h)
		}
		for k := idx; k < j; k++ {
			p := order[k]
			r, c := p/cols, p%cols
			if r == 0 || c == 0 || r == rows-1 || c == cols-1 {
				a, b := find(p), find(outside)
				if a != b {
					total += int64(h)*size[a] - sum[a]
					parent[a] = b
				}
			}
			for _, q := range []int{p - cols, p + cols, p - 1, p + 1} {
				if (q == p-1 && c == 0) || (q == p+1 && c == cols-1) || q < 0 || q >= n || !active[q] {
					continue
				}
				a, b := find(p), find(q)
				if a == b {
					continue
				}
				ao, bo := a == find(outside), b == find(outside)
				switch {
				case ao && bo:
				case ao:
					total += int64(h)*size[b] - sum[b]
					parent[b] = a
				case bo:
					total += int64(h)*size[a] - sum[a]
					parent[a] = b
				default:
					parent[a] = b
					size[b] += size[a]
					sum[b] += sum[a]
				}
			}
		}
		idx = j
	}
	return total
}

func grid(rng *rand.Rand, rows, cols, maxH int) [][]int {
	g := make([][]int, rows)
	for r := range g {
		g[r] = make([]int, cols)
		for c := range g[r] {
			g[r][c] = rng.Intn(maxH + 1)
		}
	}
	return g
}

func TestExamples(t *testing.T) {
	cases := []struct {
		g    [][]int
		want int64
	}{
		{[][]int{{1, 4, 3, 1, 3, 2}, {3, 2, 1, 3, 2, 4}, {2, 3, 3, 2, 3, 1}}, 4},
		{[][]int{{3, 3, 3, 3, 3}, {3, 2, 2, 2, 3}, {3, 2, 1, 2, 3}, {3, 2, 2, 2, 3}, {3, 3, 3, 3, 3}}, 10},
		{nil, 0},
		{[][]int{{}}, 0},
		{[][]int{{5}}, 0},
		{[][]int{{5, 5, 5}, {5, 0, 5}, {5, 5, 5}}, 5},
		{[][]int{{5, 5, 5}, {5, 0, 4}, {5, 5, 5}}, 4},
		{[][]int{{9, 9, 9, 9}, {9, 1, 8, 9}, {9, 9, 9, 9}}, 9},
		{[][]int{{12, 13, 1, 12}, {13, 4, 13, 12}, {13, 8, 10, 12}, {12, 13, 12, 12}, {13, 13, 13, 13}}, 14},
	}
	for i, tc := range cases {
		if got := TrappedWater(tc.g); got != tc.want {
			t.Errorf("case %d: got %d want %d", i, got, tc.want)
		}
	}
}

func TestRandomSmall(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		g := grid(rng, 1+rng.Intn(9), 1+rng.Intn(9), []int{1, 3, 9, 1000}[rng.Intn(4)])
		want := relax(g)
		if got := TrappedWater(g); got != want {
			t.Fatalf("grid %v: got %d want %d", g, got, want)
		}
	}
}

func TestReferencesAgree(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 300; i++ {
		g := grid(rng, 1+rng.Intn(20), 1+rng.Intn(20), 50)
		if a, b := relax(g), unionFindRef(g); a != b {
			t.Fatalf("reference mismatch %d %d", a, b)
		}
	}
}

// k: an O(cells log cells) solution runs within ~4x of the union-find reference; an O(cells^2) one is
// thousands of times slower.
const k = 20

func TestLargeFast(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	grids := [][][]int{grid(rng, 1000, 1000, 1000000000), grid(rng, 700, 1000, 20)}
	// a deep bowl with a serpentine wall, its gaps on alternate sides: one spill path winds through the whole
	// bowl, half of it against any sweep order, so repeated relaxation needs thousands of sweeps
	bowl := make([][]int, 400)
	for r := range bowl {
		bowl[r] = make([]int, 400)
		for c := range bowl[r] {
			if r == 0 || c == 0 || r == 399 || c == 399 {
				bowl[r][c] = 1000000000
			} else if r%4 == 2 && (r/4%2 == 0 && c < 397 || r/4%2 == 1 && c > 2) {
				bowl[r][c] = 999999999 - r
			}
		}
	}
	bowl[0][200] = 5
	grids = append(grids, bowl)
	for i, g := range grids {
		var want, got int64
		withinKOfBaseline(t, fmt.Sprintf("large grid %d", i), k,
			func() { want = unionFindRef(g) }, func() { got = TrappedWater(g) })
		if got != want {
			t.Fatalf("large grid %d: got %d want %d", i, got, want)
		}
	}
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
