package output

import (
	"strconv"

	"example.com/logq/internal/record"
)

// scalarText renders a null, boolean or number the same way for every writer (null as the writer's own
// marker); ok is false for strings, whose escaping is each format's business.
func scalarText(v record.Value, null string) (string, bool) {
	switch v.Kind {
	case record.Null:
		return null, true
	case record.Bool:
		return strconv.FormatBool(v.B), true
	case record.Number:
		return record.FormatNumber(v.N), true
	}
	return "", false
}

// cellsOf returns the value of every column for one row (missing fields are null).
func cellsOf(r *record.Record, columns []string) []record.Value {
	values := make([]record.Value, len(columns))
	for c, name := range columns {
		values[c], _ = r.Get(name)
	}
	return values
}
