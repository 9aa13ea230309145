package orchestrator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/sandbox"
)

// outputsVar is the REPL variable holding the full output of each step.
const outputsVar = "outputs"

// CheckVarName reports whether name can be a context variable of a run. A
// variable may not shadow a REPL helper (the model would lose search,
// SUBMIT, ...), a Python builtin (print, len, ...) or a module the sandbox
// provides (json, re, ...), nor outputs, which the engine fills with each
// step's output, nor a name starting and ending with "__" (Python's
// special names: __name__, __builtins__, ...).
// The error wraps ErrReservedName.
func CheckVarName(name string) error {
	if len(name) > 4 && strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") {
		return fmt.Errorf(
			"%w: %q: names starting and ending with __ are Python's special names; rename the variable (e.g. %s)",
			ErrReservedName,
			name,
			strings.Trim(name, "_"),
		)
	}
	if name == outputsVar {
		return fmt.Errorf(
			"%w: %q holds the full output of each step in the REPL; rename the variable (e.g. %s_)",
			ErrReservedName,
			name,
			name,
		)
	}
	for _, d := range builtins.Docs() {
		if d.Name == name {
			return fmt.Errorf(
				"%w: %q would hide the REPL helper %s; rename the variable (e.g. %s_)",
				ErrReservedName,
				name,
				d.Signature,
				name,
			)
		}
	}
	if slices.Contains(sandbox.ModuleNames(), name) {
		return fmt.Errorf(
			"%w: %q is the name of the Python module %s, which `import %s` would rebind; rename the variable (e.g. %s_)",
			ErrReservedName,
			name,
			name,
			name,
			name,
		)
	}
	if sandbox.IsBuiltinName(name) {
		return fmt.Errorf(
			"%w: %q would hide Python's builtin %s in the REPL; rename the variable (e.g. %s_)",
			ErrReservedName,
			name,
			name,
			name,
		)
	}
	return nil
}
