package query

import (
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"example.com/logq/internal/goldenq"
	"example.com/logq/internal/record"
)

var fieldNames = []string{"a", "b", "s", "n", "flag", "msg", "missing"}

func randValue(rng *rand.Rand) record.Value {
	switch rng.Intn(9) {
	case 0:
		return record.NullValue()
	case 1:
		return record.BoolValue(rng.Intn(2) == 0)
	case 2:
		return record.NumberValue(float64(rng.Intn(21) - 10))
	case 3:
		return record.NumberValue(rng.NormFloat64() * 1000)
	case 4:
		return record.NumberValue([]float64{0, math.Copysign(0, -1), 1e15, -1e16, 0.5, 2.5, 1e-9}[rng.Intn(7)])
	case 5:
		return record.StringValue([]string{"", "3", "-2.5", " 7 ", "NaN", "inf", "1e3", "0x10"}[rng.Intn(8)])
	default:
		return record.StringValue([]string{"Error", "error", "warn", "ünïcode", "a.b", "GET /api", "x\ny", "abc"}[rng.Intn(8)])
	}
}

func randRecord(rng *rand.Rand, line int) *record.Record {
	r := record.New(line)
	for _, name := range fieldNames[:6] {
		if rng.Intn(5) > 0 {
			r.Set(name, randValue(rng))
		}
	}
	return r
}

func randLiteral(rng *rand.Rand) string {
	switch rng.Intn(6) {
	case 0:
		return fmt.Sprint(rng.Intn(20) - 5)
	case 1:
		return []string{"0", "2.5", "1e3", "0.1", "100"}[rng.Intn(5)]
	case 2:
		return []string{`"error"`, `"3"`, `""`, `"ÜNÏ"`, `"a"`, `"x\ny"`}[rng.Intn(6)]
	case 3:
		return []string{"true", "false", "null"}[rng.Intn(3)]
	}
	return fieldNames[rng.Intn(len(fieldNames))]
}

func randExpr(rng *rand.Rand, depth int) string {
	if depth == 0 || rng.Intn(5) == 0 {
		return randLiteral(rng)
	}
	sub := func() string { return randExpr(rng, depth-1) }
	switch rng.Intn(12) {
	case 0:
		return "not " + sub()
	case 1:
		return "-" + sub()
	case 2:
		return "(" + sub() + ")"
	case 3:
		ops := []string{"==", "!=", "<", "<=", ">", ">="}
		return sub() + " " + ops[rng.Intn(len(ops))] + " " + sub()
	case 4:
		ops := []string{"+", "-", "*", "/", "%"}
		return sub() + " " + ops[rng.Intn(len(ops))] + " " + sub()
	case 5:
		return sub() + " " + []string{"and", "or"}[rng.Intn(2)] + " " + sub()
	case 6:
		pats := []string{`"^e"`, `"(?i)ERROR"`, `"[0-9]+"`, `"^$"`, `"a.b"`, `"("`}
		return sub() + " " + []string{"=~", "!~"}[rng.Intn(2)] + " " + pats[rng.Intn(len(pats))]
	case 7:
		return sub() + " " + []string{"contains", "startswith"}[rng.Intn(2)] + " " + sub()
	case 8:
		items := []string{}
		for i := rng.Intn(3) + 1; i > 0; i-- {
			items = append(items, randLiteral(rng))
		}
		return sub() + []string{" in (", " not in ("}[rng.Intn(2)] + strings.Join(items, ", ") + ")"
	case 9:
		fn := []string{"lower", "upper", "len", "abs", "str", "num"}[rng.Intn(6)]
		return fn + "(" + sub() + ")"
	case 10:
		switch rng.Intn(3) {
		case 0:
			return "round(" + sub() + ")"
		case 1:
			return "round(" + sub() + ", " + randLiteral(rng) + ")"
		}
		return "coalesce(" + sub() + ", " + sub() + ")"
	}
	return "exists(" + fieldNames[rng.Intn(len(fieldNames))] + ")"
}

func sameValue(a, b record.Value) bool {
	if a.Kind != b.Kind || a.B != b.B || a.S != b.S {
		return false
	}
	if math.IsNaN(a.N) || math.IsNaN(b.N) {
		return math.IsNaN(a.N) && math.IsNaN(b.N)
	}
	return math.Float64bits(a.N) == math.Float64bits(b.N)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestHiddenGoldenExpressions(t *testing.T) {
	rng := rand.New(rand.NewSource(99))
	var recs []*record.Record
	for i := 0; i < 40; i++ {
		recs = append(recs, randRecord(rng, i+1))
	}
	compared := 0
	for i := 0; i < 6000; i++ {
		src := randExpr(rng, 1+rng.Intn(4))
		pl, err := Parse("where " + src)
		gpl, gerr := goldenq.Parse("where " + src)
		if errText(err) != errText(gerr) {
			t.Fatalf("Parse(where %s): %v, golden %v", src, err, gerr)
		}
		if err != nil {
			continue
		}
		expr := pl.Stages[0].(*Where).Cond
		gexpr := gpl.Stages[0].(*goldenq.Where).Cond
		if expr.String() != gexpr.String() {
			t.Fatalf("%s parses as %s, golden %s", src, expr.String(), gexpr.String())
		}
		env, genv := NewEnv(), goldenq.NewEnv()
		for _, r := range recs {
			v, err := env.Eval(expr, r)
			gv, gerr := genv.Eval(gexpr, r)
			if errText(err) != errText(gerr) || !sameValue(v, gv) {
				t.Fatalf("%s on record %v:\n got %+v (%v)\nwant %+v (%v)", src, r.Fields, v, err, gv, gerr)
			}
			compared++
		}
	}
	if compared < 100000 {
		t.Fatalf("only %d comparisons", compared)
	}
}

func TestHiddenGoldenPipelines(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 1500; i++ {
		var recs []*record.Record
		for j := rng.Intn(30); j > 0; j-- {
			recs = append(recs, randRecord(rng, j))
		}
		stages := []string{"where " + randExpr(rng, 3)}
		if rng.Intn(2) == 0 {
			aggs := []string{"count()", "sum(" + randExpr(rng, 2) + ")", "avg(n)", "min(a) as lo", "max(" + randExpr(rng, 1) + ")", "distinct(s)"}
			rng.Shuffle(len(aggs), func(x, y int) { aggs[x], aggs[y] = aggs[y], aggs[x] })
			stage := "stats " + strings.Join(aggs[:1+rng.Intn(3)], ", ")
			if rng.Intn(2) == 0 {
				stage += " by " + fieldNames[rng.Intn(4)]
			}
			stages = append(stages, stage)
		} else {
			stages = append(stages, "sort "+fieldNames[rng.Intn(4)]+[]string{"", " desc"}[rng.Intn(2)], "limit "+fmt.Sprint(rng.Intn(10)))
		}
		q := strings.Join(stages, " | ")
		pl, err := Parse(q)
		gpl, gerr := goldenq.Parse(q)
		if errText(err) != errText(gerr) {
			t.Fatalf("Parse(%s): %v, golden %v", q, err, gerr)
		}
		if err != nil {
			continue
		}
		res, err := Run(pl, recs)
		gres, gerr := goldenq.Run(gpl, recs)
		if errText(err) != errText(gerr) {
			t.Fatalf("Run(%s): %v, golden %v", q, err, gerr)
		}
		if err != nil {
			continue
		}
		if strings.Join(res.Columns, ",") != strings.Join(gres.Columns, ",") || len(res.Rows) != len(gres.Rows) {
			t.Fatalf("%s: columns %v rows %d, golden %v rows %d", q, res.Columns, len(res.Rows), gres.Columns, len(gres.Rows))
		}
		for k := range res.Rows {
			for _, c := range res.Columns {
				a, _ := res.Rows[k].Get(c)
				b, _ := gres.Rows[k].Get(c)
				if !sameValue(a, b) {
					t.Fatalf("%s: row %d column %s: %+v, golden %+v", q, k, c, a, b)
				}
			}
		}
	}
}

const maxFunctionLines = 50

func TestHiddenStructure(t *testing.T) {
	fset := token.NewFileSet()
	names, _ := filepath.Glob("*.go")
	sort.Strings(names)
	nonTest := 0
	where := map[string]string{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		nonTest++
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := goparser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok {
				lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
				if lines > maxFunctionLines {
					t.Errorf("%s: %s is %d lines long (limit %d)", name, fn.Name.Name, lines, maxFunctionLines)
				}
			}
		}
		text := string(src)
		for marker, concern := range map[string]string{"regexp.Compile": "pattern matching", "math.Mod": "arithmetic",
			`"coalesce"`: "built-in functions", "strings.Compare": "comparisons"} {
			if strings.Contains(text, marker) && name != "parser.go" {
				if prev, dup := where[concern]; dup && prev != name {
					t.Errorf("%s is spread over %s and %s", concern, prev, name)
				}
				where[concern] = name
			}
		}
		if name == "eval.go" {
			if n := strings.Count(text, "\n"); n > 120 {
				t.Errorf("eval.go still has %d lines; it should only dispatch", n)
			}
			for _, marker := range []string{"math.", "utf8.", "strings.", "regexp.Compile"} {
				if strings.Contains(text, marker) {
					t.Errorf("eval.go still does the work itself (%s)", marker)
				}
			}
		}
	}
	if nonTest < 9 {
		t.Errorf("the evaluator should be split into files by concern (found %d non-test files in internal/query)", nonTest)
	}
	seen := map[string]bool{}
	for concern, file := range where {
		if seen[file] && file != "" {
			t.Errorf("%s shares %s with another concern", concern, file)
		}
		seen[file] = true
	}
}
