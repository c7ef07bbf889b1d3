package query

import "testing"

func TestAndBindsTighterThanOr(t *testing.T) {
	pl, err := Parse(`where a == 1 or b == 1 and c == 1`)
	if err != nil {
		t.Fatal(err)
	}
	if got := pl.Stages[0].(*Where).Cond.String(); got != "((a == 1) or ((b == 1) and (c == 1)))" {
		t.Errorf("parsed as %s", got)
	}
}
