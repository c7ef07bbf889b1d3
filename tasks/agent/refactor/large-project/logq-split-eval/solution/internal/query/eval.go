package query

import (
	"fmt"
	"regexp"

	"example.com/logq/internal/record"
)

// Env evaluates expressions; it caches compiled regular expressions.
type Env struct {
	regexps map[string]*regexp.Regexp
}

// NewEnv returns an evaluator.
func NewEnv() *Env { return &Env{regexps: map[string]*regexp.Regexp{}} }

// Eval computes the value of e for record r. Errors are only for invalid regular expressions.
func (env *Env) Eval(e Expr, r *record.Record) (record.Value, error) {
	return env.evalExpr(e, r)
}

// evalExpr dispatches on the node type; the work happens in logic.go, compare.go, match.go, arith.go and
// funcs.go.
func (env *Env) evalExpr(e Expr, r *record.Record) (record.Value, error) {
	switch n := e.(type) {
	case *Lit:
		return n.V, nil
	case *Field:
		if v, ok := r.Get(n.Name); ok {
			return v, nil
		}
		return record.NullValue(), nil
	case *Unary:
		return env.evalUnary(n, r)
	case *Binary:
		return env.evalBinary(n, r)
	case *In:
		return env.evalIn(n, r)
	case *Call:
		return env.evalCall(n, r)
	}
	return record.NullValue(), fmt.Errorf("cannot evaluate %T", e)
}

func (env *Env) evalUnary(n *Unary, r *record.Record) (record.Value, error) {
	x, err := env.evalExpr(n.X, r)
	if err != nil {
		return x, err
	}
	if n.Op == "not" {
		return record.BoolValue(!x.Truthy()), nil
	}
	return negate(x), nil
}

// evalBinary evaluates both operands (except for the short-circuiting and/or) and applies the operator.
func (env *Env) evalBinary(n *Binary, r *record.Record) (record.Value, error) {
	if n.Op == "and" || n.Op == "or" {
		return env.evalLogical(n, r)
	}
	l, err := env.evalExpr(n.L, r)
	if err != nil {
		return l, err
	}
	rv, err := env.evalExpr(n.R, r)
	if err != nil {
		return rv, err
	}
	switch n.Op {
	case "==", "!=", "<", "<=", ">", ">=":
		return compareOp(n.Op, l, rv), nil
	case "=~", "!~", "contains", "startswith":
		return env.matchOp(n.Op, l, rv)
	case "+", "-", "*", "/", "%":
		return arith(n.Op, l, rv), nil
	}
	return record.NullValue(), fmt.Errorf("unknown operator %q", n.Op)
}
