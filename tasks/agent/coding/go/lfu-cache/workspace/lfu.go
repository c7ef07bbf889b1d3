// Package lfu is a least-frequently-used cache.
package lfu

// Cache evicts the least frequently used key (least recently used among ties).
type Cache struct {
}

// New returns an empty cache that holds at most capacity keys.
func New(capacity int) *Cache {
	panic("not implemented")
}

// Get returns the value stored for key and counts one use of it.
func (c *Cache) Get(key int) (int, bool) {
	panic("not implemented")
}

// Put stores value under key, evicting a key first when the cache is full.
func (c *Cache) Put(key, value int) {
	panic("not implemented")
}

// Len is the number of keys stored.
func (c *Cache) Len() int {
	panic("not implemented")
}
