package output

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"strings"

	"example.com/logq/internal/query"
	"example.com/logq/internal/record"
)

// jsonValue renders a value as JSON text; numbers use the shortest form, integers without exponent.
func jsonValue(v record.Value) string {
	if v.Kind == record.Number && (math.IsNaN(v.N) || math.IsInf(v.N, 0)) {
		return "null"
	}
	if text, ok := scalarText(v, "null"); ok {
		return text
	}
	text, _ := json.Marshal(v.S)
	return string(text)
}

// WriteJSON writes one JSON object per row, keys in column order.
func WriteJSON(w io.Writer, res *query.Result) error {
	out := bufio.NewWriter(w)
	for _, r := range res.Rows {
		parts := make([]string, len(res.Columns))
		for c, v := range cellsOf(r, res.Columns) {
			key, _ := json.Marshal(res.Columns[c])
			parts[c] = string(key) + ":" + jsonValue(v)
		}
		out.WriteString("{" + strings.Join(parts, ",") + "}\n")
	}
	return out.Flush()
}
