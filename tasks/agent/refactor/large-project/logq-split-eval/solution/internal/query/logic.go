package query

import "example.com/logq/internal/record"

// evalLogical evaluates `and` / `or` with short-circuiting; the result is always a boolean.
func (env *Env) evalLogical(n *Binary, r *record.Record) (record.Value, error) {
	l, err := env.evalExpr(n.L, r)
	if err != nil {
		return l, err
	}
	if n.Op == "and" && !l.Truthy() {
		return record.BoolValue(false), nil
	}
	if n.Op == "or" && l.Truthy() {
		return record.BoolValue(true), nil
	}
	rv, err := env.evalExpr(n.R, r)
	if err != nil {
		return rv, err
	}
	return record.BoolValue(rv.Truthy()), nil
}
