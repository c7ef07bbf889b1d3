package queue

import (
	"context"
	"errors"
	"sync"
)

// Pool runs jobs with a fixed number of workers.
type Pool struct {
	Workers int
	// Process is called for every job; defaults to checksumming the job's file.
	Process func(Job) Result

	mu       sync.Mutex
	finished int
}

// Finished is how many jobs completed since the pool was created.
func (p *Pool) Finished() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.finished
}

func (p *Pool) process(job Job) Result {
	if p.Process != nil {
		return p.Process(job)
	}
	return checksum(job)
}

// Run processes all jobs and returns the results keyed by job ID. It stops early when ctx is cancelled
// and then returns ctx.Err() together with the results gathered so far.
func (p *Pool) Run(ctx context.Context, jobs []Job) (map[string]Result, error) {
	if p.Workers <= 0 {
		return nil, errors.New("queue: pool needs at least one worker")
	}
	queue := make(chan Job)
	results := make(chan Result)
	var wg sync.WaitGroup
	for i := 0; i < p.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range queue {
				results <- p.process(job)
			}
		}()
	}
	go func() {
		defer close(queue)
		for _, job := range jobs {
			select {
			case queue <- job:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	collected := map[string]Result{}
	for {
		select {
		case r, ok := <-results:
			if !ok {
				return collected, nil
			}
			collected[r.JobID] = r
			p.mu.Lock()
			p.finished++
			p.mu.Unlock()
		case <-ctx.Done():
			return collected, ctx.Err()
		}
	}
}

// RunEach starts one goroutine per job (for small batches where a pool is overkill) and calls onResult
// for every result as it arrives.
func (p *Pool) RunEach(jobs []Job, onResult func(Result)) {
	var wg sync.WaitGroup
	seen := map[string]bool{}
	for _, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := p.process(job)
			seen[r.JobID] = true
			onResult(r)
		}()
	}
	wg.Wait()
}

// RunWithRetry processes one job up to attempts times and returns the last result and its error.
func (p *Pool) RunWithRetry(job Job, attempts int) (Result, error) {
	var r Result
	var err error
	for i := 0; i < attempts; i++ {
		r := p.process(job)
		if r.Err == nil {
			return r, nil
		}
		err = r.Err
	}
	return r, err
}
