package calc

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"
	"time"
)

type tnode struct {
	op   string
	val  int64
	args []*tnode
}

var minI, maxI = big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)

func fits(x *big.Int) bool { return x.Cmp(minI) >= 0 && x.Cmp(maxI) <= 0 }

// ref evaluates the tree with math/big, checking every intermediate result, left to right.
func ref(n *tnode) (*big.Int, error) {
	if n.op == "num" {
		return big.NewInt(n.val), nil
	}
	vals := []*big.Int{}
	for _, a := range n.args {
		v, err := ref(a)
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	r := new(big.Int)
	switch n.op {
	case "neg":
		r.Neg(vals[0])
	case "pos":
		r.Set(vals[0])
	case "+":
		r.Add(vals[0], vals[1])
	case "-":
		r.Sub(vals[0], vals[1])
	case "*":
		r.Mul(vals[0], vals[1])
	case "/", "%":
		if vals[1].Sign() == 0 {
			return nil, ErrDivByZero
		}
		q, m := new(big.Int), new(big.Int)
		q.QuoRem(vals[0], vals[1], m) // truncated, like Go
		if n.op == "/" {
			r = q
		} else {
			r = m
		}
	case "^":
		if vals[1].Sign() < 0 {
			return nil, ErrNegativeExponent
		}
		b := vals[0]
		if b.CmpAbs(big.NewInt(1)) <= 0 {
			if b.Sign() == 0 && vals[1].Sign() == 0 {
				r.SetInt64(1)
			} else if b.Sign() == -1 && vals[1].Bit(0) == 0 {
				r.SetInt64(1)
			} else {
				r.Set(b)
			}
		} else if vals[1].Cmp(big.NewInt(70)) > 0 {
			return nil, ErrOverflow
		} else {
			r.Exp(b, vals[1], nil)
		}
	case "abs":
		r.Abs(vals[0])
	case "min", "max":
		r.Set(vals[0])
		for _, v := range vals[1:] {
			if (n.op == "min" && v.Cmp(r) < 0) || (n.op == "max" && v.Cmp(r) > 0) {
				r.Set(v)
			}
		}
	}
	if !fits(r) {
		return nil, ErrOverflow
	}
	return r, nil
}

var levels = map[string]int{"+": 1, "-": 1, "*": 2, "/": 2, "%": 2, "neg": 3, "pos": 3, "^": 4}

func sp(rng *rand.Rand) string {
	return []string{"", "", "", " ", "\t", "  "}[rng.Intn(6)]
}

// render prints the tree so that the grammar parses it back into the same tree.
func render(rng *rand.Rand, n *tnode) (string, int) {
	wrap := func(child *tnode, need int) string {
		s, lvl := render(rng, child)
		if lvl < need || rng.Intn(12) == 0 {
			return "(" + sp(rng) + s + sp(rng) + ")"
		}
		return s
	}
	switch n.op {
	case "num":
		return fmt.Sprint(n.val), 5
	case "neg", "pos":
		sign := map[string]string{"neg": "-", "pos": "+"}[n.op]
		return sign + sp(rng) + wrap(n.args[0], 3), 3
	case "+", "-":
		return wrap(n.args[0], 1) + sp(rng) + n.op + sp(rng) + wrap(n.args[1], 2), 1
	case "*", "/", "%":
		return wrap(n.args[0], 2) + sp(rng) + n.op + sp(rng) + wrap(n.args[1], 3), 2
	case "^":
		return wrap(n.args[0], 5) + sp(rng) + "^" + sp(rng) + wrap(n.args[1], 3), 4
	}
	parts := []string{}
	for _, a := range n.args {
		s, _ := render(rng, a)
		parts = append(parts, sp(rng)+s+sp(rng))
	}
	return n.op + "(" + strings.Join(parts, ",") + ")", 5
}

func gen(rng *rand.Rand, depth int) *tnode {
	if depth == 0 || rng.Intn(4) == 0 {
		switch rng.Intn(6) {
		case 0:
			return &tnode{op: "num", val: int64(rng.Intn(3))}
		case 1:
			return &tnode{op: "num", val: rng.Int63()}
		case 2:
			return &tnode{op: "num", val: int64(rng.Intn(1 << 31))}
		default:
			return &tnode{op: "num", val: int64(rng.Intn(20))}
		}
	}
	ops := []string{"+", "-", "*", "/", "%", "^", "neg", "pos", "min", "max", "abs", "*", "-", "neg"}
	op := ops[rng.Intn(len(ops))]
	n := &tnode{op: op}
	count := 2
	switch op {
	case "neg", "pos", "abs":
		count = 1
	case "min", "max":
		count = 1 + rng.Intn(4)
	}
	for i := 0; i < count; i++ {
		if op == "^" && i == 1 && rng.Intn(3) > 0 {
			n.args = append(n.args, &tnode{op: "num", val: int64(rng.Intn(66))})
			continue
		}
		n.args = append(n.args, gen(rng, depth-1))
	}
	return n
}

func TestExamples(t *testing.T) {
	cases := map[string]int64{
		"1+2*3": 7, "(1+2)*3": 9, "-2^2": -4, "2^3^2": 512, "2*-3": -6, "(-2)^2": 4, "0^0": 1,
		"7/2": 3, "-7/2": -3, "7%-3": 1, "-7%3": -1, "10-4-3": 3, "100/10/5": 2, "2^0": 1,
		"min(3, 1, 2)": 1, "max(4)": 4, "abs(-5)": 5, "abs(min(-3,7))*-2": -6, "--3": 3, "-+-3": 3,
		"1^1000000000000": 1, "(-1)^999999999999": -1, "0^999999999999": 0, "\t 4 *\t(2+ 3) ": 20,
		"9223372036854775807": math.MaxInt64, "-9223372036854775807-1": math.MinInt64,
		"(-9223372036854775807-1)%-1": 0, "2^62+(2^62-1)": math.MaxInt64, "3^39": 4052555153018976267,
		"max(1,2)^min(5,3)": 8, "-2^-0": -1, "2^+3": 8,
	}
	for expr, want := range cases {
		done := make(chan struct{})
		var got int64
		var err error
		go func() { got, err = Eval(expr); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatalf("Eval(%q) takes too long", expr)
		}
		if err != nil || got != want {
			t.Errorf("Eval(%q) = %d, %v; want %d", expr, got, err, want)
		}
	}
}

func TestErrors(t *testing.T) {
	cases := map[string]error{
		"": ErrSyntax, "   ": ErrSyntax, "1+": ErrSyntax, "(1": ErrSyntax, "1)": ErrSyntax, "1 2": ErrSyntax,
		"2**3": ErrSyntax, "foo(1)": ErrSyntax, "abs(1,2)": ErrSyntax, "min()": ErrSyntax, "abs": ErrSyntax,
		"1+x": ErrSyntax, "3.5": ErrSyntax, "()": ErrSyntax, "-": ErrSyntax, "max(1,)": ErrSyntax,
		"1/0": ErrDivByZero, "5%(3-3)": ErrDivByZero, "2^-1": ErrNegativeExponent,
		"9223372036854775808": ErrOverflow, "-9223372036854775808": ErrOverflow, "2^63": ErrOverflow,
		"9223372036854775807+1": ErrOverflow, "(-9223372036854775807-1)/-1": ErrOverflow,
		"abs(-9223372036854775807-1)": ErrOverflow, "-(-9223372036854775807-1)": ErrOverflow,
		"3037000500*3037000500": ErrOverflow, "(-2)^64": ErrOverflow, "2^62*2": ErrOverflow,
		"0-9223372036854775807-2": ErrOverflow, "1/0 + 2^-1": ErrDivByZero, "2^-1 + 1/0": ErrNegativeExponent,
		"2^64 + 1/0": ErrOverflow, "1/0 + 1)": ErrSyntax, "99999999999999999999/0": ErrOverflow,
		"min(1/0, 2^64)": ErrDivByZero, "1 - -9223372036854775807 - 2": ErrOverflow,
		"3^1000000000000": ErrOverflow, "(-9223372036854775807-1)*-1": ErrOverflow,
		"-1*(-9223372036854775807-1)": ErrOverflow, "(-9223372036854775807-1)*(0-1)*0": ErrOverflow,
		"(-2)^63*-1": ErrOverflow, "(-9223372036854775807-1)*1": nil,
	}
	for expr, want := range cases {
		done := make(chan struct{})
		var got int64
		var err error
		go func() { got, err = Eval(expr); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatalf("Eval(%q) takes too long", expr)
		}
		if !errors.Is(err, want) {
			t.Errorf("Eval(%q) = %d, %v; want error %v", expr, got, err, want)
		}
	}
}

func TestRandomAgainstBigInt(t *testing.T) {
	rng := rand.New(rand.NewSource(77))
	errCount, okCount := 0, 0
	for i := 0; i < 20000; i++ {
		tree := gen(rng, 1+rng.Intn(5))
		expr, _ := render(rng, tree)
		want, wantErr := ref(tree)
		got, err := Eval(expr)
		if wantErr != nil {
			errCount++
			if !errors.Is(err, wantErr) {
				t.Fatalf("Eval(%q) = %d, %v; want error %v", expr, got, err, wantErr)
			}
			continue
		}
		okCount++
		if err != nil || got != want.Int64() {
			t.Fatalf("Eval(%q) = %d, %v; want %s", expr, got, err, want)
		}
	}
	if errCount < 1000 || okCount < 5000 {
		t.Fatalf("generator imbalance: %d errors, %d values", errCount, okCount)
	}
}
