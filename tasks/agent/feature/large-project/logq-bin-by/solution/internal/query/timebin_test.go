package query

import (
	"testing"

	"example.com/logq/internal/record"
)

func TestBinTime(t *testing.T) {
	got := binTime(record.StringValue("2024-05-01T12:07:30+02:00"), record.NumberValue(300))
	if got != record.StringValue("2024-05-01T10:05:00Z") {
		t.Errorf("got %+v", got)
	}
	if binTime(record.StringValue("nope"), record.NumberValue(60)).Kind != record.Null {
		t.Error("unreadable time must give null")
	}
}

func TestDurationLiteral(t *testing.T) {
	pl, err := Parse("stats count() by bin(ts, 1h30m)")
	if err != nil {
		t.Fatal(err)
	}
	by := pl.Stages[0].(*Stats).By[0]
	if by.Name != "bin(ts, 1h30m)" || by.Expr.(*Call).Args[1].(*Lit).V.N != 5400 {
		t.Errorf("by = %+v", by)
	}
}
