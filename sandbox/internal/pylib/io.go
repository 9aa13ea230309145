package pylib

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// stringIO is io.StringIO: an in-memory text file.
type stringIO struct {
	buf    []byte
	pos    int // byte offset
	closed bool
}

var typeStringIO = &py.TypeObj{PyName: "StringIO", Check: py.IsType[*stringIO]}

// completeStringIOType completes typeStringIO, once, on the io module's
// first import.
var completeStringIOType = sync.OnceFunc(func() {
	typeStringIO.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var initial, newline starlark.Value
		if err := starlark.UnpackArgs("StringIO", args, kwargs, "initial_value?", &initial, "newline?", &newline); err != nil {
			return nil, err
		}
		f := &stringIO{}
		if initial != nil && initial != starlark.None {
			s, ok := initial.(starlark.String)
			if !ok {
				return nil, py.Errorf("TypeError", "initial_value must be str or None, not %s", py.PyType(initial))
			}
			f.buf = []byte(s)
		}
		return f, nil
	}
})

var (
	_ starlark.HasAttrs = (*stringIO)(nil)
	_ starlark.Iterable = (*stringIO)(nil)
)

func (f *stringIO) String() string         { return "<_io.StringIO object>" }
func (f *stringIO) Type() string           { return "StringIO" }
func (f *stringIO) PyTypeObj() *py.TypeObj { return typeStringIO }
func (f *stringIO) Freeze()                {}
func (f *stringIO) Truth() starlark.Bool   { return true }
func (f *stringIO) Hash() (uint32, error)  { return 0, nil }

// Iterate yields the remaining lines (and moves to the end).
func (f *stringIO) Iterate() starlark.Iterator {
	var lines []starlark.Value
	for f.pos < len(f.buf) {
		lines = append(lines, starlark.String(f.readline(-1)))
	}
	return starlark.Tuple(lines).Iterate()
}

func (f *stringIO) readline(limit int) string {
	rest := f.buf[f.pos:]
	n := len(rest)
	if i := strings.IndexByte(string(rest), '\n'); i >= 0 {
		n = i + 1
	}
	if limit >= 0 {
		n = min(n, byteOffset(rest, limit))
	}
	s := string(rest[:n])
	f.pos += n
	return s
}

// byteOffset is the byte offset of the n-th code point of b (or len(b)).
func byteOffset(b []byte, n int) int {
	i := 0
	for ; n > 0 && i < len(b); n-- {
		_, w := utf8.DecodeRune(b[i:])
		i += w
	}
	return i
}

func (f *stringIO) write(thread *starlark.Thread, s string) error {
	if err := py.CheckAlloc(thread, int64(len(f.buf)+len(s))); err != nil && f.pos+len(s) > len(f.buf) {
		return err
	}
	if f.pos == len(f.buf) {
		f.buf = append(f.buf, s...)
	} else {
		end := f.pos + len(s)
		if end > len(f.buf) {
			f.buf = append(f.buf[:f.pos], s...)
		} else {
			copy(f.buf[f.pos:], s)
		}
	}
	f.pos += len(s)
	return nil
}

func (f *stringIO) AttrNames() []string {
	return []string{"close", "closed", "getvalue", "read", "readline", "readlines", "seek", "tell", "truncate", "write", "writelines"}
}

func (f *stringIO) Attr(name string) (starlark.Value, error) {
	if name == "closed" {
		return starlark.Bool(f.closed), nil
	}
	fn := func(body func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)) (starlark.Value, error) {
		return py.NewBuiltin(
			name,
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				if f.closed && name != "close" {
					return nil, py.Errorf("ValueError", "I/O operation on closed file.")
				}
				return body(thread, args, kwargs)
			},
		), nil
	}
	optInt := func(args starlark.Tuple, kwargs []starlark.Tuple) (int, error) {
		var v starlark.Value = starlark.None
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0, &v); err != nil {
			return 0, err
		}
		if v == starlark.None {
			return -1, nil
		}
		return starlark.AsInt32(v)
	}
	switch name {
	case "write":
		return fn(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			x, err := py.OneArg("write", args, kwargs)
			if err != nil {
				return nil, err
			}
			s, ok := x.(starlark.String)
			if !ok {
				return nil, py.Errorf("TypeError", "string argument expected, got '%s'", py.PyType(x))
			}
			if err := f.write(thread, string(s)); err != nil {
				return nil, err
			}
			return starlark.MakeInt(py.Rlen(string(s))), nil
		})
	case "writelines":
		return fn(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			x, err := py.OneArg("writelines", args, kwargs)
			if err != nil {
				return nil, err
			}
			elems, err := py.Collect(thread, x)
			if err != nil {
				return nil, err
			}
			for _, e := range elems {
				s, ok := e.(starlark.String)
				if !ok {
					return nil, py.Errorf("TypeError", "string argument expected, got '%s'", py.PyType(e))
				}
				if err := f.write(thread, string(s)); err != nil {
					return nil, err
				}
			}
			return starlark.None, nil
		})
	case "getvalue":
		return fn(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return starlark.String(f.buf), nil
		})
	case "read":
		return fn(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			n, err := optInt(args, kwargs)
			if err != nil {
				return nil, err
			}
			rest := f.buf[f.pos:]
			end := len(rest)
			if n >= 0 {
				end = byteOffset(rest, n)
			}
			f.pos += end
			return starlark.String(rest[:end]), nil
		})
	case "readline":
		return fn(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			n, err := optInt(args, kwargs)
			if err != nil {
				return nil, err
			}
			return starlark.String(f.readline(n)), nil
		})
	case "readlines":
		return fn(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var lines []starlark.Value
			for f.pos < len(f.buf) {
				lines = append(lines, starlark.String(f.readline(-1)))
			}
			return starlark.NewList(lines), nil
		})
	case "seek":
		return fn(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var pos, whence int
			if err := starlark.UnpackPositionalArgs("seek", args, kwargs, 1, &pos, &whence); err != nil {
				return nil, err
			}
			switch {
			case whence == 2:
				f.pos = len(f.buf)
			case whence == 1:
			case pos < 0:
				return nil, py.Errorf("ValueError", "Negative seek position %d", pos)
			default:
				f.pos = byteOffset(f.buf, pos)
				if extra := pos - py.Rlen(string(f.buf[:f.pos])); extra > 0 {
					// past the end: CPython pads with NULs on the next write
					f.buf = append(f.buf, make([]byte, extra)...)
					f.pos = len(f.buf)
				}
			}
			return starlark.MakeInt(py.Rlen(string(f.buf[:f.pos]))), nil
		})
	case "tell":
		return fn(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return starlark.MakeInt(py.Rlen(string(f.buf[:f.pos]))), nil
		})
	case "truncate":
		return fn(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			n, err := optInt(args, kwargs)
			if err != nil {
				return nil, err
			}
			end := f.pos
			if n >= 0 {
				end = byteOffset(f.buf, n)
			}
			f.buf = f.buf[:min(end, len(f.buf))]
			return starlark.MakeInt(py.Rlen(string(f.buf))), nil
		})
	case "close":
		return fn(func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			f.closed = true
			return starlark.None, nil
		})
	}
	return nil, nil
}

var _ = py.RegisterModule("io", ioModule)

// ioModule builds the io module on its first import.
func ioModule() *py.Module {
	completeStringIOType()
	return py.NewModule("io", nil, starlark.StringDict{"StringIO": typeStringIO})
}
