// Package query parses and runs logq pipelines:
//
//	where level == "error" and latency_ms > 250 | stats count(), avg(latency_ms) as avg by service | sort count desc | limit 5
//
// Stages: where EXPR, fields a, b, stats AGG[ as NAME], ... [by FIELD, ...], sort FIELD [asc|desc], ...,
// limit N (head N is the same). Expressions: literals (numbers, "strings", true, false, null), field names
// (`http.status`), comparisons == != < <= > >=, regex match =~ !~, contains,
// startswith, in (a, b, ...), not in (...), and, or, not, arithmetic + - * / %, unary minus, and functions
// lower, upper, len, exists, coalesce, round, abs, str, num.
package query

import (
	"fmt"
	"strconv"
	"strings"

	"example.com/logq/internal/record"
)

// Expr is an expression node.
type Expr interface{ String() string }

type Lit struct{ V record.Value }
type Field struct{ Name string }
type Unary struct {
	Op string // "not" or "-"
	X  Expr
}
type Binary struct {
	Op   string
	L, R Expr
}
type In struct {
	X    Expr
	List []Expr
	Not  bool
}
type Call struct {
	Name string
	Args []Expr
}

func (l *Lit) String() string {
	if l.V.Kind == record.String {
		return strconv.Quote(l.V.S)
	}
	if l.V.Kind == record.Null {
		return "null"
	}
	return l.V.Text()
}
func (f *Field) String() string { return f.Name }
func (u *Unary) String() string {
	if u.Op == "not" {
		return "not " + u.X.String()
	}
	return "-" + u.X.String()
}
func (b *Binary) String() string { return "(" + b.L.String() + " " + b.Op + " " + b.R.String() + ")" }
func (in *In) String() string {
	parts := make([]string, len(in.List))
	for i, e := range in.List {
		parts[i] = e.String()
	}
	op := " in ("
	if in.Not {
		op = " not in ("
	}
	return in.X.String() + op + strings.Join(parts, ", ") + ")"
}
func (c *Call) String() string {
	parts := make([]string, len(c.Args))
	for i, e := range c.Args {
		parts[i] = e.String()
	}
	return c.Name + "(" + strings.Join(parts, ", ") + ")"
}

// Stage is one step of a pipeline.
type Stage interface{ stage() }

type Where struct{ Cond Expr }
type Fields struct{ Names []string }
type Agg struct {
	Func  string // count sum avg min max distinct
	Arg   Expr   // nil for count()
	Alias string
}
type Stats struct {
	Aggs []Agg
	By   []string
}
type SortKey struct {
	Name string
	Desc bool
}
type Sort struct{ Keys []SortKey }
type Limit struct{ N int }

func (*Where) stage()  {}
func (*Fields) stage() {}
func (*Stats) stage()  {}
func (*Sort) stage()   {}
func (*Limit) stage()  {}

// Name is the output column name of an aggregate: its alias or `func(arg)`.
func (a Agg) Name() string {
	if a.Alias != "" {
		return a.Alias
	}
	if a.Arg == nil {
		return a.Func + "()"
	}
	return fmt.Sprintf("%s(%s)", a.Func, a.Arg.String())
}

// Pipeline is a parsed query.
type Pipeline struct{ Stages []Stage }
