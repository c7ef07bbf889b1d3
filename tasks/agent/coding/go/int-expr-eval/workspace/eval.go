// Package calc evaluates integer formulas with overflow checking.
package calc

import "errors"

// Errors returned by Eval (possibly wrapped).
var (
	ErrSyntax           = errors.New("syntax error")
	ErrDivByZero        = errors.New("division by zero")
	ErrNegativeExponent = errors.New("negative exponent")
	ErrOverflow         = errors.New("integer overflow")
)

// Eval parses and evaluates expr.
func Eval(expr string) (int64, error) {
	return 0, errors.New("not implemented")
}
