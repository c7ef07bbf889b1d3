package query

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"example.com/logq/internal/record"
)

// bnode is a boolean formula over the flags a..e with the documented precedence:
// or < and < not < comparison.
type bnode struct {
	op   string // "or", "and", "not", "var"
	name string
	kids []*bnode
}

func (n *bnode) eval(env map[string]bool) bool {
	switch n.op {
	case "var":
		return env[n.name]
	case "not":
		return !n.kids[0].eval(env)
	case "and":
		return n.kids[0].eval(env) && n.kids[1].eval(env)
	}
	return n.kids[0].eval(env) || n.kids[1].eval(env)
}

var level = map[string]int{"or": 1, "and": 2, "not": 3, "var": 4}

// render prints the formula with as few parentheses as the precedence rules allow (plus a few extra).
func (n *bnode) render(rng *rand.Rand) string {
	wrap := func(k *bnode, need int) string {
		s := k.render(rng)
		if level[k.op] < need || rng.Intn(10) == 0 {
			return "(" + s + ")"
		}
		return s
	}
	switch n.op {
	case "var":
		if rng.Intn(2) == 0 {
			return n.name + " == 1"
		}
		return n.name + " > 0"
	case "not":
		return "not " + wrap(n.kids[0], 3)
	}
	// left-associative: the right operand needs a strictly higher level
	return wrap(n.kids[0], level[n.op]) + " " + n.op + " " + wrap(n.kids[1], level[n.op]+1)
}

func gen(rng *rand.Rand, depth int) *bnode {
	if depth == 0 || rng.Intn(4) == 0 {
		return &bnode{op: "var", name: string(rune('a' + rng.Intn(5)))}
	}
	switch rng.Intn(5) {
	case 0:
		return &bnode{op: "not", kids: []*bnode{gen(rng, depth-1)}}
	case 1, 2:
		return &bnode{op: "and", kids: []*bnode{gen(rng, depth-1), gen(rng, depth-1)}}
	}
	return &bnode{op: "or", kids: []*bnode{gen(rng, depth-1), gen(rng, depth-1)}}
}

func allRecords() ([]*record.Record, []map[string]bool) {
	var recs []*record.Record
	var envs []map[string]bool
	for mask := 0; mask < 32; mask++ {
		r := record.New(mask + 1)
		env := map[string]bool{}
		for i := 0; i < 5; i++ {
			name := string(rune('a' + i))
			on := mask>>i&1 == 1
			env[name] = on
			if on {
				r.Set(name, record.NumberValue(1))
			} else {
				r.Set(name, record.NumberValue(0))
			}
		}
		r.Set("id", record.NumberValue(float64(mask)))
		recs = append(recs, r)
		envs = append(envs, env)
	}
	return recs, envs
}

func TestHiddenPrecedenceExamples(t *testing.T) {
	recs, envs := allRecords()
	cases := map[string]func(e map[string]bool) bool{
		"a == 1 or b == 1 and c == 1":            func(e map[string]bool) bool { return e["a"] || (e["b"] && e["c"]) },
		"a == 1 and b == 1 or c == 1":            func(e map[string]bool) bool { return (e["a"] && e["b"]) || e["c"] },
		"a == 1 or b == 1 and c == 1 or d == 1":  func(e map[string]bool) bool { return e["a"] || (e["b"] && e["c"]) || e["d"] },
		"not a == 1 or b == 1":                   func(e map[string]bool) bool { return !e["a"] || e["b"] },
		"not a == 1 and b == 1":                  func(e map[string]bool) bool { return !e["a"] && e["b"] },
		"a > 0 AND b > 0 OR c > 0 And d > 0":     func(e map[string]bool) bool { return (e["a"] && e["b"]) || (e["c"] && e["d"]) },
		"(a == 1 or b == 1) and c == 1":          func(e map[string]bool) bool { return (e["a"] || e["b"]) && e["c"] },
		"a == 1 or not b == 1 and not c == 1":    func(e map[string]bool) bool { return e["a"] || (!e["b"] && !e["c"]) },
		"not (a == 1 or b == 1) or c + d == 2":   func(e map[string]bool) bool { return !(e["a"] || e["b"]) || (e["c"] && e["d"]) },
		"a + b * 2 == 3 or e == 1 and a - b < 0": func(e map[string]bool) bool { return (e["a"] && e["b"]) || (e["e"] && !e["a"] && e["b"]) },
	}
	for q, want := range cases {
		pl, err := Parse("where " + q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		res, err := Run(pl, recs)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]bool{}
		for _, r := range res.Rows {
			v, _ := r.Get("id")
			got[int(v.N)] = true
		}
		for i, env := range envs {
			if got[i] != want(env) {
				t.Errorf("where %s: record %05b selected=%v, want %v", q, i, got[i], want(env))
				break
			}
		}
	}
}

func TestHiddenPrecedenceRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(2024))
	recs, envs := allRecords()
	for i := 0; i < 3000; i++ {
		f := gen(rng, 1+rng.Intn(5))
		text := f.render(rng)
		pl, err := Parse("where " + text + " | fields id")
		if err != nil {
			t.Fatalf("Parse(%q): %v", text, err)
		}
		res, err := Run(pl, recs)
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, r := range res.Rows {
			v, _ := r.Get("id")
			got = append(got, v.Text())
		}
		for k, env := range envs {
			if f.eval(env) {
				want = append(want, fmt.Sprint(k))
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("where %s\n got ids %v\nwant ids %v", text, got, want)
		}
	}
}
