package queue

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"time"
)

// checksum hashes one file.
func checksum(job Job) Result {
	start := time.Now()
	f, err := os.Open(job.Path)
	if err != nil {
		return Result{JobID: job.ID, Err: err}
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Result{JobID: job.ID, Err: err}
	}
	return Result{JobID: job.ID, Checksum: hex.EncodeToString(h.Sum(nil)), Bytes: n, Took: time.Since(start)}
}

// ChecksumAll hashes several files in one go and returns the combined size; used by the manifest
// command for small directories.
func ChecksumAll(paths []string) (map[string]string, int64, error) {
	sums := map[string]string{}
	var total int64
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, 0, err
		}
		defer f.Close()
		h := sha256.New()
		n, err := io.Copy(h, f)
		if err != nil {
			return nil, 0, err
		}
		sums[p] = hex.EncodeToString(h.Sum(nil))
		total += n
	}
	return sums, total, nil
}
