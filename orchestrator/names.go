package orchestrator

import (
	"fmt"

	"github.com/rlmhq/rlm/builtins"
)

// outputsVar is the REPL variable holding the full output of each step.
const outputsVar = "outputs"

// CheckVarName reports whether name can be a context variable of a run. A
// variable may not shadow a REPL helper (the model would lose len, search,
// SUBMIT, ...) nor outputs, which the engine fills with each step's output.
// The error wraps ErrReservedName.
func CheckVarName(name string) error {
	if name == outputsVar {
		return fmt.Errorf("%w: %q holds the full output of each step in the REPL; rename the variable (e.g. %s_)", ErrReservedName, name, name)
	}
	for _, d := range builtins.Docs() {
		if d.Name == name {
			return fmt.Errorf("%w: %q would hide the REPL helper %s; rename the variable (e.g. %s_)", ErrReservedName, name, d.Signature, name)
		}
	}
	return nil
}
