// Package lfu is a least-frequently-used cache.
package lfu

import "container/list"

type entry struct {
	key, value int
	freq       int
	bucket     *list.Element // element of freqs holding this entry's bucket
}

type bucket struct {
	freq  int
	items *list.List // front = most recently used
}

// Cache evicts the least frequently used key (least recently used among ties).
type Cache struct {
	capacity int
	items    map[int]*list.Element // key -> element in its bucket's items (Value *entry)
	freqs    *list.List            // buckets in increasing freq order (Value *bucket)
}

// New returns an empty cache that holds at most capacity keys.
func New(capacity int) *Cache {
	return &Cache{capacity: capacity, items: make(map[int]*list.Element), freqs: list.New()}
}

// touch moves an entry from its bucket to the bucket of freq+1.
func (c *Cache) touch(el *list.Element) *list.Element {
	e := el.Value.(*entry)
	cur := e.bucket
	b := cur.Value.(*bucket)
	next := cur.Next()
	if next == nil || next.Value.(*bucket).freq != e.freq+1 {
		next = c.freqs.InsertAfter(&bucket{freq: e.freq + 1, items: list.New()}, cur)
	}
	b.items.Remove(el)
	if b.items.Len() == 0 {
		c.freqs.Remove(cur)
	}
	e.freq++
	e.bucket = next
	newEl := next.Value.(*bucket).items.PushFront(e)
	c.items[e.key] = newEl
	return newEl
}

// Get returns the value stored for key and counts one use of it.
func (c *Cache) Get(key int) (int, bool) {
	el, ok := c.items[key]
	if !ok {
		return 0, false
	}
	el = c.touch(el)
	return el.Value.(*entry).value, true
}

// Put stores value under key, evicting a key first when the cache is full.
func (c *Cache) Put(key, value int) {
	if c.capacity <= 0 {
		return
	}
	if el, ok := c.items[key]; ok {
		el.Value.(*entry).value = value
		c.touch(el)
		return
	}
	if len(c.items) >= c.capacity {
		first := c.freqs.Front()
		b := first.Value.(*bucket)
		victim := b.items.Back()
		b.items.Remove(victim)
		delete(c.items, victim.Value.(*entry).key)
		if b.items.Len() == 0 {
			c.freqs.Remove(first)
		}
	}
	front := c.freqs.Front()
	if front == nil || front.Value.(*bucket).freq != 1 {
		front = c.freqs.PushFront(&bucket{freq: 1, items: list.New()})
	}
	e := &entry{key: key, value: value, freq: 1, bucket: front}
	c.items[key] = front.Value.(*bucket).items.PushFront(e)
}

// Len is the number of keys stored.
func (c *Cache) Len() int {
	return len(c.items)
}
