package output

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"example.com/logq/internal/query"
	"example.com/logq/internal/record"
)

// csvField renders a value for CSV: numbers without trailing zeros, null as an empty field.
func csvField(v record.Value) string {
	switch v.Kind {
	case record.Null:
		return ""
	case record.Bool:
		return strconv.FormatBool(v.B)
	case record.Number:
		if v.N == math.Trunc(v.N) && math.Abs(v.N) < 1e15 {
			return strconv.FormatFloat(v.N, 'f', -1, 64)
		}
		return strconv.FormatFloat(v.N, 'g', -1, 64)
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
		for c, name := range res.Columns {
			v, _ := r.Get(name)
			fields[c] = csvField(v)
		}
		if err := cw.Write(fields); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
