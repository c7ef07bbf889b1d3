package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"example.com/logq/internal/record"
)

// ParseJSON reads one JSON object; nested objects are flattened with dots (`http.status`), arrays are
// kept as their JSON text.
func ParseJSON(line string, n int) (*record.Record, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(line)))
	dec.UseNumber()
	var obj map[string]interface{}
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("line %d: invalid JSON: %v", n, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("line %d: trailing data after the JSON object", n)
	}
	r := record.New(n)
	flatten(r, "", obj)
	return r, nil
}

func flatten(r *record.Record, prefix string, obj map[string]interface{}) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		switch v := obj[k].(type) {
		case map[string]interface{}:
			flatten(r, name, v)
		case json.Number:
			f, err := v.Float64()
			if err != nil {
				r.Set(name, record.StringValue(v.String()))
			} else {
				r.Set(name, record.NumberValue(f))
			}
		case string:
			r.Set(name, record.StringValue(v))
		case bool:
			r.Set(name, record.BoolValue(v))
		case nil:
			r.Set(name, record.NullValue())
		default:
			text, _ := json.Marshal(v)
			r.Set(name, record.StringValue(string(text)))
		}
	}
}
