package sandbox

import (
	"errors"
	"sync"

	"github.com/rlmhq/rlm/sandbox/internal/py"
	"github.com/rlmhq/rlm/sandbox/internal/pyfront"
)

// compileProgram turns the model's Python code into Starlark chunks;
// filename names the step in positions (see stepFile).
func compileProgram(filename, code string, nonlocal bool) (*pyfront.Program, error) {
	prog, err := pyfront.Compile(
		filename,
		code,
		pyfront.Options{
			StarImports: starImports(),
			CatchInner:  true,
			Classes:     true,
			CodePoints:  true,
			NativeOps:   true,
			NativeDepth: true,
			FoldCalls:   true,
			Nonlocal:    nonlocal,
			FStrings:    true,
		},
	)
	if err != nil {
		var pe *pyfront.Error
		if errors.As(err, &pe) {
			var cause error = err
			if pe.Unsupported {
				cause = &multiError{errs: []error{ErrUnsupported, err}}
			}
			return nil, newScriptError("SyntaxError", pe.Msg, pe.Line, cause, code, nil)
		}
		return nil, syntaxError(err, code)
	}
	return prog, nil
}

var (
	starOnce sync.Once
	starMap  map[string][]string
)

// starImports lists the names `from m import *` binds for each module.
func starImports() map[string][]string {
	starOnce.Do(func() { starMap = buildStarImports() })
	return starMap
}

func buildStarImports() map[string][]string {
	out := map[string][]string{}
	for _, name := range []string{"math", "collections", "itertools", "string", "statistics", "re", "json", "functools"} {
		if m, err := py.ImportModule(name); err == nil {
			out[name] = m.Members.Keys()
		}
	}
	return out
}

// multiError unwraps to several errors.
type multiError struct {
	errs []error
}

func (e *multiError) Error() string   { return e.errs[len(e.errs)-1].Error() }
func (e *multiError) Unwrap() []error { return e.errs }
