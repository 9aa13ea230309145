package py

import (
	"sort"
	"strings"
	"sync"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// builtinNames is the set of names IsBuiltinName accepts.
var builtinNames = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for name := range starlark.Universe {
		m[name] = true
	}
	for name := range PyBuiltins() {
		if !strings.HasPrefix(name, "_py_") {
			m[name] = true
		}
	}
	for name := range Modules {
		m[name] = true
	}
	return m
})

// IsBuiltinName reports whether name is one of the Python builtins the
// sandbox predeclares (print, len, ValueError, the auto-imported json, ...)
// or the name of a module it can import: a global of that name would hide
// it from the code (or be overwritten by the import).
func IsBuiltinName(name string) bool { return builtinNames()[name] }

// ModuleNames lists the modules code can import, sorted.
func ModuleNames() []string {
	out := make([]string, 0, len(Modules))
	for name := range Modules {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
