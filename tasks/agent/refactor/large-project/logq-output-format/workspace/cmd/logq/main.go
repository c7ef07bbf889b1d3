// Command logq filters and summarizes structured logs (JSON lines or logfmt).
//
//	logq [-f FILE]... [-o table|csv|json] [--format auto|json|logfmt] [--strict] 'QUERY'
//
// Example: logq -f app.log 'where level == "error" | stats count() by service | sort count() desc'
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"example.com/logq/internal/input"
	"example.com/logq/internal/output"
	"example.com/logq/internal/query"
)

type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(v string) error { *f = append(*f, v); return nil }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("logq", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var files fileList
	fs.Var(&files, "f", "log file to read (repeatable; default stdin)")
	format := fs.String("o", "table", "output: table, csv or json")
	inFormat := fs.String("format", "auto", "input: auto, json or logfmt")
	strict := fs.Bool("strict", false, "fail on lines that cannot be parsed")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "logq: give the query as one argument (quote it)")
		return 2
	}
	pl, err := query.Parse(strings.Join(fs.Args(), " "))
	if err != nil {
		fmt.Fprintln(stderr, "logq:", err)
		return 2
	}
	writers := map[string]func(io.Writer, *query.Result) error{
		"table": output.WriteTable, "csv": output.WriteCSV, "json": output.WriteJSON,
	}
	write, ok := writers[*format]
	if !ok {
		fmt.Fprintf(stderr, "logq: unknown output format %q\n", *format)
		return 2
	}
	var readers []io.Reader
	for _, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(stderr, "logq:", err)
			return 2
		}
		defer fh.Close()
		readers = append(readers, fh)
	}
	if len(readers) == 0 {
		readers = append(readers, stdin)
	}
	in, err := input.Read(io.MultiReader(readers...), input.Options{Strict: *strict, Format: *inFormat})
	if err != nil {
		fmt.Fprintln(stderr, "logq:", err)
		return 1
	}
	res, err := query.Run(pl, in.Records)
	if err != nil {
		var se *query.SyntaxError
		if errors.As(err, &se) {
			fmt.Fprintln(stderr, "logq:", err)
			return 2
		}
		fmt.Fprintln(stderr, "logq:", err)
		return 1
	}
	if err := write(stdout, res); err != nil {
		fmt.Fprintln(stderr, "logq:", err)
		return 1
	}
	if len(in.Skipped) > 0 {
		fmt.Fprintf(stderr, "logq: skipped %d unparsable line(s); first: %s\n", len(in.Skipped), in.Skipped[0])
	}
	return 0
}
