// Package input reads log lines (JSON objects or logfmt, detected per line) into records.
package input

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"example.com/logq/internal/record"
)

// Options control how lines are read.
type Options struct {
	Strict bool   // stop at the first bad line instead of skipping it
	Format string // "auto", "json" or "logfmt"
}

// Result holds the records and the problems with skipped lines.
type Result struct {
	Records []*record.Record
	Skipped []string
}

// ParseLine parses one line in the given format ("auto" looks at the first character).
func ParseLine(line string, n int, format string) (*record.Record, error) {
	trimmed := strings.TrimSpace(line)
	switch {
	case format == "json" || (format == "auto" && strings.HasPrefix(trimmed, "{")):
		return ParseJSON(trimmed, n)
	case format == "logfmt" || format == "auto":
		return ParseLogfmt(trimmed, n)
	}
	return nil, fmt.Errorf("unknown input format %q", format)
}

// Read parses every non-empty line.
func Read(r io.Reader, opts Options) (*Result, error) {
	if opts.Format == "" {
		opts.Format = "auto"
	}
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64*1024), 16*1024*1024)
	res := &Result{}
	n := 0
	for scanner.Scan() {
		n++
		line := scanner.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		rec, err := ParseLine(line, n, opts.Format)
		if err != nil {
			if opts.Strict {
				return nil, err
			}
			res.Skipped = append(res.Skipped, err.Error())
			continue
		}
		res.Records = append(res.Records, rec)
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	return res, nil
}
