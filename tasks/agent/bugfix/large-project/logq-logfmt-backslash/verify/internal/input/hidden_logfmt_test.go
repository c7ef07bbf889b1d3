package input

import (
	"math/rand"
	"strings"
	"testing"

	"example.com/logq/internal/record"
)

func encode(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

func TestHiddenBackslashes(t *testing.T) {
	cases := []struct {
		line string
		want map[string]string
	}{
		{`dir="C:\\logs\\" level=warn`, map[string]string{"dir": `C:\logs\`, "level": "warn"}},
		{`note="a\\" user="bob"`, map[string]string{"note": `a\`, "user": "bob"}},
		{`q="say \"hi\"" x="\\\"" y="\\\\"`, map[string]string{"q": `say "hi"`, "x": `\"`, "y": `\\`}},
		{`empty="" after="1 2"`, map[string]string{"empty": "", "after": "1 2"}},
		{`multi="line1\nline2\tend\\n"`, map[string]string{"multi": "line1\nline2\tend\\n"}},
		{`k="\\"`, map[string]string{"k": `\`}},
	}
	for _, c := range cases {
		r, err := ParseLogfmt(c.line, 1)
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if len(r.Order) != len(c.want) {
			t.Errorf("%s: fields %v, want %d fields", c.line, r.Order, len(c.want))
		}
		for k, v := range c.want {
			if got, _ := r.Get(k); got != record.StringValue(v) {
				t.Errorf("%s: %s = %+v, want %q", c.line, k, got, v)
			}
		}
	}
	for _, bad := range []string{`a="open`, `a="ends with escaped quote\"`, `a="x\\\"`} {
		if _, err := ParseLogfmt(bad, 3); err == nil || !strings.Contains(err.Error(), "line 3") {
			t.Errorf("%s: want an error naming line 3, got %v", bad, err)
		}
	}
}

func TestHiddenRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	alphabet := []string{`\`, `"`, "\n", "\t", " ", "=", "a", "b", "é", `\\`, `\"`, "z"}
	for i := 0; i < 5000; i++ {
		n := 1 + rng.Intn(4)
		var parts []string
		want := map[string]string{}
		for k := 0; k < n; k++ {
			var b strings.Builder
			for j := rng.Intn(8); j > 0; j-- {
				b.WriteString(alphabet[rng.Intn(len(alphabet))])
			}
			key := string(rune('a'+k)) + "k"
			want[key] = b.String()
			parts = append(parts, key+"="+encode(b.String()))
		}
		line := strings.Join(parts, " ")
		res, err := Read(strings.NewReader(line+"\n"), Options{Strict: true, Format: "logfmt"})
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		r := res.Records[0]
		if len(r.Order) != n {
			t.Fatalf("%s: fields %v", line, r.Order)
		}
		for k, v := range want {
			if got, _ := r.Get(k); got != record.StringValue(v) {
				t.Fatalf("%s: %s = %q, want %q", line, k, got.S, v)
			}
		}
	}
}
