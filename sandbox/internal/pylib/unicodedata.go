package pylib

import (
	"strings"
	"unicode"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/runenames"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// unicodedata: name, lookup, category, normalize, is_normalized and the
// numeric helpers, from Go's and golang.org/x/text's Unicode tables (the
// Unicode version may differ slightly from CPython 3.11's 14.0).

var unicodeCategories = []string{
	"Lu",
	"Ll",
	"Lt",
	"Lm",
	"Lo",
	"Mn",
	"Mc",
	"Me",
	"Nd",
	"Nl",
	"No",
	"Pc",
	"Pd",
	"Ps",
	"Pe",
	"Pi",
	"Pf",
	"Po",
	"Sm",
	"Sc",
	"Sk",
	"So",
	"Zs",
	"Zl",
	"Zp",
	"Cc",
	"Cf",
	"Cs",
	"Co",
}

func unicodeCategory(r rune) string {
	for _, c := range unicodeCategories {
		if unicode.Is(unicode.Categories[c], r) {
			return c
		}
	}
	return "Cn"
}

func oneChar(fn string, v starlark.Value) (rune, error) {
	s, ok := v.(starlark.String)
	if !ok {
		return 0, py.Errorf("TypeError", "%s() argument 1 must be a unicode character, not %s", fn, py.PyType(v))
	}
	rs := []rune(string(s))
	if len(rs) != 1 {
		return 0, py.Errorf("TypeError", "%s() argument 1 must be a unicode character, not str", fn)
	}
	return rs[0], nil
}

var _ = py.RegisterModule("unicodedata", unicodedataModule)

// unicodedataModule builds the unicodedata module on its first import.
func unicodedataModule() *py.Module {
	charFn := func(name string, f func(r rune, dflt starlark.Value) (starlark.Value, error)) py.BuiltinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var c, dflt starlark.Value
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &c, &dflt); err != nil {
				return nil, err
			}
			r, err := oneChar(name, c)
			if err != nil {
				return nil, err
			}
			return f(r, dflt)
		}
	}
	forms := map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}
	normArgs := func(name string, args starlark.Tuple, kwargs []starlark.Tuple) (norm.Form, string, error) {
		var form, s string
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 2, &form, &s); err != nil {
			return 0, "", err
		}
		f, ok := forms[form]
		if !ok {
			return 0, "", py.Errorf("ValueError", "invalid normalization form")
		}
		return f, s, nil
	}
	return py.NewModule("unicodedata", map[string]py.BuiltinFn{
		"name": charFn("name", func(r rune, dflt starlark.Value) (starlark.Value, error) {
			n := runenames.Name(r)
			if n == "" || strings.HasPrefix(n, "<") {
				if dflt != nil {
					return dflt, nil
				}
				return nil, py.Errorf("ValueError", "no such name")
			}
			return starlark.String(n), nil
		}),
		"category": charFn("category", func(r rune, _ starlark.Value) (starlark.Value, error) {
			return starlark.String(unicodeCategory(r)), nil
		}),
		"decimal": charFn("decimal", func(r rune, dflt starlark.Value) (starlark.Value, error) {
			if unicode.Is(unicode.Nd, r) {
				return starlark.MakeInt(int(digitValue(r))), nil
			}
			if dflt != nil {
				return dflt, nil
			}
			return nil, py.Errorf("ValueError", "not a decimal")
		}),
		"digit": charFn("digit", func(r rune, dflt starlark.Value) (starlark.Value, error) {
			if unicode.Is(unicode.Nd, r) {
				return starlark.MakeInt(int(digitValue(r))), nil
			}
			if dflt != nil {
				return dflt, nil
			}
			return nil, py.Errorf("ValueError", "not a digit")
		}),
		"combining": charFn("combining", func(r rune, _ starlark.Value) (starlark.Value, error) {
			return starlark.MakeInt(int(norm.NFD.PropertiesString(string(r)).CCC())), nil
		}),
		"lookup": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name string
			if err := starlark.UnpackPositionalArgs("lookup", args, kwargs, 1, &name); err != nil {
				return nil, err
			}
			want := strings.ToUpper(name)
			for r := rune(0); r <= unicode.MaxRune; r++ {
				if runenames.Name(r) == want {
					return starlark.String(string(r)), nil
				}
			}
			return nil, py.Errorf("KeyError", "\"undefined character name '%s'\"", name)
		},
		"normalize": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			f, s, err := normArgs("normalize", args, kwargs)
			if err != nil {
				return nil, err
			}
			out, err := normalizeChecked(thread, f, s)
			if err != nil {
				return nil, err
			}
			return starlark.String(out), nil
		},
		"is_normalized": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			f, s, err := normArgs("is_normalized", args, kwargs)
			if err != nil {
				return nil, err
			}
			return starlark.Bool(f.IsNormalString(s)), nil
		},
	}, starlark.StringDict{"unidata_version": starlark.String(unicode.Version)})
}

// digitValue is the value of a decimal digit (Nd): digits come in runs of
// ten starting at a code point whose value is 0.
func digitValue(r rune) rune {
	z := r
	for z > 0 && unicode.Is(unicode.Nd, z-1) && r-z < 9 {
		z--
	}
	return (r - z) % 10
}

// normalizeChecked is f.String(s), its size checked before it is built: a
// compatibility form can make a string eleven times longer (U+FDFA is 3
// bytes, its NFKD 33), a Hangul syllable's decomposition is three times
// its size. A string already in form f is returned as it is; a long one
// is measured first (norm.Iter, in a fixed buffer, every 64 KB of input
// asking whether the step was stopped) and built in a buffer of exactly
// that size.
func normalizeChecked(thread *starlark.Thread, f norm.Form, s string) (string, error) {
	if len(s) < 4<<10 {
		return f.String(s), nil
	}
	if f.QuickSpanString(s) == len(s) {
		return s, nil
	}
	var it norm.Iter
	it.InitString(f, s)
	n, next := 0, 64<<10
	for !it.Done() {
		n += len(it.Next())
		if it.Pos() >= next {
			next += 64 << 10
			if err := py.Interrupted(thread); err != nil {
				return "", err
			}
		}
	}
	if err := py.CheckAllocFor(thread, int64(n), "unicodedata.normalize result"); err != nil {
		return "", err
	}
	out := f.AppendString(make([]byte, 0, n), s)
	return unsafe.String(unsafe.SliceData(out), len(out)), nil
}
