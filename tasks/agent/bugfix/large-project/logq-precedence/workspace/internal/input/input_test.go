package input

import (
	"strings"
	"testing"

	"example.com/logq/internal/record"
)

func TestLogfmt(t *testing.T) {
	r, err := ParseLogfmt(`level=info msg="hello world" n=42 ok=true flag`, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]record.Value{
		"level": record.StringValue("info"), "msg": record.StringValue("hello world"),
		"n": record.NumberValue(42), "ok": record.BoolValue(true), "flag": record.BoolValue(true),
	}
	for k, v := range want {
		if got, _ := r.Get(k); got != v {
			t.Errorf("%s = %+v, want %+v", k, got, v)
		}
	}
	if strings.Join(r.Order, ",") != "level,msg,n,ok,flag" {
		t.Errorf("order %v", r.Order)
	}
}

func TestJSONFlattens(t *testing.T) {
	r, err := ParseJSON(`{"a":{"b":1,"c":"x"},"list":[1,2],"z":null}`, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Get("a.b"); v != record.NumberValue(1) {
		t.Errorf("a.b = %+v", v)
	}
	if v, _ := r.Get("list"); v != record.StringValue("[1,2]") {
		t.Errorf("list = %+v", v)
	}
}

func TestReadSkipsBadLines(t *testing.T) {
	res, err := Read(strings.NewReader("a=1\n{bad json\n\nb=2\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 2 || len(res.Skipped) != 1 || !strings.HasPrefix(res.Skipped[0], "line 2:") {
		t.Fatalf("%d records, skipped %v", len(res.Records), res.Skipped)
	}
	if _, err := Read(strings.NewReader("{bad\n"), Options{Strict: true}); err == nil {
		t.Fatal("strict mode must fail")
	}
}
