package query

import (
	"fmt"
	"strings"

	"example.com/logq/internal/record"
)

type parser struct {
	toks []Token
	pos  int
}

// Parse turns a query into a pipeline. An empty query selects everything.
func Parse(src string) (*Pipeline, error) {
	toks, err := Lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	pl := &Pipeline{}
	if p.peek().Kind == TEOF {
		return pl, nil
	}
	for {
		st, err := p.stage()
		if err != nil {
			return nil, err
		}
		pl.Stages = append(pl.Stages, st)
		if p.isOp("|") {
			p.pos++
			continue
		}
		if p.peek().Kind != TEOF {
			return nil, p.errorf("expected '|' or the end of the query")
		}
		return pl, nil
	}
}

func (p *parser) peek() Token { return p.toks[p.pos] }
func (p *parser) next() Token {
	t := p.toks[p.pos]
	if t.Kind != TEOF {
		p.pos++
	}
	return t
}

func (p *parser) errorf(format string, args ...interface{}) error {
	return &SyntaxError{p.peek().Pos, fmt.Sprintf(format, args...)}
}

func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.Kind == TOp && t.Text == op
}

func (p *parser) isKeyword(word string) bool {
	t := p.peek()
	return t.Kind == TIdent && strings.EqualFold(t.Text, word)
}

func (p *parser) expectOp(op string) error {
	if !p.isOp(op) {
		return p.errorf("expected %q", op)
	}
	p.pos++
	return nil
}

func (p *parser) stage() (Stage, error) {
	t := p.next()
	if t.Kind != TIdent {
		return nil, &SyntaxError{t.Pos, "expected a stage (where, fields, stats, sort, limit)"}
	}
	switch strings.ToLower(t.Text) {
	case "where":
		cond, err := p.expr()
		if err != nil {
			return nil, err
		}
		return &Where{Cond: cond}, nil
	case "fields":
		names, err := p.names()
		if err != nil {
			return nil, err
		}
		return &Fields{Names: names}, nil
	case "stats":
		return p.stats()
	case "sort":
		return p.sortStage()
	case "limit", "head":
		n := p.next()
		if n.Kind != TNumber || n.Num < 0 || n.Num != float64(int(n.Num)) {
			return nil, &SyntaxError{n.Pos, "limit needs a whole number"}
		}
		return &Limit{N: int(n.Num)}, nil
	}
	return nil, &SyntaxError{t.Pos, fmt.Sprintf("unknown stage %q", t.Text)}
}

func (p *parser) names() ([]string, error) {
	var names []string
	for {
		t := p.next()
		if t.Kind != TIdent {
			return nil, &SyntaxError{t.Pos, "expected a field name"}
		}
		names = append(names, t.Text)
		if !p.isOp(",") {
			return names, nil
		}
		p.pos++
	}
}

var aggFuncs = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true, "distinct": true}

func (p *parser) stats() (Stage, error) {
	st := &Stats{}
	for {
		t := p.next()
		name := strings.ToLower(t.Text)
		if t.Kind != TIdent || !aggFuncs[name] {
			return nil, &SyntaxError{t.Pos, "expected an aggregate: count, sum, avg, min, max, distinct"}
		}
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		agg := Agg{Func: name}
		if !p.isOp(")") {
			arg, err := p.expr()
			if err != nil {
				return nil, err
			}
			agg.Arg = arg
		} else if name != "count" {
			return nil, p.errorf("%s() needs an argument", name)
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		if p.isKeyword("as") {
			p.pos++
			alias := p.next()
			if alias.Kind != TIdent {
				return nil, &SyntaxError{alias.Pos, "expected a name after 'as'"}
			}
			agg.Alias = alias.Text
		}
		st.Aggs = append(st.Aggs, agg)
		if !p.isOp(",") {
			break
		}
		p.pos++
	}
	if p.isKeyword("by") {
		p.pos++
		by, err := p.names()
		if err != nil {
			return nil, err
		}
		st.By = by
	}
	return st, nil
}

func (p *parser) sortStage() (Stage, error) {
	st := &Sort{}
	for {
		t := p.next()
		if t.Kind != TIdent {
			return nil, &SyntaxError{t.Pos, "expected a field name"}
		}
		key := SortKey{Name: t.Text}
		if p.isKeyword("desc") {
			key.Desc = true
			p.pos++
		} else if p.isKeyword("asc") {
			p.pos++
		}
		st.Keys = append(st.Keys, key)
		if !p.isOp(",") {
			return st, nil
		}
		p.pos++
	}
}

// Expression grammar, loosest first:
//
//	or  >  and  >  not  >  comparison  >  + -  >  * / %  >  unary -  >  primary
func (p *parser) expr() (Expr, error) { return p.or() }

func (p *parser) or() (Expr, error) {
	left, err := p.and()
	for err == nil && p.isKeyword("or") {
		p.pos++
		var right Expr
		if right, err = p.and(); err == nil {
			left = &Binary{Op: "or", L: left, R: right}
		}
	}
	return left, err
}

func (p *parser) and() (Expr, error) {
	left, err := p.not()
	for err == nil && p.isKeyword("and") {
		p.pos++
		var right Expr
		if right, err = p.not(); err == nil {
			left = &Binary{Op: "and", L: left, R: right}
		}
	}
	return left, err
}

func (p *parser) not() (Expr, error) {
	if p.isKeyword("not") {
		p.pos++
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &Unary{Op: "not", X: x}, nil
	}
	return p.comparison()
}

var comparisons = map[string]bool{"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true, "=~": true, "!~": true}

func (p *parser) comparison() (Expr, error) {
	left, err := p.additive()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch {
	case t.Kind == TOp && comparisons[t.Text]:
		p.pos++
		right, err := p.additive()
		if err != nil {
			return nil, err
		}
		if (t.Text == "=~" || t.Text == "!~") && !isStringLit(right) {
			return nil, &SyntaxError{t.Pos, t.Text + " needs a string literal pattern"}
		}
		return &Binary{Op: t.Text, L: left, R: right}, nil
	case p.isKeyword("contains") || p.isKeyword("startswith"):
		p.pos++
		right, err := p.additive()
		if err != nil {
			return nil, err
		}
		return &Binary{Op: strings.ToLower(t.Text), L: left, R: right}, nil
	case p.isKeyword("in"):
		p.pos++
		return p.inList(left, false)
	case p.isKeyword("not") && p.toks[p.pos+1].Kind == TIdent && strings.EqualFold(p.toks[p.pos+1].Text, "in"):
		p.pos += 2
		return p.inList(left, true)
	}
	return left, nil
}

func isStringLit(e Expr) bool {
	l, ok := e.(*Lit)
	return ok && l.V.Kind == record.String
}

func (p *parser) inList(x Expr, not bool) (Expr, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	in := &In{X: x, Not: not}
	for {
		e, err := p.additive()
		if err != nil {
			return nil, err
		}
		in.List = append(in.List, e)
		if p.isOp(",") {
			p.pos++
			continue
		}
		return in, p.expectOp(")")
	}
}

func (p *parser) additive() (Expr, error) {
	left, err := p.multiplicative()
	for err == nil && (p.isOp("+") || p.isOp("-")) {
		op := p.next().Text
		var right Expr
		if right, err = p.multiplicative(); err == nil {
			left = &Binary{Op: op, L: left, R: right}
		}
	}
	return left, err
}

func (p *parser) multiplicative() (Expr, error) {
	left, err := p.unary()
	for err == nil && (p.isOp("*") || p.isOp("/") || p.isOp("%")) {
		op := p.next().Text
		var right Expr
		if right, err = p.unary(); err == nil {
			left = &Binary{Op: op, L: left, R: right}
		}
	}
	return left, err
}

func (p *parser) unary() (Expr, error) {
	if p.isOp("-") {
		p.pos++
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &Unary{Op: "-", X: x}, nil
	}
	return p.primary()
}

func (p *parser) primary() (Expr, error) {
	t := p.next()
	switch t.Kind {
	case TNumber:
		return &Lit{V: record.NumberValue(t.Num)}, nil
	case TString:
		return &Lit{V: record.StringValue(t.Text)}, nil
	case TOp:
		if t.Text == "(" {
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			return e, p.expectOp(")")
		}
	case TIdent:
		switch strings.ToLower(t.Text) {
		case "true":
			return &Lit{V: record.BoolValue(true)}, nil
		case "false":
			return &Lit{V: record.BoolValue(false)}, nil
		case "null":
			return &Lit{V: record.NullValue()}, nil
		}
		if p.isOp("(") {
			p.pos++
			call := &Call{Name: strings.ToLower(t.Text)}
			for !p.isOp(")") {
				if len(call.Args) > 0 {
					if err := p.expectOp(","); err != nil {
						return nil, err
					}
				}
				arg, err := p.expr()
				if err != nil {
					return nil, err
				}
				call.Args = append(call.Args, arg)
			}
			p.pos++
			return call, checkCall(call, t.Pos)
		}
		return &Field{Name: t.Text}, nil
	}
	return nil, &SyntaxError{t.Pos, "expected a value, a field or '('"}
}

var arity = map[string][2]int{
	"lower": {1, 1}, "upper": {1, 1}, "len": {1, 1}, "exists": {1, 1}, "coalesce": {1, 99},
	"round": {1, 2}, "abs": {1, 1}, "str": {1, 1}, "num": {1, 1},
}

func checkCall(c *Call, pos int) error {
	limits, ok := arity[c.Name]
	if !ok {
		return &SyntaxError{pos, fmt.Sprintf("unknown function %q", c.Name)}
	}
	if len(c.Args) < limits[0] || len(c.Args) > limits[1] {
		return &SyntaxError{pos, fmt.Sprintf("%s() takes %d to %d arguments, got %d", c.Name, limits[0], limits[1], len(c.Args))}
	}
	if c.Name == "exists" {
		if _, ok := c.Args[0].(*Field); !ok {
			return &SyntaxError{pos, "exists() takes a field name"}
		}
	}
	return nil
}
