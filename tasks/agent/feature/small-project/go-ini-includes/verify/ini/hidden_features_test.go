package ini

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func hw(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustGet(t *testing.T, f *File, section, key, want string) {
	t.Helper()
	got, ok := f.Get(section, key)
	if !ok || got != want {
		t.Errorf("%s.%s = %q (present %v), want %q", section, key, got, ok, want)
	}
}

func parseErr(t *testing.T, err error) *ParseError {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("want a *ParseError, got %v", err)
	}
	return pe
}

func TestHiddenIncludeSectionsAndOrder(t *testing.T) {
	dir := t.TempDir()
	hw(t, dir, "extra.ini", "; included\nuser = bob\nx = 2\n[cache]\nsize = 10\n")
	main := hw(t, dir, "main.ini", "top = 1\n[db]\nhost = a\nx = 1\n%include extra.ini\nport = 5432\nx = 3\n[cache]\nttl = 60\n")
	f, err := ParseFile(main)
	if err != nil {
		t.Fatal(err)
	}
	mustGet(t, f, "db", "user", "bob")
	mustGet(t, f, "db", "port", "5432")
	mustGet(t, f, "db", "x", "3")
	mustGet(t, f, "cache", "size", "10")
	mustGet(t, f, "cache", "ttl", "60")
	mustGet(t, f, "", "top", "1")
	if _, ok := f.Get("cache", "port"); ok {
		t.Error("keys after the include must go back to [db]")
	}
	if k := f.Section("db").Key("user"); k == nil || k.Line != 2 || !strings.HasSuffix(k.File, "extra.ini") {
		t.Errorf("included key should remember its file and line: %+v", k)
	}
	// an include that overrides: later wins
	main2 := hw(t, dir, "main2.ini", "[db]\nx = 1\n%include extra.ini\n")
	g, err := ParseFile(main2)
	if err != nil {
		t.Fatal(err)
	}
	mustGet(t, g, "db", "x", "2")
}

func TestHiddenNestedRelativeIncludes(t *testing.T) {
	dir := t.TempDir()
	hw(t, dir, "conf/parts/b.ini", "[b]\nv = deep\n")
	hw(t, dir, "conf/parts/a.ini", "[a]\nv = mid\n%include b.ini\n")
	hw(t, dir, "conf/main.ini", "%include parts/a.ini\n%include   parts/b.ini\n[m]\nv = top\n")
	f, err := ParseFile(filepath.Join(dir, "conf", "main.ini"))
	if err != nil {
		t.Fatal(err)
	}
	mustGet(t, f, "a", "v", "mid")
	mustGet(t, f, "b", "v", "deep")
	mustGet(t, f, "m", "v", "top")
	// Parse with a name: relative to the name's directory
	g, err := Parse(strings.NewReader("%include parts/b.ini\n[x]\ny = ${b.v}\n"), filepath.Join(dir, "conf", "virtual.ini"))
	if err != nil {
		t.Fatal(err)
	}
	mustGet(t, g, "x", "y", "deep")
}

func TestHiddenIncludeErrors(t *testing.T) {
	dir := t.TempDir()
	hw(t, dir, "a.ini", "[s]\nk = 1\n%include b.ini\n")
	hw(t, dir, "b.ini", "j = 2\n\n%include c.ini\n")
	hw(t, dir, "c.ini", "%include a.ini\n")
	_, err := ParseFile(filepath.Join(dir, "a.ini"))
	pe := parseErr(t, err)
	if !strings.Contains(pe.Error(), "include cycle") || pe.Line != 1 || !strings.HasSuffix(pe.File, "c.ini") {
		t.Errorf("cycle error = %+v", pe)
	}
	self := hw(t, dir, "self.ini", "a = 1\n%include self.ini\n")
	pe = parseErr(t, func() error { _, e := ParseFile(self); return e }())
	if !strings.Contains(pe.Error(), "include cycle") || pe.Line != 2 {
		t.Errorf("self include error = %+v", pe)
	}
	twice := hw(t, dir, "twice.ini", "%include c2.ini\n%include c2.ini\n")
	hw(t, dir, "c2.ini", "[c]\nn = 1\n")
	if _, err := ParseFile(twice); err != nil {
		t.Errorf("including a file twice in a row is not a cycle: %v", err)
	}
	missing := hw(t, dir, "missing.ini", "a = 1\n\n%include nope.ini\n")
	pe = parseErr(t, func() error { _, e := ParseFile(missing); return e }())
	if pe.Line != 3 || !strings.HasSuffix(pe.File, "missing.ini") {
		t.Errorf("missing include error = %+v", pe)
	}
	empty := hw(t, dir, "empty.ini", "%include\n")
	pe = parseErr(t, func() error { _, e := ParseFile(empty); return e }())
	if pe.Line != 1 {
		t.Errorf("empty include error = %+v", pe)
	}
	hw(t, dir, "broken.ini", "ok = 1\n[oops\n")
	outer := hw(t, dir, "outer.ini", "a = 1\n%include broken.ini\n")
	pe = parseErr(t, func() error { _, e := ParseFile(outer); return e }())
	if pe.Line != 2 || !strings.HasSuffix(pe.File, "broken.ini") {
		t.Errorf("error inside include = %+v", pe)
	}
}

func TestHiddenInterpolation(t *testing.T) {
	src := `name = app
[paths]
root = /srv/${.name}
logs = ${root}/logs
data = ${Paths.ROOT}/data
[server]
url = http://${host}:${port}/${paths.logs}
host = example.org
port = ${base.port}
price = "$$5 or $5 and $ alone, ${host}"
literal = $${not.a.ref}
[base]
port = 80
`
	f, err := Parse(strings.NewReader(src), "i.ini")
	if err != nil {
		t.Fatal(err)
	}
	mustGet(t, f, "paths", "root", "/srv/app")
	mustGet(t, f, "paths", "logs", "/srv/app/logs")
	mustGet(t, f, "paths", "data", "/srv/app/data")
	mustGet(t, f, "server", "url", "http://example.org:80//srv/app/logs")
	mustGet(t, f, "server", "price", "$5 or $5 and $ alone, example.org")
	mustGet(t, f, "server", "literal", "${not.a.ref}")
	if n, err := f.GetInt("server", "port"); err != nil || n != 80 {
		t.Errorf("GetInt port = %d, %v", n, err)
	}
	var out bytes.Buffer
	if _, err := f.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	g, err := Parse(&out, "again.ini")
	if err != nil {
		t.Fatalf("WriteTo output does not parse back: %v\n%s", err, out.String())
	}
	for _, s := range f.Sections {
		for _, k := range s.Keys {
			if v, _ := g.Get(s.Name, k.Name); v != k.Value {
				t.Errorf("round trip %s.%s: %q -> %q", s.Name, k.Name, k.Value, v)
			}
		}
	}
}

func TestHiddenInterpolationAcrossIncludes(t *testing.T) {
	dir := t.TempDir()
	hw(t, dir, "common.ini", "[common]\nregion = eu-west\n")
	main := hw(t, dir, "main.ini", "[svc]\nendpoint = ${common.region}.example.com\n%include common.ini\n")
	f, err := ParseFile(main)
	if err != nil {
		t.Fatal(err)
	}
	mustGet(t, f, "svc", "endpoint", "eu-west.example.com")
}

func TestHiddenInterpolationErrors(t *testing.T) {
	cases := []struct {
		src, want string
		line      int
	}{
		{"[a]\nx = 1\ny = ${nope}\n", "nope", 3},
		{"[a]\nx = ${b.y}\n[b]\nz = 1\n", "b.y", 2},
		{"[a]\nx = 1\n\ny = ${x\n", "", 4},
		{"[a]\nx = ${y}\ny = ${z}\nz = ${x}\n", "interpolation cycle", 0},
		{"[a]\nx = ${x}\n", "interpolation cycle", 2},
	}
	for _, c := range cases {
		_, err := Parse(strings.NewReader(c.src), "e.ini")
		pe := parseErr(t, err)
		if !strings.Contains(pe.Error(), c.want) || (c.line != 0 && pe.Line != c.line) || pe.File != "e.ini" {
			t.Errorf("%q: error %+v, want line %d containing %q", c.src, pe, c.line, c.want)
		}
		if c.line == 0 && (pe.Line < 2 || pe.Line > 4) {
			t.Errorf("%q: cycle reported at line %d", c.src, pe.Line)
		}
	}
}
