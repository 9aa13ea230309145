package starlark

// rlm: an Unwinding error ends a call the way an error does, but is no
// error of the program: a builtin that called the function returning it
// takes it back at once (the sandbox's any/all over a generator
// expression stop its comprehension with one when the answer is known).
// Call and the interpreter pass it on as it is, with no EvalError around
// it, so no call stack is captured for it (for a call made once per
// element of a loop, that capture cost more than the rest of the stop).

// Unwinding is implemented by errors that Call and the interpreter pass
// on without wrapping them in an EvalError.
type Unwinding interface {
	error
	Unwinding()
}

// needsEvalError reports whether err is to be wrapped in an EvalError
// with the call stack: it is neither one already nor Unwinding.
func needsEvalError(err error) bool {
	switch err.(type) {
	case *EvalError, Unwinding:
		return false
	}
	return true
}
