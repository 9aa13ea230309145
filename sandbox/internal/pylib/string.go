package pylib

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

var _ = py.RegisterModule("string", stringModule)

// stringModule builds the string module on its first import.
func stringModule() *py.Module {
	return py.NewModule("string", map[string]py.BuiltinFn{"capwords": stringCapwords, "Template": stringTemplate}, starlark.StringDict{
		"ascii_letters":   starlark.String("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
		"ascii_lowercase": starlark.String("abcdefghijklmnopqrstuvwxyz"),
		"ascii_uppercase": starlark.String("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
		"digits":          starlark.String("0123456789"),
		"hexdigits":       starlark.String("0123456789abcdefABCDEF"),
		"octdigits":       starlark.String("01234567"),
		"punctuation":     starlark.String("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
		"whitespace":      starlark.String(" \t\n\r\x0b\x0c"),
		"printable": starlark.String(
			"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ \t\n\r\x0b\x0c",
		),
	})
}

// stringCapwords implements string.capwords.
func stringCapwords(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	var sep starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs("capwords", args, kwargs, 1, &s, &sep); err != nil {
		return nil, err
	}
	var words []string
	joiner := " "
	if sep == starlark.None {
		words = strings.Fields(s)
	} else {
		sp, ok := starlark.AsString(sep)
		if !ok {
			return nil, py.Errorf("TypeError", "capwords() argument 2 must be str or None")
		}
		words, joiner = strings.Split(s, sp), sp
	}
	for i, w := range words {
		r := []rune(w)
		if len(r) > 0 {
			words[i] = strings.ToUpper(string(r[:1])) + strings.ToLower(string(r[1:]))
		}
	}
	return starlark.String(strings.Join(words, joiner)), nil
}

// templateObj is string.Template.
type templateObj struct{ tmpl string }

// templatePattern finds the $ placeholders of a string.Template, compiled
// on first use.
var templatePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$(?:(\$)|([_a-zA-Z][_a-zA-Z0-9]*)|\{([_a-zA-Z][_a-zA-Z0-9]*)\}|())`)
})

func (t *templateObj) String() string        { return "<string.Template object>" }
func (t *templateObj) Type() string          { return "Template" }
func (t *templateObj) Freeze()               {}
func (t *templateObj) Truth() starlark.Bool  { return true }
func (t *templateObj) Hash() (uint32, error) { return starlark.String(t.tmpl).Hash() }

func (t *templateObj) AttrNames() []string {
	return []string{"safe_substitute", "substitute", "template"}
}

func (t *templateObj) Attr(name string) (starlark.Value, error) {
	switch name {
	case "template":
		return starlark.String(t.tmpl), nil
	case "substitute", "safe_substitute":
		safe := name == "safe_substitute"
		return py.NewBuiltin(
			"Template."+name,
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				if len(args) > 1 {
					return nil, py.Errorf("TypeError", "Too many positional arguments")
				}
				lookup := func(k string) (starlark.Value, bool, error) {
					for _, kv := range kwargs {
						if s, _ := starlark.AsString(kv[0]); s == k {
							return kv[1], true, nil
						}
					}
					if len(args) == 1 {
						m, ok := args[0].(starlark.Mapping)
						if !ok {
							return nil, false, py.Errorf("TypeError", "'%s' object is not subscriptable", py.PyType(args[0]))
						}
						v, found, err := m.Get(starlark.String(k))
						return v, found, err
					}
					return nil, false, nil
				}
				var b strings.Builder
				last := 0
				for _, m := range templatePattern().FindAllStringSubmatchIndex(t.tmpl, -1) {
					b.WriteString(t.tmpl[last:m[0]])
					last = m[1]
					switch {
					case m[2] >= 0:
						b.WriteByte('$')
					case m[4] >= 0 || m[6] >= 0:
						var k string
						if m[4] >= 0 {
							k = t.tmpl[m[4]:m[5]]
						} else {
							k = t.tmpl[m[6]:m[7]]
						}
						v, ok, err := lookup(k)
						if err != nil {
							return nil, err
						}
						if !ok {
							if safe {
								b.WriteString(t.tmpl[m[0]:m[1]])
								continue
							}
							return nil, &py.PyError{Kind: "KeyError", Msg: py.Repr(starlark.String(k))}
						}
						b.WriteString(py.Str(v))
					default:
						if safe {
							b.WriteString(t.tmpl[m[0]:m[1]])
							continue
						}
						line := 1 + strings.Count(t.tmpl[:m[0]], "\n")
						col := utf8.RuneCountInString(t.tmpl[strings.LastIndexByte(t.tmpl[:m[0]], '\n')+1:m[0]]) + 1
						return nil, py.Errorf("ValueError", "Invalid placeholder in string: line %d, col %d", line, col)
					}
				}
				b.WriteString(t.tmpl[last:])
				return starlark.String(b.String()), nil
			},
		), nil
	}
	return nil, nil
}

// stringTemplate implements string.Template(template).
func stringTemplate(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackPositionalArgs("Template", args, kwargs, 1, &s); err != nil {
		return nil, err
	}
	return &templateObj{tmpl: s}, nil
}
