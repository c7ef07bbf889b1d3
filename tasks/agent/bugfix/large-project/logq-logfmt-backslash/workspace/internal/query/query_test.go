package query

import (
	"strings"
	"testing"

	"example.com/logq/internal/input"
	"example.com/logq/internal/record"
)

const logs = `level=info service=api latency_ms=12 user=ann
level=error service=api latency_ms=950 user=bob
level=warn service=worker latency_ms=300
level=error service=worker latency_ms=40 user=ann
level=info service=api latency_ms=25.5 user=cid`

func run(t *testing.T, q string) *Result {
	t.Helper()
	in, err := input.Read(strings.NewReader(logs), input.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := Parse(q)
	if err != nil {
		t.Fatalf("Parse(%q): %v", q, err)
	}
	res, err := Run(pl, in.Records)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func column(res *Result, name string) []string {
	var out []string
	for _, r := range res.Rows {
		v, _ := r.Get(name)
		out = append(out, v.Text())
	}
	return out
}

func TestWhereAndSort(t *testing.T) {
	res := run(t, `where latency_ms > 20 and service == "api" | sort latency_ms desc`)
	if got := strings.Join(column(res, "user"), ","); got != "bob,cid" {
		t.Errorf("users %s", got)
	}
}

func TestStats(t *testing.T) {
	res := run(t, `stats count(), max(latency_ms) as worst, distinct(user) by service`)
	if strings.Join(res.Columns, ",") != "service,count(),worst,distinct(user)" {
		t.Fatalf("columns %v", res.Columns)
	}
	if got := strings.Join(column(res, "worst"), ","); got != "950,300" {
		t.Errorf("worst %s", got)
	}
	if got := strings.Join(column(res, "distinct(user)"), ","); got != "3,1" {
		t.Errorf("distinct %s", got)
	}
}

func TestFunctionsAndIn(t *testing.T) {
	res := run(t, `where upper(level) in ("ERROR", "WARN") and not exists(user) | fields service`)
	if got := strings.Join(column(res, "service"), ","); got != "worker" {
		t.Errorf("got %s", got)
	}
	res = run(t, `where user =~ "^(ann|cid)$" | stats sum(round(latency_ms / 10)) as s`)
	if v, _ := res.Rows[0].Get("s"); v != record.NumberValue(1+4+3) {
		t.Errorf("s = %+v", v)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, q := range []string{"where", "where a ==", "stats avg()", "sort", "limit x", "nope", "where a =~ b", "where f(1)", "fields a |"} {
		if _, err := Parse(q); err == nil {
			t.Errorf("Parse(%q) should fail", q)
		}
	}
}
