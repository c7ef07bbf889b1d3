// Package record holds parsed log records and the dynamically typed values in their fields.
package record

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Kind is the type of a Value.
type Kind int

const (
	Null Kind = iota
	Bool
	Number
	String
)

// Value is a field value: null, boolean, number (float64) or string.
type Value struct {
	Kind Kind
	B    bool
	N    float64
	S    string
}

func NullValue() Value            { return Value{Kind: Null} }
func BoolValue(b bool) Value      { return Value{Kind: Bool, B: b} }
func NumberValue(n float64) Value { return Value{Kind: Number, N: n} }
func StringValue(s string) Value  { return Value{Kind: String, S: s} }

// Infer turns raw text (from logfmt) into a number or boolean when it looks like one.
func Infer(text string) Value {
	switch text {
	case "true":
		return BoolValue(true)
	case "false":
		return BoolValue(false)
	case "null":
		return NullValue()
	}
	if n, err := strconv.ParseFloat(text, 64); err == nil && !math.IsInf(n, 0) && !math.IsNaN(n) &&
		!strings.HasPrefix(text, "+") && !strings.ContainsAny(text, "xXpP_") {
		return NumberValue(n)
	}
	return StringValue(text)
}

// Text renders the value for output: numbers without trailing zeros, null as "".
func (v Value) Text() string {
	switch v.Kind {
	case Bool:
		return strconv.FormatBool(v.B)
	case Number:
		if v.N == math.Trunc(v.N) && math.Abs(v.N) < 1e15 {
			return strconv.FormatFloat(v.N, 'f', -1, 64)
		}
		return strconv.FormatFloat(v.N, 'g', -1, 64)
	case String:
		return v.S
	}
	return ""
}

// Truthy: false, null, 0 and "" are false; everything else is true.
func (v Value) Truthy() bool {
	switch v.Kind {
	case Bool:
		return v.B
	case Number:
		return v.N != 0
	case String:
		return v.S != ""
	}
	return false
}

// AsNumber converts numbers, numeric strings and booleans; ok is false otherwise.
func (v Value) AsNumber() (float64, bool) {
	switch v.Kind {
	case Number:
		return v.N, true
	case Bool:
		if v.B {
			return 1, true
		}
		return 0, true
	case String:
		n, err := strconv.ParseFloat(strings.TrimSpace(v.S), 64)
		return n, err == nil
	}
	return 0, false
}

// Compare orders values: null < bool < number < string; -1, 0 or 1.
func Compare(a, b Value) int {
	if a.Kind != b.Kind {
		if a.Kind < b.Kind {
			return -1
		}
		return 1
	}
	switch a.Kind {
	case Bool:
		if a.B == b.B {
			return 0
		}
		if !a.B {
			return -1
		}
		return 1
	case Number:
		if a.N < b.N {
			return -1
		}
		if a.N > b.N {
			return 1
		}
		return 0
	case String:
		return strings.Compare(a.S, b.S)
	}
	return 0
}

// Record is one log line: its fields in order of appearance.
type Record struct {
	Fields map[string]Value
	Order  []string
	Line   int
}

// New returns an empty record for line n.
func New(line int) *Record {
	return &Record{Fields: map[string]Value{}, Line: line}
}

// Set adds or replaces a field (a replaced field keeps its position).
func (r *Record) Set(name string, v Value) {
	if _, ok := r.Fields[name]; !ok {
		r.Order = append(r.Order, name)
	}
	r.Fields[name] = v
}

// Get returns the field's value, or null.
func (r *Record) Get(name string) (Value, bool) {
	v, ok := r.Fields[name]
	return v, ok
}

// SortedNames lists the field names alphabetically.
func (r *Record) SortedNames() []string {
	names := append([]string(nil), r.Order...)
	sort.Strings(names)
	return names
}
