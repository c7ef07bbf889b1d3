package query

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"example.com/logq/internal/record"
)

// builtins maps a function name to its implementation; arguments are already evaluated.
var builtins = map[string]func(args []record.Value) record.Value{
	"lower":    func(a []record.Value) record.Value { return mapText(a[0], strings.ToLower) },
	"upper":    func(a []record.Value) record.Value { return mapText(a[0], strings.ToUpper) },
	"len":      length,
	"coalesce": coalesce,
	"round":    round,
	"abs":      numeric(math.Abs),
	"str":      func(a []record.Value) record.Value { return mapText(a[0], func(s string) string { return s }) },
	"num":      numeric(func(x float64) float64 { return x }),
}

// evalCall evaluates a function call; exists() looks at the field itself, not at its value.
func (env *Env) evalCall(n *Call, r *record.Record) (record.Value, error) {
	if n.Name == "exists" {
		_, ok := r.Get(n.Args[0].(*Field).Name)
		return record.BoolValue(ok), nil
	}
	args := make([]record.Value, len(n.Args))
	for i, a := range n.Args {
		v, err := env.evalExpr(a, r)
		if err != nil {
			return v, err
		}
		args[i] = v
	}
	if fn, ok := builtins[n.Name]; ok {
		return fn(args), nil
	}
	return record.NullValue(), fmt.Errorf("unknown function %q", n.Name)
}

// mapText applies f to the text form of a non-null value.
func mapText(v record.Value, f func(string) string) record.Value {
	if v.Kind == record.Null {
		return v
	}
	return record.StringValue(f(v.Text()))
}

// numeric lifts a float function: null for null or non-numeric arguments.
func numeric(f func(float64) float64) func([]record.Value) record.Value {
	return func(a []record.Value) record.Value {
		x, ok := number(a[0])
		if !ok {
			return record.NullValue()
		}
		return record.NumberValue(f(x))
	}
}

func length(a []record.Value) record.Value {
	if a[0].Kind == record.Null {
		return record.NumberValue(0)
	}
	return record.NumberValue(float64(utf8.RuneCountInString(a[0].Text())))
}

func coalesce(a []record.Value) record.Value {
	for _, v := range a {
		if v.Kind != record.Null {
			return v
		}
	}
	return record.NullValue()
}

func round(a []record.Value) record.Value {
	x, ok := number(a[0])
	if !ok {
		return record.NullValue()
	}
	digits := 0.0
	if len(a) == 2 {
		d, ok := a[1].AsNumber()
		if !ok {
			return record.NullValue()
		}
		digits = math.Trunc(d)
	}
	scale := math.Pow(10, digits)
	return record.NumberValue(math.Round(x*scale) / scale)
}
