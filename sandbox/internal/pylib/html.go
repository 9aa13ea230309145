package pylib

import (
	"html"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// htmlEscape is html.escape.
func htmlEscape(s string, quote bool) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	if quote {
		r = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")
	}
	return r.Replace(s)
}

var _ = py.RegisterModule("html", htmlModule)

// htmlModule builds the html module on its first import.
func htmlModule() *py.Module {
	return py.NewModule("html", map[string]py.BuiltinFn{
		"escape": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			quote := true
			if err := starlark.UnpackArgs("escape", args, kwargs, "s", &s, "quote?", &quote); err != nil {
				return nil, err
			}
			if err := py.CheckAlloc(thread, int64(len(s))*6); err != nil {
				return nil, err
			}
			return starlark.String(htmlEscape(s, quote)), nil
		},
		"unescape": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			if err := starlark.UnpackArgs("unescape", args, kwargs, "s", &s); err != nil {
				return nil, err
			}
			return starlark.String(html.UnescapeString(s)), nil
		},
	}, nil)
}
