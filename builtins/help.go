package builtins

import (
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/sandbox"
)

// helpName is the REPL's help builtin. It is not a helper of the root
// prompt (the prompt lists the helpers itself); it prints the same text.
const helpName = "help"

// pyHelp is help(obj=None): without an argument it prints the helpers with
// their signatures (the root prompt's list); with a helper, or a helper's
// name, it prints that helper's signature and description; for any other
// value it says what the value is and how to list its attributes.
func pyHelp(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var obj starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs(helpName, args, kwargs, 0, &obj); err != nil {
		return nil, err
	}
	printOut(thread, helpText(obj))
	return starlark.None, nil
}

// helpText is what help(obj) prints.
func helpText(obj starlark.Value) string {
	name := ""
	switch x := obj.(type) {
	case starlark.NoneType:
		return "Helpers (help(name) describes one; Python's builtins and modules work as usual, dir(x) lists a value's attributes):\n\n" +
			strings.TrimRight(PromptHelpFor(HelpOptions{Store: true, StoreChildren: true}), "\n")
	case starlark.String:
		if isIdent(string(x)) {
			name = string(x)
		}
	case *starlark.Builtin:
		name = x.Name()
	}
	if d, ok := helperDoc(name); ok {
		return d.Signature + "\n\n" + d.Summary
	}
	if name != "" {
		return fmt.Sprintf("%s: not one of the helpers (help() lists them); for a Python builtin, see Python's documentation", name)
	}
	return fmt.Sprintf("a value of type %s: dir(x) lists its attributes and methods", sandbox.TypeName(obj))
}

// helperDoc is the documentation of the helper called name.
func helperDoc(name string) (Doc, bool) {
	for _, hp := range helpers {
		if hp.Name == name {
			return hp.Doc, true
		}
	}
	return Doc{}, false
}

// HelperDoc is the __doc__ of the helper called name: its signature and
// description ("" if name is not a helper).
func HelperDoc(name string) string {
	if d, ok := helperDoc(name); ok {
		return d.Signature + "\n\n" + d.Summary
	}
	return ""
}

// isIdent reports whether s could name a helper (help("search")), as
// opposed to being a text to describe.
func isIdent(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, r := range s {
		if r != '_' && !('a' <= r && r <= 'z') && !('A' <= r && r <= 'Z') && (i == 0 || !('0' <= r && r <= '9')) {
			return false
		}
	}
	return true
}
