// Package output writes query results as an aligned text table, CSV or JSON lines.
package output

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"example.com/logq/internal/query"
	"example.com/logq/internal/record"
)

// tableCell renders a value for the table: numbers without trailing zeros, booleans as words, null as "-".
func tableCell(v record.Value) string {
	switch v.Kind {
	case record.Null:
		return "-"
	case record.Bool:
		if v.B {
			return "true"
		}
		return "false"
	case record.Number:
		if v.N == math.Trunc(v.N) && math.Abs(v.N) < 1e15 {
			return strconv.FormatFloat(v.N, 'f', -1, 64)
		}
		return strconv.FormatFloat(v.N, 'g', -1, 64)
	}
	text := strings.ReplaceAll(v.S, "\n", `\n`)
	return strings.ReplaceAll(text, "\t", `\t`)
}

// WriteTable prints a header, a dashed rule and one line per row; numeric columns are right-aligned.
func WriteTable(w io.Writer, res *query.Result) error {
	out := bufio.NewWriter(w)
	cells := make([][]string, len(res.Rows))
	widths := make([]int, len(res.Columns))
	numeric := make([]bool, len(res.Columns))
	for c, name := range res.Columns {
		widths[c] = utf8.RuneCountInString(name)
		numeric[c] = len(res.Rows) > 0
	}
	for i, r := range res.Rows {
		cells[i] = make([]string, len(res.Columns))
		for c, name := range res.Columns {
			v, _ := r.Get(name)
			cells[i][c] = tableCell(v)
			if n := utf8.RuneCountInString(cells[i][c]); n > widths[c] {
				widths[c] = n
			}
			if v.Kind != record.Number && v.Kind != record.Null {
				numeric[c] = false
			}
		}
	}
	line := func(values []string) {
		parts := make([]string, len(values))
		for c, text := range values {
			pad := strings.Repeat(" ", widths[c]-utf8.RuneCountInString(text))
			if numeric[c] {
				parts[c] = pad + text
			} else {
				parts[c] = text + pad
			}
		}
		out.WriteString(strings.TrimRight(strings.Join(parts, "  "), " ") + "\n")
	}
	line(res.Columns)
	rule := make([]string, len(widths))
	for c, n := range widths {
		rule[c] = strings.Repeat("-", n)
	}
	out.WriteString(strings.Join(rule, "  ") + "\n")
	for _, row := range cells {
		line(row)
	}
	return out.Flush()
}
