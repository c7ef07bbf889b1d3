// Package ini reads INI configuration files into ordered sections of key/value pairs.
//
// Format: `[section]` headers, `key = value` lines, comments starting with `;` or `#`, blank lines.
// Keys before the first header belong to the unnamed section "". Section and key names are
// case-insensitive and stored lower-case. Values are trimmed; a value in double quotes keeps its
// spaces and understands the escapes \" \\ \n \t. A repeated key replaces the earlier value but keeps
// its original position.
package ini

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Key is one key/value pair and the line it came from.
type Key struct {
	Name  string
	Value string
	File  string
	Line  int
}

// Section is a named, ordered list of keys.
type Section struct {
	Name string
	Keys []*Key
}

// File is a parsed INI document: sections in order of first appearance.
type File struct {
	Sections []*Section
}

// Section returns the named section, or nil.
func (f *File) Section(name string) *Section {
	name = strings.ToLower(name)
	for _, s := range f.Sections {
		if s.Name == name {
			return s
		}
	}
	return nil
}

func (f *File) section(name string) *Section {
	if s := f.Section(name); s != nil {
		return s
	}
	s := &Section{Name: name}
	f.Sections = append(f.Sections, s)
	return s
}

// Key returns the named key of the section, or nil.
func (s *Section) Key(name string) *Key {
	name = strings.ToLower(name)
	for _, k := range s.Keys {
		if k.Name == name {
			return k
		}
	}
	return nil
}

func (s *Section) set(k *Key) {
	if old := s.Key(k.Name); old != nil {
		old.Value, old.File, old.Line = k.Value, k.File, k.Line
		return
	}
	s.Keys = append(s.Keys, k)
}

// Get returns the value of section.key.
func (f *File) Get(section, key string) (string, bool) {
	s := f.Section(section)
	if s == nil {
		return "", false
	}
	k := s.Key(key)
	if k == nil {
		return "", false
	}
	return k.Value, true
}

// GetDefault returns the value of section.key, or def when it is missing.
func (f *File) GetDefault(section, key, def string) string {
	if v, ok := f.Get(section, key); ok {
		return v
	}
	return def
}

// GetInt parses section.key as a base-10 integer.
func (f *File) GetInt(section, key string) (int, error) {
	v, ok := f.Get(section, key)
	if !ok {
		return 0, fmt.Errorf("%s.%s: missing", section, key)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s.%s: not an integer: %q", section, key, v)
	}
	return n, nil
}

// GetBool understands true/false, yes/no, on/off and 1/0.
func (f *File) GetBool(section, key string) (bool, error) {
	v, ok := f.Get(section, key)
	if !ok {
		return false, fmt.Errorf("%s.%s: missing", section, key)
	}
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("%s.%s: not a boolean: %q", section, key, v)
}

// GetDuration parses section.key with time.ParseDuration.
func (f *File) GetDuration(section, key string) (time.Duration, error) {
	v, ok := f.Get(section, key)
	if !ok {
		return 0, fmt.Errorf("%s.%s: missing", section, key)
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s.%s: not a duration: %q", section, key, v)
	}
	return d, nil
}
