package ini

import (
	"bufio"
	"io"
	"os"
	"strings"
)

// ParseFile reads and parses the named file.
func ParseFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return Parse(fh, path)
}

// Parse reads an INI document; name is used in error messages.
func Parse(r io.Reader, name string) (*File, error) {
	f := &File{}
	p := &parser{file: f, name: name, current: ""}
	if err := p.parse(r); err != nil {
		return nil, err
	}
	return f, nil
}

type parser struct {
	file    *File
	name    string
	current string
}

func (p *parser) parse(r io.Reader) error {
	scanner := bufio.NewScanner(r)
	lineNo := 0
	for scanner.Scan() {
		lineNo++
		if err := p.line(scanner.Text(), lineNo); err != nil {
			return err
		}
	}
	if err := scanner.Err(); err != nil {
		return errorf(p.name, lineNo, "read error: %v", err)
	}
	return nil
}

func (p *parser) line(raw string, lineNo int) error {
	text := strings.TrimSpace(raw)
	if lineNo == 1 {
		text = strings.TrimPrefix(text, "\ufeff")
	}
	switch {
	case text == "" || strings.HasPrefix(text, ";") || strings.HasPrefix(text, "#"):
		return nil
	case strings.HasPrefix(text, "["):
		if !strings.HasSuffix(text, "]") {
			return errorf(p.name, lineNo, "unterminated section header %q", text)
		}
		name := strings.ToLower(strings.TrimSpace(text[1 : len(text)-1]))
		if name == "" {
			return errorf(p.name, lineNo, "empty section name")
		}
		p.current = name
		p.file.section(name)
		return nil
	}
	eq := strings.IndexByte(text, '=')
	if eq < 0 {
		return errorf(p.name, lineNo, "expected key = value, got %q", text)
	}
	key := strings.ToLower(strings.TrimSpace(text[:eq]))
	if key == "" {
		return errorf(p.name, lineNo, "missing key before '='")
	}
	value, err := parseValue(strings.TrimSpace(text[eq+1:]))
	if err != nil {
		return errorf(p.name, lineNo, "%s: %v", key, err)
	}
	p.file.section(p.current).set(&Key{Name: key, Value: value, File: p.name, Line: lineNo})
	return nil
}
