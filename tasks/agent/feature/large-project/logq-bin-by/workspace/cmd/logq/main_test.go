package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out, errb bytes.Buffer
	in := strings.NewReader("level=info n=1\nlevel=error n=2\n")
	code := run([]string{"-o", "csv", `where level == "error"`}, in, &out, &errb)
	if code != 0 || out.String() != "level,n\nerror,2\n" {
		t.Fatalf("code %d out %q err %q", code, out.String(), errb.String())
	}
	if code := run([]string{"where ("}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Fatalf("syntax error exit %d", code)
	}
}
