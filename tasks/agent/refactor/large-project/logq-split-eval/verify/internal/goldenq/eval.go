package goldenq

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode/utf8"

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

func (env *Env) evalExpr(e Expr, r *record.Record) (record.Value, error) {
	switch n := e.(type) {
	case *Lit:
		return n.V, nil
	case *Field:
		v, ok := r.Get(n.Name)
		if !ok {
			return record.NullValue(), nil
		}
		return v, nil
	case *Unary:
		x, err := env.evalExpr(n.X, r)
		if err != nil {
			return x, err
		}
		if n.Op == "not" {
			return record.BoolValue(!x.Truthy()), nil
		}
		num, ok := x.AsNumber()
		if !ok {
			return record.NullValue(), nil
		}
		return record.NumberValue(-num), nil
	case *Binary:
		if n.Op == "and" || n.Op == "or" {
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
		l, err := env.evalExpr(n.L, r)
		if err != nil {
			return l, err
		}
		rv, err := env.evalExpr(n.R, r)
		if err != nil {
			return rv, err
		}
		switch n.Op {
		case "==", "!=":
			eq := false
			if l.Kind == record.Null || rv.Kind == record.Null {
				eq = l.Kind == rv.Kind
			} else if l.Kind == record.Number || rv.Kind == record.Number {
				a, okA := l.AsNumber()
				b, okB := rv.AsNumber()
				eq = okA && okB && a == b
			} else if l.Kind == rv.Kind {
				eq = record.Compare(l, rv) == 0
			} else {
				eq = l.Text() == rv.Text()
			}
			if n.Op == "!=" {
				return record.BoolValue(!eq), nil
			}
			return record.BoolValue(eq), nil
		case "<", "<=", ">", ">=":
			var c int
			if l.Kind == record.Null || rv.Kind == record.Null {
				return record.BoolValue(false), nil
			} else if l.Kind == record.Number || rv.Kind == record.Number {
				a, okA := l.AsNumber()
				b, okB := rv.AsNumber()
				if !okA || !okB {
					return record.BoolValue(false), nil
				}
				switch {
				case a < b:
					c = -1
				case a > b:
					c = 1
				}
			} else if l.Kind == record.String && rv.Kind == record.String {
				c = strings.Compare(l.S, rv.S)
			} else {
				return record.BoolValue(false), nil
			}
			switch n.Op {
			case "<":
				return record.BoolValue(c < 0), nil
			case "<=":
				return record.BoolValue(c <= 0), nil
			case ">":
				return record.BoolValue(c > 0), nil
			}
			return record.BoolValue(c >= 0), nil
		case "=~", "!~":
			re, ok := env.regexps[rv.S]
			if !ok {
				compiled, err := regexp.Compile(rv.S)
				if err != nil {
					return record.NullValue(), fmt.Errorf("bad regular expression %q: %v", rv.S, err)
				}
				env.regexps[rv.S] = compiled
				re = compiled
			}
			if l.Kind == record.Null {
				return record.BoolValue(n.Op == "!~"), nil
			}
			return record.BoolValue(re.MatchString(l.Text()) == (n.Op == "=~")), nil
		case "contains":
			if l.Kind == record.Null || rv.Kind == record.Null {
				return record.BoolValue(false), nil
			}
			return record.BoolValue(strings.Contains(l.Text(), rv.Text())), nil
		case "startswith":
			if l.Kind == record.Null || rv.Kind == record.Null {
				return record.BoolValue(false), nil
			}
			return record.BoolValue(strings.HasPrefix(l.Text(), rv.Text())), nil
		case "+", "-", "*", "/", "%":
			a, okA := l.AsNumber()
			b, okB := rv.AsNumber()
			if !okA || !okB || l.Kind == record.Null || rv.Kind == record.Null {
				return record.NullValue(), nil
			}
			switch n.Op {
			case "+":
				return record.NumberValue(a + b), nil
			case "-":
				return record.NumberValue(a - b), nil
			case "*":
				return record.NumberValue(a * b), nil
			case "/":
				if b == 0 {
					return record.NullValue(), nil
				}
				return record.NumberValue(a / b), nil
			}
			if b == 0 {
				return record.NullValue(), nil
			}
			return record.NumberValue(math.Mod(a, b)), nil
		}
		return record.NullValue(), fmt.Errorf("unknown operator %q", n.Op)
	case *In:
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
			eq, err := env.evalExpr(&Binary{Op: "==", L: &Lit{V: x}, R: &Lit{V: v}}, r)
			if err != nil {
				return eq, err
			}
			if eq.B {
				found = true
				break
			}
		}
		return record.BoolValue(found != n.Not), nil
	case *Call:
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
		switch n.Name {
		case "lower", "upper":
			if args[0].Kind == record.Null {
				return args[0], nil
			}
			if n.Name == "lower" {
				return record.StringValue(strings.ToLower(args[0].Text())), nil
			}
			return record.StringValue(strings.ToUpper(args[0].Text())), nil
		case "len":
			if args[0].Kind == record.Null {
				return record.NumberValue(0), nil
			}
			return record.NumberValue(float64(utf8.RuneCountInString(args[0].Text()))), nil
		case "coalesce":
			for _, a := range args {
				if a.Kind != record.Null {
					return a, nil
				}
			}
			return record.NullValue(), nil
		case "round":
			x, ok := args[0].AsNumber()
			if !ok || args[0].Kind == record.Null {
				return record.NullValue(), nil
			}
			digits := 0.0
			if len(args) == 2 {
				d, ok := args[1].AsNumber()
				if !ok {
					return record.NullValue(), nil
				}
				digits = math.Trunc(d)
			}
			scale := math.Pow(10, digits)
			return record.NumberValue(math.Round(x*scale) / scale), nil
		case "abs":
			x, ok := args[0].AsNumber()
			if !ok || args[0].Kind == record.Null {
				return record.NullValue(), nil
			}
			return record.NumberValue(math.Abs(x)), nil
		case "str":
			if args[0].Kind == record.Null {
				return args[0], nil
			}
			return record.StringValue(args[0].Text()), nil
		case "num":
			x, ok := args[0].AsNumber()
			if !ok || args[0].Kind == record.Null {
				return record.NullValue(), nil
			}
			return record.NumberValue(x), nil
		}
		return record.NullValue(), fmt.Errorf("unknown function %q", n.Name)
	}
	return record.NullValue(), fmt.Errorf("cannot evaluate %T", e)
}
