package ini

import (
	"fmt"
	"io"
	"strings"
)

// needsQuotes reports whether a value must be quoted to survive a round trip.
func needsQuotes(v string) bool {
	return v != strings.TrimSpace(v) || strings.ContainsAny(v, "\"\\\n\t;#") || v == ""
}

func quote(v string) string {
	r := strings.NewReplacer("\\", "\\\\", "\"", "\\\"", "\n", "\\n", "\t", "\\t")
	return "\"" + r.Replace(v) + "\""
}

// WriteTo writes the file in canonical form: the unnamed section first, one blank line between sections.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	first := true
	for _, s := range f.Sections {
		if s.Name == "" && len(s.Keys) == 0 {
			continue
		}
		if !first {
			b.WriteString("\n")
		}
		first = false
		if s.Name != "" {
			fmt.Fprintf(&b, "[%s]\n", s.Name)
		}
		for _, k := range s.Keys {
			v := strings.ReplaceAll(k.Value, "$", "$$") // values are stored resolved
			if needsQuotes(v) {
				v = quote(v)
			}
			fmt.Fprintf(&b, "%s = %s\n", k.Name, v)
		}
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}
