package query

import (
	"strings"

	"example.com/logq/internal/record"
)

// equal: null equals only null; a number on either side compares numerically; same kinds compare directly;
// other mixes compare their text.
func equal(l, r record.Value) bool {
	switch {
	case l.Kind == record.Null || r.Kind == record.Null:
		return l.Kind == r.Kind
	case l.Kind == record.Number || r.Kind == record.Number:
		a, okA := l.AsNumber()
		b, okB := r.AsNumber()
		return okA && okB && a == b
	case l.Kind == r.Kind:
		return record.Compare(l, r) == 0
	}
	return l.Text() == r.Text()
}

// order compares for < <= > >=; ok is false when the values are not comparable (null, non-numeric, bools).
func order(l, r record.Value) (int, bool) {
	switch {
	case l.Kind == record.Null || r.Kind == record.Null:
		return 0, false
	case l.Kind == record.Number || r.Kind == record.Number:
		a, okA := l.AsNumber()
		b, okB := r.AsNumber()
		if !okA || !okB {
			return 0, false
		}
		if a < b {
			return -1, true
		}
		if a > b {
			return 1, true
		}
		return 0, true
	case l.Kind == record.String && r.Kind == record.String:
		return strings.Compare(l.S, r.S), true
	}
	return 0, false
}

func compareOp(op string, l, r record.Value) record.Value {
	switch op {
	case "==":
		return record.BoolValue(equal(l, r))
	case "!=":
		return record.BoolValue(!equal(l, r))
	}
	c, ok := order(l, r)
	if !ok {
		return record.BoolValue(false)
	}
	switch op {
	case "<":
		return record.BoolValue(c < 0)
	case "<=":
		return record.BoolValue(c <= 0)
	case ">":
		return record.BoolValue(c > 0)
	}
	return record.BoolValue(c >= 0)
}

// evalIn: `x in (a, b, ...)` is true when x equals any item (all items are evaluated first).
func (env *Env) evalIn(n *In, r *record.Record) (record.Value, error) {
	x, err := env.evalExpr(n.X, r)
	if err != nil {
		return x, err
	}
	found := false
	for _, item := range n.List {
		v, err := env.evalExpr(item, r)
		if err != nil {
			return v, err
		}
		if equal(x, v) {
			found = true
			break
		}
	}
	return record.BoolValue(found != n.Not), nil
}
