package ini

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const sample = `; global settings
name = demo
[Server]
host = example.org   ; trailing comment
port = 8080
motd = "  hello; world \"quoted\"\n"
[client]
retries=3
verbose = yes
timeout = 1m30s
[server]
port = 9090
`

func TestParseSample(t *testing.T) {
	f, err := Parse(strings.NewReader(sample), "sample.ini")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := f.Get("", "name"); v != "demo" {
		t.Errorf("name = %q", v)
	}
	if v, _ := f.Get("server", "HOST"); v != "example.org" {
		t.Errorf("host = %q", v)
	}
	if n, _ := f.GetInt("server", "port"); n != 9090 {
		t.Errorf("port = %d", n)
	}
	if v, _ := f.Get("server", "motd"); v != "  hello; world \"quoted\"\n" {
		t.Errorf("motd = %q", v)
	}
	if b, _ := f.GetBool("client", "verbose"); !b {
		t.Error("verbose")
	}
	if d, _ := f.GetDuration("client", "timeout"); d.Seconds() != 90 {
		t.Errorf("timeout = %v", d)
	}
	if len(f.Sections) != 3 || f.Sections[1].Name != "server" {
		t.Errorf("sections: %+v", f.Sections)
	}
}

func TestErrorsHaveLines(t *testing.T) {
	_, err := Parse(strings.NewReader("a = 1\n[bad\n"), "x.ini")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.File != "x.ini" {
		t.Fatalf("err = %v", err)
	}
}

func TestRoundTrip(t *testing.T) {
	f, err := Parse(strings.NewReader(sample), "sample.ini")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := f.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	g, err := Parse(&out, "again.ini")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := g.Get("server", "motd"); v != "  hello; world \"quoted\"\n" {
		t.Errorf("motd after round trip = %q", v)
	}
}
