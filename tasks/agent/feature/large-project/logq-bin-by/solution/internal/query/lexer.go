package query

import (
	"fmt"
	"strconv"
	"strings"
)

// TokKind classifies tokens.
type TokKind int

const (
	TEOF TokKind = iota
	TIdent
	TNumber
	TString
	TOp
	TDuration // 30s, 5m, 2h, 1d, 1h30m: Num holds seconds, Text the literal as written
)

// Token is one lexical token with its byte offset in the query.
type Token struct {
	Kind TokKind
	Text string // identifier/operator text, or the decoded string literal
	Num  float64
	Pos  int
}

// SyntaxError points at a position in the query text.
type SyntaxError struct {
	Pos int
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("syntax error at offset %d: %s", e.Pos, e.Msg) }

var operators = []string{"==", "!=", "<=", ">=", "=~", "!~", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", "|"}

func isIdentStart(c byte) bool {
	return c == '_' || c == '@' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || c == '.' || (c >= '0' && c <= '9')
}

// Lex splits a query into tokens.
func Lex(src string) ([]Token, error) {
	var toks []Token
	i := 0
outer:
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isIdentStart(c):
			start := i
			for i < len(src) && isIdentPart(src[i]) {
				i++
			}
			toks = append(toks, Token{Kind: TIdent, Text: src[start:i], Pos: start})
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9'):
			start := i
			for i < len(src) && (src[i] >= '0' && src[i] <= '9' || src[i] == '.' || src[i] == 'e' || src[i] == 'E' ||
				((src[i] == '-' || src[i] == '+') && (src[i-1] == 'e' || src[i-1] == 'E'))) {
				i++
			}
			n, err := strconv.ParseFloat(src[start:i], 64)
			if err != nil {
				return nil, &SyntaxError{start, fmt.Sprintf("bad number %q", src[start:i])}
			}
			if i < len(src) && isIdentStart(src[i]) {
				tok, next, err := lexDuration(src, start)
				if err != nil {
					return nil, err
				}
				toks = append(toks, tok)
				i = next
				continue
			}
			toks = append(toks, Token{Kind: TNumber, Text: src[start:i], Num: n, Pos: start})
		case c == '"' || c == '\'':
			text, next, err := lexString(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, Token{Kind: TString, Text: text, Pos: i})
			i = next
		default:
			for _, op := range operators {
				if strings.HasPrefix(src[i:], op) {
					toks = append(toks, Token{Kind: TOp, Text: op, Pos: i})
					i += len(op)
					continue outer
				}
			}
			return nil, &SyntaxError{i, fmt.Sprintf("unexpected character %q", c)}
		}
	}
	return append(toks, Token{Kind: TEOF, Pos: len(src)}), nil
}

var durationUnits = map[byte]float64{'s': 1, 'm': 60, 'h': 3600, 'd': 86400}

// lexDuration reads one or more <digits><unit> groups (units s, m, h, d) starting at src[start].
func lexDuration(src string, start int) (Token, int, error) {
	i := start
	total := 0.0
	for i < len(src) && src[i] >= '0' && src[i] <= '9' {
		j := i
		for j < len(src) && src[j] >= '0' && src[j] <= '9' {
			j++
		}
		if j >= len(src) || durationUnits[src[j]] == 0 {
			return Token{}, 0, badDuration(src, start)
		}
		n, _ := strconv.ParseFloat(src[i:j], 64)
		total += n * durationUnits[src[j]]
		i = j + 1
	}
	if i < len(src) && isIdentPart(src[i]) {
		return Token{}, 0, badDuration(src, start)
	}
	return Token{Kind: TDuration, Text: src[start:i], Num: total, Pos: start}, i, nil
}

func badDuration(src string, start int) error {
	end := start
	for end < len(src) && (isIdentPart(src[end]) || src[end] == '.') {
		end++
	}
	return &SyntaxError{start, fmt.Sprintf("bad duration %q (use units s, m, h, d, e.g. 90s, 5m, 1h30m)", src[start:end])}
}

func lexString(src string, i int) (string, int, error) {
	quote := src[i]
	var b strings.Builder
	for j := i + 1; j < len(src); j++ {
		c := src[j]
		if c == quote {
			return b.String(), j + 1, nil
		}
		if c == '\\' && j+1 < len(src) {
			j++
			switch src[j] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(src[j])
			}
			continue
		}
		b.WriteByte(c)
	}
	return "", 0, &SyntaxError{i, "unterminated string"}
}
