package py

import (
	"fmt"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/internal/pyre"
)

// The interpreter runs the front end's native %, *, subscripts, slices
// and for loops with Python's semantics through these hooks, and finds
// substrings for `in` with the rare-byte literal scan (pyre.IndexLiteral), (a patch in
// internal/starlark), instead of through calls to the _py_mod,
// _py_mul, _py_getitem, _py_getslice and _py_iter helpers: same code,
// without a builtin call per operation.
func init() {
	starlark.PyOps = &starlark.PyOpsHooks{
		Binary: func(thread *starlark.Thread, op syntax.Token, x, y starlark.Value) (starlark.Value, error) {
			switch op {
			case syntax.PERCENT:
				return pyMod(thread, x, y)
			case syntax.STAR:
				return pyMul(thread, x, y)
			}
			return nil, fmt.Errorf("unexpected operator %s", op)
		},
		Index:    pyIndex,
		Slice:    pySlice,
		Iterable: pyIterable,
		Contains: func(haystack, needle string) bool { return pyre.IndexLiteral(haystack, needle) >= 0 },
		Method:   methodHook,
		CaseMap:  caseMap,
	}
}
