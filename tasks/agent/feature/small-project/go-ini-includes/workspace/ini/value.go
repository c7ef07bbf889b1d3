package ini

import (
	"errors"
	"strings"
)

// parseValue handles quoted values and strips trailing comments from unquoted ones.
func parseValue(raw string) (string, error) {
	if !strings.HasPrefix(raw, "\"") {
		for _, marker := range []string{" ;", " #", "\t;", "\t#"} {
			if i := strings.Index(raw, marker); i >= 0 {
				raw = raw[:i]
			}
		}
		return strings.TrimSpace(raw), nil
	}
	var b strings.Builder
	for i := 1; i < len(raw); i++ {
		c := raw[i]
		switch c {
		case '"':
			rest := strings.TrimSpace(raw[i+1:])
			if rest != "" && !strings.HasPrefix(rest, ";") && !strings.HasPrefix(rest, "#") {
				return "", errors.New("text after closing quote")
			}
			return b.String(), nil
		case '\\':
			if i+1 >= len(raw) {
				return "", errors.New("dangling backslash")
			}
			i++
			switch raw[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '"', '\\':
				b.WriteByte(raw[i])
			default:
				return "", errors.New("unknown escape \\" + string(raw[i]))
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", errors.New("unterminated quoted value")
}
