package query

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"example.com/logq/internal/record"
)

func rec(fields map[string]record.Value) *record.Record {
	r := record.New(1)
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r.Set(k, fields[k])
	}
	return r
}

func mustRun(t *testing.T, q string, recs []*record.Record) *Result {
	t.Helper()
	pl, err := Parse(q)
	if err != nil {
		t.Fatalf("Parse(%q): %v", q, err)
	}
	res, err := Run(pl, recs)
	if err != nil {
		t.Fatalf("Run(%q): %v", q, err)
	}
	return res
}

func cell(r *record.Record, name string) string {
	v, _ := r.Get(name)
	if v.Kind == record.Null {
		return "<null>"
	}
	return v.Text()
}

func TestHiddenDurationsAndSyntax(t *testing.T) {
	r := []*record.Record{rec(map[string]record.Value{"d": record.NumberValue(90)})}
	for q, want := range map[string]int{
		"where d == 90s": 1, "where d == 1m30s": 1, "where 86400 == 1d": 1, "where 2h30m == 9000": 1,
		"where 1d12h == 129600": 1, "where d < 1m": 0, "where d + 30s == 2m": 1,
	} {
		if got := len(mustRun(t, q, r).Rows); got != want {
			t.Errorf("%s: %d rows, want %d", q, got, want)
		}
	}
	for _, q := range []string{"where d == 5x", "where d == 5ms", "where d == 1.5h", "where d == 1h30", "stats count() by",
		"stats count() by a as", "where bin(ts) == 1", "where bin(ts, 5m, 1) == 1", "where d == 3hh"} {
		if _, err := Parse(q); err == nil {
			t.Errorf("Parse(%q) should fail", q)
		}
	}
}

func TestHiddenBinValues(t *testing.T) {
	cases := []struct {
		ts    record.Value
		width string
		want  string
	}{
		{record.StringValue("2024-05-01T12:07:30+02:00"), "5m", "2024-05-01T10:05:00Z"},
		{record.StringValue("2024-05-01T10:04:59.999Z"), "5m", "2024-05-01T10:00:00Z"},
		{record.StringValue("2024-05-01T10:05:00Z"), "5m", "2024-05-01T10:05:00Z"},
		{record.StringValue("2024-05-01T23:59:59-05:00"), "1d", "2024-05-02T00:00:00Z"},
		{record.NumberValue(1714557600), "1h", "2024-05-01T10:00:00Z"},
		{record.NumberValue(1714557600123), "1h", "2024-05-01T10:00:00Z"},
		{record.NumberValue(99999999999), "1d", "5138-11-16T00:00:00Z"},
		{record.NumberValue(-1), "1m", "1969-12-31T23:59:00Z"},
		{record.NumberValue(1714557600), "2h30m", "2024-05-01T09:00:00Z"},
		{record.NumberValue(1714554000 - 1), "2h30m", "2024-05-01T06:30:00Z"},
		{record.NumberValue(1714557599.5), "1s", "2024-05-01T09:59:59Z"},
		{record.StringValue("yesterday"), "1h", "<null>"},
		{record.NullValue(), "1h", "<null>"},
		{record.BoolValue(true), "1h", "<null>"},
		{record.NumberValue(1714557600), "0", "<null>"},
		{record.NumberValue(1714557600), "1.5", "<null>"},
		{record.NumberValue(1714557600), "-60", "<null>"},
	}
	for _, c := range cases {
		r := []*record.Record{rec(map[string]record.Value{"ts": c.ts})}
		res := mustRun(t, "stats count() by bin(ts, "+c.width+") as b", r)
		if got := cell(res.Rows[0], "b"); got != c.want {
			t.Errorf("bin(%+v, %s) = %s, want %s", c.ts, c.width, got, c.want)
		}
	}
}

func TestHiddenByColumns(t *testing.T) {
	recs := []*record.Record{
		rec(map[string]record.Value{"ts": record.StringValue("2024-05-01T10:01:00Z"), "service": record.StringValue("API")}),
		rec(map[string]record.Value{"ts": record.StringValue("2024-05-01T10:07:00Z"), "service": record.StringValue("api")}),
		rec(map[string]record.Value{"ts": record.StringValue("2024-05-01T10:02:00Z"), "service": record.StringValue("db")}),
		rec(map[string]record.Value{"service": record.StringValue("db")}),
	}
	res := mustRun(t, "stats count() by bin(ts, 5m) as window, service", recs)
	if strings.Join(res.Columns, "|") != "window|service|count()" {
		t.Fatalf("columns %v", res.Columns)
	}
	var rows []string
	for _, r := range res.Rows {
		rows = append(rows, cell(r, "window")+" "+cell(r, "service")+" "+cell(r, "count()"))
	}
	want := "<null> db 1,2024-05-01T10:00:00Z API 1,2024-05-01T10:00:00Z db 1,2024-05-01T10:05:00Z api 1"
	if strings.Join(rows, ",") != want {
		t.Errorf("rows\n %s\nwant\n %s", strings.Join(rows, ","), want)
	}
	res = mustRun(t, "stats count() as n by bin(ts, 1h30m), lower(service) | sort n desc", recs)
	if strings.Join(res.Columns, "|") != "bin(ts, 1h30m)|lower(service)|n" {
		t.Fatalf("columns %v", res.Columns)
	}
	if cell(res.Rows[0], "lower(service)") != "api" || cell(res.Rows[0], "n") != "2" {
		t.Errorf("first row %s %s", cell(res.Rows[0], "lower(service)"), cell(res.Rows[0], "n"))
	}
	res = mustRun(t, "stats count() as n by service | sort n desc, service", recs)
	if strings.Join(res.Columns, "|") != "service|n" || cell(res.Rows[0], "service") != "db" {
		t.Errorf("plain by: %v first %s", res.Columns, cell(res.Rows[0], "service"))
	}
}

func TestHiddenRandomBuckets(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	base := time.Date(2024, 3, 30, 22, 0, 0, 0, time.UTC).Unix()
	var recs []*record.Record
	var secs []float64
	for i := 0; i < 3000; i++ {
		unix := base + int64(rng.Intn(4*86400))
		nanos := rng.Intn(1000) * int(time.Millisecond)
		t0 := time.Unix(unix, int64(nanos))
		var ts record.Value
		switch rng.Intn(4) {
		case 0:
			zone := time.FixedZone("z", (rng.Intn(27)-12)*3600+rng.Intn(2)*1800)
			ts = record.StringValue(t0.In(zone).Format(time.RFC3339Nano))
		case 1:
			ts = record.NumberValue(float64(unix))
			nanos = 0
		case 2:
			ts = record.NumberValue(float64(unix*1000 + int64(nanos/int(time.Millisecond))))
		default:
			ts = record.StringValue(t0.UTC().Format(time.RFC3339))
			nanos = 0
		}
		recs = append(recs, rec(map[string]record.Value{"ts": ts, "v": record.NumberValue(float64(i % 7))}))
		secs = append(secs, float64(unix)+float64(nanos)/1e9)
	}
	for _, width := range []string{"30s", "5m", "1h", "1d", "90s", "2h30m", "7m", "1d1h"} {
		pl, err := Parse("where 1 == 1 | stats count(), sum(v) by bin(ts, " + width + ") as b | sort b")
		if err != nil {
			t.Fatal(err)
		}
		w := pl.Stages[1].(*Stats).By[0].Expr.(*Call).Args[1].(*Lit).V.N
		want := map[string][2]float64{}
		for i, s := range secs {
			start := math.Floor(s/w) * w
			key := time.Unix(int64(start), 0).UTC().Format("2006-01-02T15:04:05Z")
			acc := want[key]
			acc[0]++
			acc[1] += float64(i % 7)
			want[key] = acc
		}
		res, err := Run(pl, recs)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != len(want) {
			t.Fatalf("width %s: %d buckets, want %d", width, len(res.Rows), len(want))
		}
		prev := ""
		for _, r := range res.Rows {
			b := cell(r, "b")
			got := fmt.Sprintf("%s/%s", cell(r, "count()"), cell(r, "sum(v)"))
			exp := fmt.Sprintf("%v/%v", want[b][0], want[b][1])
			if got != exp || b <= prev {
				t.Fatalf("width %s bucket %s: got %s want %s (previous %s)", width, b, got, exp, prev)
			}
			prev = b
		}
	}
}
