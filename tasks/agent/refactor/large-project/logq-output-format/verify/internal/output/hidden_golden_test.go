package output

import (
	"bytes"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"example.com/logq/internal/goldenout"
	"example.com/logq/internal/query"
	"example.com/logq/internal/record"
)

func randValue(rng *rand.Rand) record.Value {
	switch rng.Intn(10) {
	case 0:
		return record.NullValue()
	case 1:
		return record.BoolValue(rng.Intn(2) == 0)
	case 2:
		return record.NumberValue(float64(rng.Intn(2001) - 1000))
	case 3:
		return record.NumberValue(rng.NormFloat64() * math.Pow(10, float64(rng.Intn(30)-12)))
	case 4:
		specials := []float64{0, math.Copysign(0, -1), 1e15, 1e15 - 1, -1e15, 999999999999999.9, 1e21, 1e-7,
			math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1 + 0.2, 123456789012345678}
		return record.NumberValue(specials[rng.Intn(len(specials))])
	}
	parts := []string{"a", "ü", "日本", " ", ",", "\"", "\n", "\t", "\r", "\\", "-", "1.5", "", "x y", "null", "true"}
	var b strings.Builder
	for i := rng.Intn(5); i > 0; i-- {
		b.WriteString(parts[rng.Intn(len(parts))])
	}
	return record.StringValue(b.String())
}

func randResult(rng *rand.Rand) *query.Result {
	names := []string{"ts", "level", "n", "msg", "ü", "a,b", "q\"", "count()", "x"}
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	cols := names[:rng.Intn(len(names))]
	res := &query.Result{Columns: cols}
	numericCol := rng.Intn(len(names))
	for i := rng.Intn(8); i > 0; i-- {
		r := record.New(i)
		for c, name := range names {
			if rng.Intn(6) == 0 {
				continue // missing field
			}
			v := randValue(rng)
			if c == numericCol && v.Kind == record.String {
				v = record.NumberValue(float64(rng.Intn(100)))
			}
			r.Set(name, v)
		}
		res.Rows = append(res.Rows, r)
	}
	return res
}

func TestHiddenGoldenWriters(t *testing.T) {
	type writer func(io.Writer, *query.Result) error
	pairs := []struct {
		name      string
		got, want writer
	}{
		{"table", WriteTable, goldenout.WriteTable},
		{"csv", WriteCSV, goldenout.WriteCSV},
		{"json", WriteJSON, goldenout.WriteJSON},
	}
	rng := rand.New(rand.NewSource(31))
	for i := 0; i < 6000; i++ {
		res := randResult(rng)
		for _, p := range pairs {
			var a, b bytes.Buffer
			errA, errB := p.got(&a, res), p.want(&b, res)
			if (errA == nil) != (errB == nil) || a.String() != b.String() {
				t.Fatalf("%s writer differs on result #%d (columns %q):\n got %q\nwant %q", p.name, i, res.Columns, a.String(), b.String())
			}
		}
	}
}

func TestHiddenGoldenText(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for i := 0; i < 20000; i++ {
		v := randValue(rng)
		r := record.New(1)
		r.Set("v", v)
		res := &query.Result{Columns: []string{"v"}, Rows: []*record.Record{r}}
		var csvOut bytes.Buffer
		if err := goldenout.WriteCSV(&csvOut, res); err != nil {
			t.Fatal(err)
		}
		if v.Kind == record.Number && v.Text() != strings.TrimSuffix(strings.TrimPrefix(csvOut.String(), "v\n"), "\n") {
			t.Fatalf("record Text() changed for %v: %q", v.N, v.Text())
		}
	}
}

// All number formatting in the module must live in one function.
func TestHiddenOneNumberFormatter(t *testing.T) {
	root := filepath.Join("..", "..")
	holders := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && (info.Name() == "goldenout" || info.Name() == "goldenq" || strings.HasPrefix(info.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if info.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := goparser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "FormatFloat" {
					holders[path+": "+fn.Name.Name] = true
				}
				return true
			})
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if strings.Contains(path, filepath.Join("internal", "output")) && lines > 40 {
				t.Errorf("%s: %s is %d lines long (limit 40)", path, fn.Name.Name, lines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(holders) != 1 {
		var names []string
		for h := range holders {
			names = append(names, h)
		}
		t.Errorf("number formatting (strconv.FormatFloat) should live in exactly one function, found it in: %s", strings.Join(names, "; "))
	}
}
