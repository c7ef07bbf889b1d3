// Package queue runs batches of jobs on a fixed pool of workers and collects their results.
package queue

import (
	"fmt"
	"time"
)

// Job is one unit of work: a file to checksum.
type Job struct {
	ID   string
	Path string
}

// Result is what a worker produced for a job.
type Result struct {
	JobID    string
	Checksum string
	Bytes    int64
	Took     time.Duration
	Err      error
}

func (r Result) String() string {
	if r.Err != nil {
		return fmt.Sprintf("%s: error: %v", r.JobID, r.Err)
	}
	return fmt.Sprintf("%s: %s (%d bytes, %v)", r.JobID, r.Checksum, r.Bytes, r.Took.Round(time.Millisecond))
}
