package query

import (
	"math"

	"example.com/logq/internal/record"
)

// number converts a non-null value to a float; ok is false for null and non-numeric values.
func number(v record.Value) (float64, bool) {
	if v.Kind == record.Null {
		return 0, false
	}
	return v.AsNumber()
}

// arith applies + - * / %; null when an operand is not a number or a divisor is zero.
func arith(op string, l, r record.Value) record.Value {
	a, okA := number(l)
	b, okB := number(r)
	if !okA || !okB {
		return record.NullValue()
	}
	switch op {
	case "+":
		return record.NumberValue(a + b)
	case "-":
		return record.NumberValue(a - b)
	case "*":
		return record.NumberValue(a * b)
	}
	if b == 0 {
		return record.NullValue()
	}
	if op == "/" {
		return record.NumberValue(a / b)
	}
	return record.NumberValue(math.Mod(a, b))
}

// negate is unary minus: null unless the value converts to a number.
func negate(x record.Value) record.Value {
	num, ok := x.AsNumber()
	if !ok {
		return record.NullValue()
	}
	return record.NumberValue(-num)
}
