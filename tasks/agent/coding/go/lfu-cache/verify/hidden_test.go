package lfu

import (
	"container/list"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// naive is an obviously correct O(n) reference.
type naive struct {
	capacity int
	clock    int
	value    map[int]int
	freq     map[int]int
	used     map[int]int
}

func newNaive(capacity int) *naive {
	return &naive{capacity: capacity, value: map[int]int{}, freq: map[int]int{}, used: map[int]int{}}
}

func (n *naive) get(key int) (int, bool) {
	v, ok := n.value[key]
	if !ok {
		return 0, false
	}
	n.clock++
	n.freq[key]++
	n.used[key] = n.clock
	return v, true
}

func (n *naive) put(key, value int) {
	if n.capacity <= 0 {
		return
	}
	n.clock++
	if _, ok := n.value[key]; ok {
		n.value[key] = value
		n.freq[key]++
		n.used[key] = n.clock
		return
	}
	if len(n.value) >= n.capacity {
		victim, first := 0, true
		for k := range n.value {
			if first || n.freq[k] < n.freq[victim] || (n.freq[k] == n.freq[victim] && n.used[k] < n.used[victim]) {
				victim, first = k, false
			}
		}
		delete(n.value, victim)
		delete(n.freq, victim)
		delete(n.used, victim)
	}
	n.value[key] = value
	n.freq[key] = 1
	n.used[key] = n.clock
}

func TestExample(t *testing.T) {
	c := New(2)
	c.Put(1, 1)
	c.Put(2, 2)
	if v, ok := c.Get(1); !ok || v != 1 {
		t.Fatalf("Get(1) = %v, %v", v, ok)
	}
	c.Put(3, 3) // evicts 2 (freq 1) rather than 1 (freq 2)
	if _, ok := c.Get(2); ok {
		t.Fatal("key 2 should have been evicted")
	}
	c.Get(3)
	c.Put(4, 4) // 1 and 3 both have freq 2; 1 is least recently used
	if _, ok := c.Get(1); ok {
		t.Fatal("key 1 should have been evicted (LRU among equal counts)")
	}
	if v, ok := c.Get(3); !ok || v != 3 {
		t.Fatalf("Get(3) = %v, %v", v, ok)
	}
	if v, ok := c.Get(4); !ok || v != 4 {
		t.Fatalf("Get(4) = %v, %v", v, ok)
	}
	if c.Len() != 2 {
		t.Fatalf("Len = %d", c.Len())
	}
}

func TestZeroCapacity(t *testing.T) {
	c := New(0)
	c.Put(1, 1)
	if _, ok := c.Get(1); ok || c.Len() != 0 {
		t.Fatal("zero-capacity cache stored a key")
	}
}

func TestUpdateCountsAsUse(t *testing.T) {
	c := New(2)
	c.Put(1, 10)
	c.Put(2, 20)
	c.Put(1, 11) // key 1 now used twice
	c.Put(3, 30) // evicts 2
	if v, ok := c.Get(1); !ok || v != 11 {
		t.Fatalf("Get(1) = %v, %v; want 11", v, ok)
	}
	if _, ok := c.Get(2); ok {
		t.Fatal("key 2 should have been evicted")
	}
	if c.Len() != 2 {
		t.Fatalf("Len = %d", c.Len())
	}
}

func TestRandomAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	for round := 0; round < 400; round++ {
		capacity := rng.Intn(8)
		keys := 1 + rng.Intn(14)
		c, ref := New(capacity), newNaive(capacity)
		for op := 0; op < 300; op++ {
			k := rng.Intn(keys)
			if rng.Intn(2) == 0 {
				v := rng.Intn(1000)
				c.Put(k, v)
				ref.put(k, v)
			} else {
				gv, gok := c.Get(k)
				wv, wok := ref.get(k)
				if gv != wv || gok != wok {
					t.Fatalf("round %d op %d: Get(%d) = %v,%v want %v,%v (capacity %d)", round, op, k, gv, gok, wv, wok, capacity)
				}
			}
			if c.Len() != len(ref.value) {
				t.Fatalf("round %d op %d: Len = %d want %d", round, op, c.Len(), len(ref.value))
			}
		}
	}
}

// millionOps is the timed workload: 1M random Gets and Puts on 300k keys, then 200k Puts of new keys.
func millionOps(get func(key int), put func(key, value int)) {
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 1000000; i++ {
		k := rng.Intn(300000)
		if i%3 == 0 {
			get(k)
		} else {
			put(k, i)
		}
	}
	// all keys equally hot: every eviction has many ties
	for i := 0; i < 200000; i++ {
		put(1000000+i, i)
	}
}

// lru is the baseline: a map and container/list LRU cache, O(1) per operation like an LFU cache done right.
type lru struct {
	capacity int
	order    *list.List
	at       map[int]*list.Element
}

type lruEntry struct{ key, value int }

func (c *lru) get(key int) {
	if e, ok := c.at[key]; ok {
		c.order.MoveToFront(e)
	}
}

func (c *lru) put(key, value int) {
	if e, ok := c.at[key]; ok {
		e.Value.(*lruEntry).value = value
		c.order.MoveToFront(e)
		return
	}
	if c.order.Len() == c.capacity {
		delete(c.at, c.order.Remove(c.order.Back()).(*lruEntry).key)
	}
	c.at[key] = c.order.PushFront(&lruEntry{key, value})
}

// k: an O(1) LFU cache runs within ~3x of the LRU baseline; one that scans for the victim is 1000s of times slower.
const k = 15

func TestMillionOpsFast(t *testing.T) {
	withinKOfBaseline(t, "1.2M operations", k,
		func() {
			c := &lru{capacity: 100000, order: list.New(), at: map[int]*list.Element{}}
			millionOps(c.get, c.put)
		},
		func() {
			c := New(100000)
			millionOps(func(key int) { c.Get(key) }, c.Put)
		})
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
