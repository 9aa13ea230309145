package pyfront

import (
	"errors"
	"fmt"
)

// ErrUnsupported is wrapped by errors for valid Python that the sandbox
// does not support (class, with, yield, ...).
var ErrUnsupported = errors.New("pyfront: unsupported Python construct")

// ErrSyntax is wrapped by errors for source that is not valid Python.
var ErrSyntax = errors.New("pyfront: invalid syntax")

// An Error is a compile error at a position of the model's code.
type Error struct {
	Pos         Position // position of the offending token
	Line, Col   int      // 1-based line and column (copies of Pos)
	Msg         string   // what is wrong and, where possible, what to write instead
	Unsupported bool     // valid Python that is not supported here
	// Incomplete is set when the source ended inside an open block,
	// bracket or triple-quoted string: a REPL should read more lines.
	Incomplete bool
}

// IsIncomplete reports whether err is a compile error caused by input
// that ends too early (e.g. "def f():" or "xs = [1,"), so that an
// interactive prompt should ask for a continuation line.
func IsIncomplete(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Incomplete
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Pos.Filename(), e.Line, e.Col, e.Msg)
}

// Unwrap returns ErrUnsupported or ErrSyntax.
func (e *Error) Unwrap() error {
	if e.Unsupported {
		return ErrUnsupported
	}
	return ErrSyntax
}
