// Command runjobs checksums the files listed in a job file: runjobs [-workers N] [-timeout 30s] JOBS REPORT
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"example.com/jobqueue/queue"
)

func main() {
	workers := flag.Int("workers", 4, "parallel workers")
	timeout := flag.Duration("timeout", 30*time.Second, "give up after this long")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: runjobs [-workers N] [-timeout D] JOBS REPORT")
		os.Exit(2)
	}
	jobs, err := queue.LoadJobs(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "runjobs:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	pool := &queue.Pool{Workers: *workers}
	results, runErr := pool.Run(ctx, jobs)
	if err := queue.WriteReport(flag.Arg(1), results); err != nil {
		fmt.Fprintln(os.Stderr, "runjobs:", err)
		os.Exit(1)
	}
	if runErr != nil {
		fmt.Fprintf(os.Stderr, "runjobs: stopped early: %v (%d of %d done)\n", runErr, len(results), len(jobs))
		os.Exit(1)
	}
}
