package output

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"

	"example.com/logq/internal/query"
	"example.com/logq/internal/record"
)

// jsonValue renders a value as JSON text; numbers use the shortest form, integers without exponent.
func jsonValue(v record.Value) string {
	switch v.Kind {
	case record.Null:
		return "null"
	case record.Bool:
		if v.B {
			return "true"
		}
		return "false"
	case record.Number:
		if math.IsNaN(v.N) || math.IsInf(v.N, 0) {
			return "null"
		}
		if v.N == math.Trunc(v.N) && math.Abs(v.N) < 1e15 {
			return strconv.FormatFloat(v.N, 'f', -1, 64)
		}
		return strconv.FormatFloat(v.N, 'g', -1, 64)
	}
	text, _ := json.Marshal(v.S)
	return string(text)
}

// WriteJSON writes one JSON object per row, keys in column order.
func WriteJSON(w io.Writer, res *query.Result) error {
	out := bufio.NewWriter(w)
	for _, r := range res.Rows {
		parts := make([]string, len(res.Columns))
		for c, name := range res.Columns {
			v, _ := r.Get(name)
			key, _ := json.Marshal(name)
			parts[c] = string(key) + ":" + jsonValue(v)
		}
		out.WriteString("{" + strings.Join(parts, ",") + "}\n")
	}
	return out.Flush()
}
