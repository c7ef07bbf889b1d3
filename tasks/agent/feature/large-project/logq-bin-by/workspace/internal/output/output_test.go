package output

import (
	"bytes"
	"testing"

	"example.com/logq/internal/query"
	"example.com/logq/internal/record"
)

func sample() *query.Result {
	a := record.New(1)
	a.Set("name", record.StringValue("x,y"))
	a.Set("n", record.NumberValue(2.5))
	b := record.New(2)
	b.Set("name", record.StringValue("z"))
	b.Set("n", record.NumberValue(1e20))
	b.Set("ok", record.BoolValue(true))
	return &query.Result{Columns: []string{"name", "n", "ok"}, Rows: []*record.Record{a, b}}
}

func TestWriters(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	want := "name      n  ok\n----  -----  ----\nx,y     2.5  -\nz     1e+20  true\n"
	if buf.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", buf.String(), want)
	}
	buf.Reset()
	WriteCSV(&buf, sample())
	if buf.String() != "name,n,ok\n\"x,y\",2.5,\nz,1e+20,true\n" {
		t.Errorf("csv: %q", buf.String())
	}
	buf.Reset()
	WriteJSON(&buf, sample())
	if buf.String() != "{\"name\":\"x,y\",\"n\":2.5,\"ok\":null}\n{\"name\":\"z\",\"n\":1e+20,\"ok\":true}\n" {
		t.Errorf("json: %q", buf.String())
	}
}
