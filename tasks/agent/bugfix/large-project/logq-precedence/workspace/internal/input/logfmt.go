package input

import (
	"fmt"
	"strings"

	"example.com/logq/internal/record"
)

// ParseLogfmt reads `key=value key2="quoted value" flag` pairs. Quoted values understand \" \\ \n \t;
// a bare key without '=' is a true boolean.
func ParseLogfmt(line string, n int) (*record.Record, error) {
	r := record.New(n)
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			break
		}
		start := i
		for i < len(line) && line[i] != '=' && line[i] != ' ' && line[i] != '\t' && line[i] != '"' {
			i++
		}
		key := line[start:i]
		if key == "" {
			return nil, fmt.Errorf("line %d: expected a key at column %d", n, i+1)
		}
		if i >= len(line) || line[i] != '=' {
			r.Set(key, record.BoolValue(true))
			continue
		}
		i++ // '='
		if i < len(line) && line[i] == '"' {
			value, next, err := quoted(line, i)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n, err)
			}
			r.Set(key, record.StringValue(value))
			i = next
			continue
		}
		start = i
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			i++
		}
		r.Set(key, record.Infer(line[start:i]))
	}
	return r, nil
}

// quoted reads a double-quoted string starting at line[i] == '"'; returns the value and the index after it.
func quoted(line string, i int) (string, int, error) {
	var b strings.Builder
	for j := i + 1; j < len(line); j++ {
		switch c := line[j]; c {
		case '"':
			return b.String(), j + 1, nil
		case '\\':
			if j+1 >= len(line) {
				return "", 0, fmt.Errorf("dangling backslash at column %d", j+1)
			}
			j++
			switch line[j] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(line[j])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("unterminated quoted value starting at column %d", i+1)
}
