// Package calc evaluates integer formulas with overflow checking.
package calc

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Errors returned by Eval (possibly wrapped).
var (
	ErrSyntax           = errors.New("syntax error")
	ErrDivByZero        = errors.New("division by zero")
	ErrNegativeExponent = errors.New("negative exponent")
	ErrOverflow         = errors.New("integer overflow")
)

type node struct {
	op   string // "num", "neg", "pos", binary operator, or function name
	num  string
	args []*node
}

type parser struct {
	src string
	pos int
}

func (p *parser) skip() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

func (p *parser) peek() byte {
	p.skip()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *parser) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrSyntax, what, p.pos)
}

func (p *parser) sum() (*node, error) {
	left, err := p.term()
	for err == nil && (p.peek() == '+' || p.peek() == '-') {
		op := string(p.src[p.pos])
		p.pos++
		var right *node
		if right, err = p.term(); err == nil {
			left = &node{op: op, args: []*node{left, right}}
		}
	}
	return left, err
}

func (p *parser) term() (*node, error) {
	left, err := p.unary()
	for err == nil && (p.peek() == '*' || p.peek() == '/' || p.peek() == '%') {
		op := string(p.src[p.pos])
		p.pos++
		var right *node
		if right, err = p.unary(); err == nil {
			left = &node{op: op, args: []*node{left, right}}
		}
	}
	return left, err
}

func (p *parser) unary() (*node, error) {
	switch p.peek() {
	case '-', '+':
		op := map[byte]string{'-': "neg", '+': "pos"}[p.src[p.pos]]
		p.pos++
		inner, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &node{op: op, args: []*node{inner}}, nil
	}
	return p.power()
}

func (p *parser) power() (*node, error) {
	base, err := p.primary()
	if err != nil || p.peek() != '^' {
		return base, err
	}
	p.pos++
	exp, err := p.unary()
	if err != nil {
		return nil, err
	}
	return &node{op: "^", args: []*node{base, exp}}, nil
}

var arity = map[string][2]int{"min": {1, math.MaxInt32}, "max": {1, math.MaxInt32}, "abs": {1, 1}}

func (p *parser) primary() (*node, error) {
	c := p.peek()
	switch {
	case c >= '0' && c <= '9':
		start := p.pos
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		return &node{op: "num", num: p.src[start:p.pos]}, nil
	case c == '(':
		p.pos++
		inner, err := p.sum()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, p.fail("expected )")
		}
		p.pos++
		return inner, nil
	case c >= 'a' && c <= 'z':
		start := p.pos
		for p.pos < len(p.src) && p.src[p.pos] >= 'a' && p.src[p.pos] <= 'z' {
			p.pos++
		}
		name := p.src[start:p.pos]
		limits, known := arity[name]
		if !known {
			return nil, p.fail("unknown function " + name)
		}
		if p.peek() != '(' {
			return nil, p.fail("expected ( after " + name)
		}
		p.pos++
		call := &node{op: name}
		for {
			arg, err := p.sum()
			if err != nil {
				return nil, err
			}
			call.args = append(call.args, arg)
			if p.peek() == ',' {
				p.pos++
				continue
			}
			if p.peek() != ')' {
				return nil, p.fail("expected , or )")
			}
			p.pos++
			break
		}
		if len(call.args) < limits[0] || len(call.args) > limits[1] {
			return nil, p.fail("wrong number of arguments to " + name)
		}
		return call, nil
	}
	return nil, p.fail("expected a number, ( or a function")
}

func add(a, b int64) (int64, error) {
	if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
		return 0, ErrOverflow
	}
	return a + b, nil
}

func neg(a int64) (int64, error) {
	if a == math.MinInt64 {
		return 0, ErrOverflow
	}
	return -a, nil
}

func mul(a, b int64) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, ErrOverflow
	}
	return r, nil
}

func pow(base, exp int64) (int64, error) {
	if exp < 0 {
		return 0, ErrNegativeExponent
	}
	switch base {
	case 0:
		if exp == 0 {
			return 1, nil
		}
		return 0, nil
	case 1:
		return 1, nil
	case -1:
		if exp%2 == 0 {
			return 1, nil
		}
		return -1, nil
	}
	result := int64(1)
	for i := int64(0); i < exp; i++ { // |base| >= 2, so this overflows within 64 steps
		var err error
		if result, err = mul(result, base); err != nil {
			return 0, err
		}
	}
	return result, nil
}

func eval(n *node) (int64, error) {
	if n.op == "num" {
		v, err := strconv.ParseInt(n.num, 10, 64)
		if err != nil {
			return 0, ErrOverflow
		}
		return v, nil
	}
	vals := make([]int64, len(n.args))
	for i, a := range n.args {
		v, err := eval(a)
		if err != nil {
			return 0, err
		}
		vals[i] = v
	}
	switch n.op {
	case "neg":
		return neg(vals[0])
	case "pos":
		return vals[0], nil
	case "+":
		return add(vals[0], vals[1])
	case "-":
		if vals[1] == math.MinInt64 {
			if vals[0] >= 0 {
				return 0, ErrOverflow
			}
			return vals[0] - vals[1], nil
		}
		return add(vals[0], -vals[1])
	case "*":
		return mul(vals[0], vals[1])
	case "/", "%":
		if vals[1] == 0 {
			return 0, ErrDivByZero
		}
		if vals[0] == math.MinInt64 && vals[1] == -1 {
			if n.op == "%" {
				return 0, nil
			}
			return 0, ErrOverflow
		}
		if n.op == "/" {
			return vals[0] / vals[1], nil
		}
		return vals[0] % vals[1], nil
	case "^":
		return pow(vals[0], vals[1])
	case "abs":
		if vals[0] < 0 {
			return neg(vals[0])
		}
		return vals[0], nil
	case "min", "max":
		best := vals[0]
		for _, v := range vals[1:] {
			if (n.op == "min" && v < best) || (n.op == "max" && v > best) {
				best = v
			}
		}
		return best, nil
	}
	return 0, fmt.Errorf("unknown operator %q", n.op)
}

// Eval parses and evaluates expr.
func Eval(expr string) (int64, error) {
	p := &parser{src: expr}
	tree, err := p.sum()
	if err != nil {
		return 0, err
	}
	if p.peek() != 0 {
		return 0, p.fail("unexpected trailing input")
	}
	return eval(tree)
}
