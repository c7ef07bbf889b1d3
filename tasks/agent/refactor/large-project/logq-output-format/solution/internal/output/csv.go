package output

import (
	"encoding/csv"
	"io"

	"example.com/logq/internal/query"
	"example.com/logq/internal/record"
)

// csvField renders a value for CSV: numbers without trailing zeros, null as an empty field.
func csvField(v record.Value) string {
	if text, ok := scalarText(v, ""); ok {
		return text
	}
	return v.S
}

// WriteCSV writes a header row and one record per row (RFC 4180 quoting).
func WriteCSV(w io.Writer, res *query.Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(res.Columns); err != nil {
		return err
	}
	for _, r := range res.Rows {
		fields := make([]string, len(res.Columns))
		for c, v := range cellsOf(r, res.Columns) {
			fields[c] = csvField(v)
		}
		if err := cw.Write(fields); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
