package pylib

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// bytesOrASCII is the bytes of a bytes value or an ASCII str (as the
// base64 decoders and urllib accept either).
func bytesOrASCII(fn string, v starlark.Value) ([]byte, error) {
	switch x := v.(type) {
	case starlark.Bytes:
		return []byte(x), nil
	case starlark.String:
		for i := 0; i < len(x); i++ {
			if x[i] >= 0x80 {
				return nil, py.Errorf("ValueError", "string argument should contain only ASCII characters")
			}
		}
		return []byte(x), nil
	}
	return nil, py.Errorf("TypeError", "%s(): argument should be a bytes-like object or ASCII string, not '%s'", fn, py.PyType(v))
}

// bytesArg is v, the bytes argument of function fn.
func bytesArg(fn string, v starlark.Value) ([]byte, error) {
	if b, ok := v.(starlark.Bytes); ok {
		return []byte(b), nil
	}
	return nil, py.Errorf("TypeError", "a bytes-like object is required, not '%s'", py.PyType(v))
}

// b64Decode decodes as binascii.a2b_base64: characters outside the
// alphabet are dropped unless validate.
func b64Decode(data []byte, alpha string, validate bool) (starlark.Value, error) {
	var clean []byte
	pad := 0
	for _, c := range data {
		switch {
		case c == '=':
			pad++
			clean = append(clean, c)
		case strings.IndexByte(alpha, c) >= 0:
			if pad > 0 {
				// data after padding: CPython stops at a complete quantum
				if validate {
					return nil, py.Errorf("binascii.Error", "Excess data after padding")
				}
			}
			clean = append(clean, c)
		default:
			if validate {
				return nil, py.Errorf("binascii.Error", "Only base64 data is allowed")
			}
		}
	}
	s := strings.TrimRight(string(clean), "=")
	s = strings.ReplaceAll(s, "=", "")
	if len(s)%4 == 1 {
		return nil, py.Errorf(
			"binascii.Error",
			"Invalid base64-encoded string: number of data characters (%d) cannot be 1 more than a multiple of 4",
			len(s),
		)
	}
	need := (4 - len(s)%4) % 4
	if strings.Count(string(clean), "=") < need {
		return nil, py.Errorf("binascii.Error", "Incorrect padding")
	}
	enc := base64.RawStdEncoding
	if alpha[62] == '-' {
		enc = base64.RawURLEncoding
	}
	out, err := enc.DecodeString(s) // lenient about trailing bits, as CPython
	if err != nil {
		return nil, py.Errorf("binascii.Error", "Incorrect padding")
	}
	return starlark.Bytes(out), nil
}

var _ = py.RegisterModule("base64", base64Module)

// base64Module builds the base64 module on its first import.
func base64Module() *py.Module {
	enc := func(name string, e *base64.Encoding) py.BuiltinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s, alt starlark.Value
			if err := starlark.UnpackArgs(name, args, kwargs, "s", &s, "altchars?", &alt); err != nil {
				return nil, err
			}
			b, err := bytesArg(name, s)
			if err != nil {
				return nil, err
			}
			if err := py.CheckAlloc(thread, int64(len(b))*4/3+4); err != nil {
				return nil, err
			}
			out := e.EncodeToString(b)
			if alt != nil && alt != starlark.None {
				a, err := bytesOrASCII(name, alt)
				if err != nil || len(a) != 2 {
					return nil, py.Errorf("ValueError", "altchars must be a bytes-like object of length 2")
				}
				out = strings.NewReplacer("+", string(a[0]), "/", string(a[1])).Replace(out)
			}
			return starlark.Bytes(out), nil
		}
	}
	dec := func(name, alpha string) py.BuiltinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s, alt starlark.Value
			validate := false
			if err := starlark.UnpackArgs(name, args, kwargs, "s", &s, "altchars?", &alt, "validate?", &validate); err != nil {
				return nil, err
			}
			b, err := bytesOrASCII(name, s)
			if err != nil {
				return nil, err
			}
			if alt != nil && alt != starlark.None {
				a, err := bytesOrASCII(name, alt)
				if err != nil || len(a) != 2 {
					return nil, py.Errorf("ValueError", "altchars must be a bytes-like object of length 2")
				}
				b = []byte(strings.NewReplacer(string(a[0]), "+", string(a[1]), "/").Replace(string(b)))
			}
			if alpha == urlAlpha {
				b = []byte(strings.NewReplacer("-", "+", "_", "/").Replace(string(b)))
			}
			return b64Decode(b, stdAlpha, validate)
		}
	}
	b32enc := func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, err := py.OneArg("b32encode", args, kwargs)
		if err != nil {
			return nil, err
		}
		b, err := bytesArg("b32encode", x)
		if err != nil {
			return nil, err
		}
		return starlark.Bytes(base32.StdEncoding.EncodeToString(b)), nil
	}
	b32dec := func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var s starlark.Value
		casefold := false
		if err := starlark.UnpackArgs("b32decode", args, kwargs, "s", &s, "casefold?", &casefold); err != nil {
			return nil, err
		}
		b, err := bytesOrASCII("b32decode", s)
		if err != nil {
			return nil, err
		}
		if casefold {
			b = []byte(strings.ToUpper(string(b)))
		}
		out, err := base32.StdEncoding.DecodeString(string(b))
		if err != nil {
			return nil, py.Errorf("binascii.Error", "Incorrect padding or non-base32 digit found")
		}
		return starlark.Bytes(out), nil
	}
	b16enc := func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, err := py.OneArg("b16encode", args, kwargs)
		if err != nil {
			return nil, err
		}
		b, err := bytesArg("b16encode", x)
		if err != nil {
			return nil, err
		}
		return starlark.Bytes(strings.ToUpper(hex.EncodeToString(b))), nil
	}
	b16dec := func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var s starlark.Value
		casefold := false
		if err := starlark.UnpackArgs("b16decode", args, kwargs, "s", &s, "casefold?", &casefold); err != nil {
			return nil, err
		}
		b, err := bytesOrASCII("b16decode", s)
		if err != nil {
			return nil, err
		}
		if !casefold && strings.ToUpper(string(b)) != string(b) {
			return nil, py.Errorf("binascii.Error", "Non-base16 digit found")
		}
		out, err := hex.DecodeString(string(b))
		if err != nil {
			return nil, py.Errorf("binascii.Error", "Non-base16 digit found")
		}
		return starlark.Bytes(out), nil
	}
	return py.NewModule("base64", map[string]py.BuiltinFn{
		"b64encode":          enc("b64encode", base64.StdEncoding),
		"b64decode":          dec("b64decode", stdAlpha),
		"standard_b64encode": enc("standard_b64encode", base64.StdEncoding),
		"standard_b64decode": dec("standard_b64decode", stdAlpha),
		"urlsafe_b64encode":  enc("urlsafe_b64encode", base64.URLEncoding),
		"urlsafe_b64decode":  dec("urlsafe_b64decode", urlAlpha),
		"b32encode":          b32enc,
		"b32decode":          b32dec,
		"b16encode":          b16enc,
		"b16decode":          b16dec,
	}, starlark.StringDict{"binascii": &py.Module{Name: "binascii", Members: starlark.StringDict{"Error": py.ExcTypes["binascii.Error"]}}})
}

const (
	stdAlpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	urlAlpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
)
