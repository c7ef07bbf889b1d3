package queue

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"sync"
)

// LoadJobs reads a job list: one `id path` pair per line; blank lines and # comments are skipped.
func LoadJobs(path string) ([]Job, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var jobs []Job
	scanner := bufio.NewScanner(f)
	line := 0
	for scanner.Scan() {
		line++
		text := strings.TrimSpace(scanner.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: want `id path`, got %q", path, line, text)
		}
		jobs = append(jobs, Job{ID: fields[0], Path: fields[1]})
	}
	return jobs, scanner.Err()
}

// WriteReport writes one line per result, sorted by job ID; it returns the first write error.
func WriteReport(path string, results map[string]Result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, id := range sortedIDs(results) {
		if _, err := fmt.Fprintln(w, results[id].String()); err != nil {
			break
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Notifier fans results out to subscribers; Close stops it.
type Notifier struct {
	mu   sync.Mutex
	subs []chan Result
	done chan struct{}
}

func NewNotifier() *Notifier { return &Notifier{done: make(chan struct{})} }

// Subscribe returns a channel that receives every published result.
func (n *Notifier) Subscribe() <-chan Result {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch := make(chan Result, 16)
	n.subs = append(n.subs, ch)
	return ch
}

// Publish sends r to every subscriber.
func (n *Notifier) Publish(r Result) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, ch := range n.subs {
		ch <- r
	}
}

// Close ends every subscription.
func (n *Notifier) Close() {
	close(n.done)
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, ch := range n.subs {
		close(ch)
	}
}
