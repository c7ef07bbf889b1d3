package ini

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
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
	p := &parser{file: f, name: name, current: "", stack: []string{absPath(name)}}
	if err := p.parse(r); err != nil {
		return nil, err
	}
	if err := f.interpolate(); err != nil {
		return nil, err
	}
	return f, nil
}

type parser struct {
	file    *File
	name    string
	current string
	stack   []string // absolute paths of the files being read, outermost first
}

func absPath(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return filepath.Clean(name)
}

// include reads another file in place of the directive, then restores the active section.
func (p *parser) include(arg string, lineNo int) error {
	target := strings.TrimSpace(arg)
	if target == "" {
		return errorf(p.name, lineNo, "%%include needs a path")
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p.name), target)
	}
	abs := absPath(target)
	for i, open := range p.stack {
		if open == abs {
			chain := append(append([]string{}, p.stack[i:]...), abs)
			for j := range chain {
				chain[j] = filepath.Base(chain[j])
			}
			return errorf(p.name, lineNo, "include cycle: %s", strings.Join(chain, " -> "))
		}
	}
	fh, err := os.Open(target)
	if err != nil {
		return errorf(p.name, lineNo, "include %s: %v", arg, err)
	}
	defer fh.Close()
	child := &parser{file: p.file, name: target, current: p.current, stack: append(p.stack[:len(p.stack):len(p.stack)], abs)}
	return child.parse(fh)
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
	case text == "%include" || strings.HasPrefix(text, "%include ") || strings.HasPrefix(text, "%include\t"):
		return p.include(text[len("%include"):], lineNo)
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
