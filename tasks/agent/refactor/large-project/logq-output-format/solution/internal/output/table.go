// Package output writes query results as an aligned text table, CSV or JSON lines.
package output

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"

	"example.com/logq/internal/query"
	"example.com/logq/internal/record"
)

// tableCell renders a value for the table: numbers without trailing zeros, booleans as words, null as "-".
func tableCell(v record.Value) string {
	if text, ok := scalarText(v, "-"); ok {
		return text
	}
	text := strings.ReplaceAll(v.S, "\n", `\n`)
	return strings.ReplaceAll(text, "\t", `\t`)
}

// layout renders every cell and works out column widths and which columns are numeric (all numbers or
// nulls, with at least one row).
func layout(res *query.Result) (cells [][]string, widths []int, numeric []bool) {
	cells = make([][]string, len(res.Rows))
	widths = make([]int, len(res.Columns))
	numeric = make([]bool, len(res.Columns))
	for c, name := range res.Columns {
		widths[c] = utf8.RuneCountInString(name)
		numeric[c] = len(res.Rows) > 0
	}
	for i, r := range res.Rows {
		cells[i] = make([]string, len(res.Columns))
		for c, v := range cellsOf(r, res.Columns) {
			cells[i][c] = tableCell(v)
			if n := utf8.RuneCountInString(cells[i][c]); n > widths[c] {
				widths[c] = n
			}
			if v.Kind != record.Number && v.Kind != record.Null {
				numeric[c] = false
			}
		}
	}
	return cells, widths, numeric
}

// WriteTable prints a header, a dashed rule and one line per row; numeric columns are right-aligned.
func WriteTable(w io.Writer, res *query.Result) error {
	out := bufio.NewWriter(w)
	cells, widths, numeric := layout(res)
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
