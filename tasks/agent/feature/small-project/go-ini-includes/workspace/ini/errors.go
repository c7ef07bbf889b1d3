package ini

import "fmt"

// ParseError locates a problem in an INI file.
type ParseError struct {
	File string // file name as given to Parse / ParseFile
	Line int    // 1-based line number
	Msg  string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

func errorf(file string, line int, format string, args ...interface{}) *ParseError {
	return &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}
