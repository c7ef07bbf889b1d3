// Package terrain computes properties of height maps.
package terrain

import "container/heap"

type cell struct {
	level int
	r, c  int
}

type minHeap []cell

func (h minHeap) Len() int            { return len(h) }
func (h minHeap) Less(i, j int) bool  { return h[i].level < h[j].level }
func (h minHeap) Swap(i, j int)       { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x interface{}) { *h = append(*h, x.(cell)) }
func (h *minHeap) Pop() interface{} {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// TrappedWater returns the total volume of rain water the height map holds.
//
// Water levels are settled from the border inwards, always expanding the lowest known level first
// (a Dijkstra-like flood with a min-heap): a cell's level is max(its height, the level it is reached from).
func TrappedWater(height [][]int) int64 {
	rows := len(height)
	if rows == 0 || len(height[0]) == 0 {
		return 0
	}
	cols := len(height[0])
	seen := make([]bool, rows*cols)
	h := &minHeap{}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			if r == 0 || c == 0 || r == rows-1 || c == cols-1 {
				seen[r*cols+c] = true
				*h = append(*h, cell{height[r][c], r, c})
			}
		}
	}
	heap.Init(h)
	var total int64
	dirs := [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	for h.Len() > 0 {
		cur := heap.Pop(h).(cell)
		for _, d := range dirs {
			nr, nc := cur.r+d[0], cur.c+d[1]
			if nr < 0 || nc < 0 || nr >= rows || nc >= cols || seen[nr*cols+nc] {
				continue
			}
			seen[nr*cols+nc] = true
			level := height[nr][nc]
			if level < cur.level {
				total += int64(cur.level - level)
				level = cur.level
			}
			heap.Push(h, cell{level, nr, nc})
		}
	}
	return total
}
