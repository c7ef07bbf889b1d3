package input

import (
	"testing"

	"example.com/logq/internal/record"
)

func TestTrailingBackslash(t *testing.T) {
	r, err := ParseLogfmt(`dir="C:\\logs\\" level=warn`, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Get("dir"); v != record.StringValue(`C:\logs\`) {
		t.Errorf("dir = %q", v.S)
	}
	if v, _ := r.Get("level"); v != record.StringValue("warn") {
		t.Errorf("level = %q", v.S)
	}
}
