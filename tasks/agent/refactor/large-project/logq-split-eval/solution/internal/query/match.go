package query

import (
	"fmt"
	"regexp"
	"strings"

	"example.com/logq/internal/record"
)

// regexpFor compiles a pattern once per Env.
func (env *Env) regexpFor(pattern string) (*regexp.Regexp, error) {
	if re, ok := env.regexps[pattern]; ok {
		return re, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("bad regular expression %q: %v", pattern, err)
	}
	env.regexps[pattern] = re
	return re, nil
}

// matchOp handles =~ !~ (regular expressions) and contains / startswith (substrings of the text forms).
func (env *Env) matchOp(op string, l, r record.Value) (record.Value, error) {
	if op == "=~" || op == "!~" {
		re, err := env.regexpFor(r.S)
		if err != nil {
			return record.NullValue(), err
		}
		if l.Kind == record.Null {
			return record.BoolValue(op == "!~"), nil
		}
		return record.BoolValue(re.MatchString(l.Text()) == (op == "=~")), nil
	}
	if l.Kind == record.Null || r.Kind == record.Null {
		return record.BoolValue(false), nil
	}
	if op == "contains" {
		return record.BoolValue(strings.Contains(l.Text(), r.Text())), nil
	}
	return record.BoolValue(strings.HasPrefix(l.Text(), r.Text())), nil
}
