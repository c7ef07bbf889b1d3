package ini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestIncludeAndInterpolate(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "parts/db.ini", "user = bob\n[cache]\nsize = 10\n")
	main := write(t, dir, "main.ini", "[db]\nhost = h\n%include parts/db.ini\nurl = ${user}@${host}:${cache.size}\n")
	f, err := ParseFile(main)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := f.Get("db", "url"); v != "bob@h:10" {
		t.Errorf("url = %q", v)
	}
}

func TestIncludeCycle(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.ini", "%include b.ini\n")
	write(t, dir, "b.ini", "x = 1\n%include a.ini\n")
	_, err := ParseFile(filepath.Join(dir, "a.ini"))
	if err == nil || !strings.Contains(err.Error(), "include cycle") {
		t.Fatalf("err = %v", err)
	}
}
