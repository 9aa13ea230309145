package sandbox

import (
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
	_ "github.com/rlmhq/rlm/sandbox/internal/pylib" // the modules code can import
)

// What a host's helpers (the builtins package) use: the names the sandbox
// predeclares, and the step running on a builtin's thread.

// NewBuiltin is starlark.NewBuiltin for the sandbox's builtins and the
// host's helpers: a Go panic inside fn (a bug, or an argument a builtin
// failed to check) becomes a Python SystemError raised by that call, with
// the line of the call, instead of ending the whole step without one.
func NewBuiltin(
	name string,
	fn func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error),
) *starlark.Builtin {
	return py.NewBuiltin(name, fn)
}

// IsBuiltinName reports whether name is one of the Python builtins the
// sandbox predeclares (print, len, ValueError, the auto-imported json, ...)
// or the name of a module it can import: a global of that name would hide
// it from the code (or be overwritten by the import).
func IsBuiltinName(name string) bool { return py.IsBuiltinName(name) }

// ModuleNames lists the modules code can import, sorted.
func ModuleNames() []string { return py.ModuleNames() }

// Interrupted returns the error of the limit (time, memory, output, the
// caller) that stopped the step running on thread, or nil: a long loop in
// a builtin calls it now and then and returns the error, which the step
// reports as the limit's.
func Interrupted(thread *starlark.Thread) error { return py.Interrupted(thread) }

// MatchBudget is the time one match of the backtracking engine may take
// on thread: what is left of the step's time limit (DefaultTimeout outside
// a step or without a limit). The search() helper bounds its matches with
// it too.
func MatchBudget(thread *starlark.Thread) time.Duration { return py.MatchBudget(thread) }

// StepGlobals returns the user-visible globals as the step running on
// thread sees them (values from previous steps and chunks, overlaid with
// the running chunk's own globals), names in definition order. Builtins
// call it instead of Session.Global/UserGlobals, which block while a step
// runs. Outside a step it returns nil.
func StepGlobals(thread *starlark.Thread) ([]string, starlark.StringDict) {
	return py.StepGlobals(thread)
}
