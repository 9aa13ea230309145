package starjson

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/internal/pyjson"
)

var python = Options{DecodeOptions: pyjson.DecodeOptions{Python: true, Shared: true}}

// TestDecodeValues checks the values against CPython 3.11's json.loads
// (the want column is Starlark's repr of what CPython returns).
func TestDecodeValues(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1, "b": 2, "a": 3}`, `{"a": 3, "b": 2}`},
		{`[1, -0, 12345678901234567890123, -9223372036854775809]`, `[1, 0, 12345678901234567890123, -9223372036854775809]`},
		{`[1.5, -0.0, 1e400, 1E5, 2.5e-3]`, `[1.5, -0.0, +inf, 100000.0, 0.0025]`},
		{`[NaN, Infinity, -Infinity]`, `[nan, +inf, -inf]`},
		{`{"x": "h\u00e9\ud83d\ude00\n", "y": [], "z": {}}`, `{"x": "hé😀\n", "y": [], "z": {}}`},
		{`[true, false, null, "s"]`, `[True, False, None, "s"]`},
		{` "plain" `, `"plain"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, err := Decode([]byte(tt.in), python)
			require.NoError(t, err)
			assert.Equal(t, tt.want, v.String())
		})
	}
}

// TestValues: the builder boxed as any makes Decode's values, sharing
// keys the same way.
func TestValues(t *testing.T) {
	for _, in := range []string{`{"a": 1, "b": 2, "a": 3}`, `[1, -0, 12345678901234567890123, 1.5, NaN, -Infinity]`,
		`{"x": "h\u00e9\ud83d\ude00\n", "y": [], "z": {}}`, `[true, false, null, "s"]`, `[{"id": 1, "k": "v"}, {"id": 2, "k": "v"}]`} {
		want, err := Decode([]byte(in), python)
		require.NoError(t, err)
		got, err := pyjson.DecodeWith[any]([]byte(in), Values(python), python.DecodeOptions)
		require.NoError(t, err)
		sv, ok := got.(starlark.Value)
		require.True(t, ok, in)
		assert.Equal(t, want.String(), sv.String(), in)
	}
	v, err := pyjson.DecodeWith[any]([]byte(`[{"name": 1}, {"name": 2}]`), Values(python), python.DecodeOptions)
	require.NoError(t, err)
	l := v.(*starlark.List)
	k0, k1 := l.Index(0).(*starlark.Dict).Keys()[0], l.Index(1).(*starlark.Dict).Keys()[0]
	assert.Equal(t, unsafe.StringData(string(k0.(starlark.String))), unsafe.StringData(string(k1.(starlark.String))), "keys are shared")
}

// TestDecodeErrors checks CPython's JSONDecodeError messages and
// positions, and the refusals (too deep, too many digits).
func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		in, want string
		kind     error
	}{
		{`[1, 2`, "Expecting ',' delimiter: line 1 column 6 (char 5)", nil},
		{`{"a" 1}`, "Expecting ':' delimiter: line 1 column 6 (char 5)", nil},
		{`[1,]`, "Expecting value: line 1 column 4 (char 3)", nil},
		{`{"a":1,}`, "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)", nil},
		{"\n\n  [x]", "Expecting value: line 3 column 4 (char 5)", nil},
		{`"abc`, "Unterminated string starting at: line 1 column 1 (char 0)", nil},
		{`1 2`, "Extra data: line 1 column 3 (char 2)", nil},
		{
			strings.Repeat("[", 50),
			"maximum recursion depth exceeded while decoding a JSON array from a unicode string: line 1 column 11 (char 10)",
			pyjson.ErrTooDeep,
		},
		{
			strings.Repeat("9", 4301),
			"Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits: line 1 column 1 (char 0)",
			pyjson.ErrIntTooLong,
		},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 12)], func(t *testing.T) {
			o := python
			o.MaxDepth = 10
			_, err := Decode([]byte(tt.in), o)
			var se *pyjson.SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.want, se.PythonMessage())
			if tt.kind != nil {
				assert.ErrorIs(t, err, tt.kind)
			}
		})
	}
}

// TestDecodeSharesKeysAndInput: the keys repeated across records are one
// string value, so are repeated short strings, and only strings of
// minShared bytes or more point into the input: the keys, the interned
// and the other short strings are copied, so that they do not keep the
// whole input alive.
func TestDecodeSharesKeysAndInput(t *testing.T) {
	long := strings.Repeat("a long text, shared. ", 7)
	require.GreaterOrEqual(t, len(long), minShared)
	data := []byte(
		`[{"id": 1, "name": "ann", "tag": "t1", "text": "a longer text, not looked up", "body": "` + long + `"}, {"id": 2, "name": "bob", "tag": "t1", "text": "a longer text, not looked up", "body": "` + long + `"}]`,
	)
	base := uintptr(unsafe.Pointer(&data[0]))
	inInput := func(s starlark.String) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(string(s))))
		return p >= base && p < base+uintptr(len(data))
	}
	v, err := Decode(data, python)
	require.NoError(t, err)
	l := v.(*starlark.List)
	k0 := l.Index(0).(*starlark.Dict).Keys()
	k1 := l.Index(1).(*starlark.Dict).Keys()
	for i := range k0 {
		assert.Same(t, unsafe.StringData(string(k0[i].(starlark.String))), unsafe.StringData(string(k1[i].(starlark.String))))
		assert.False(t, inInput(k0[i].(starlark.String)), "key %s is a copy", k0[i])
	}
	get := func(i int, key string) starlark.Value {
		v, _, _ := l.Index(i).(*starlark.Dict).Get(starlark.String(key))
		return v
	}
	boxed := func(i int, key string) *string {
		v := get(i, key)
		return (*[2]*string)(unsafe.Pointer(&v))[1] // the interface's data word: the boxed string
	}
	assert.Same(t, boxed(0, "tag"), boxed(1, "tag"), "a short string repeated is one value")
	assert.NotSame(t, boxed(0, "text"), boxed(1, "text"), "a longer one is not looked up")
	for _, key := range []string{"name", "tag", "text"} {
		assert.False(t, inInput(get(1, key).(starlark.String)), "%s is a copy", key)
	}
	assert.True(t, inInput(get(1, "body").(starlark.String)), "a string of minShared bytes shares the input's bytes")
	assert.Equal(t, starlark.String(long), get(1, "body"))

	// Without Shared, no string points into the input.
	o := python
	o.Shared = false
	v, err = Decode(data, o)
	require.NoError(t, err)
	l = v.(*starlark.List)
	assert.False(t, inInput(get(1, "body").(starlark.String)))
	assert.Equal(t, starlark.String("bob"), get(1, "name"))
}

// TestDecodeStops: Stop is polled as values are parsed, also in one flat
// array of scalars, and its error ends the decoding.
func TestDecodeStops(t *testing.T) {
	stop := errors.New("step stopped")
	for _, doc := range []string{
		"[" + strings.Repeat("[1], ", 10*pyjson.StopEvery) + "[]]",
		"[" + strings.Repeat(`"s", 1.5, `, 10*pyjson.StopEvery) + "0]",
	} {
		calls := 0
		o := python
		o.Stop = func() error {
			calls++
			if calls == 3 {
				return stop
			}
			return nil
		}
		_, err := Decode([]byte(doc), o)
		require.ErrorIs(t, err, stop)
		assert.Equal(t, 3, calls)
	}
}

// TestDecodeLines: JSON Lines decode into the list of the lines' values
// (blank lines skipped, \r\n ends accepted), keys shared across lines,
// errors naming the line and its place in the whole input, and Stop
// polled across lines.
func TestDecodeLines(t *testing.T) {
	v, err := DecodeLines([]byte("{\"id\": 1, \"tag\": \"x\"}\r\n\n  \n[1, 2.5, null]\n\"s\"\n{\"id\": 2, \"tag\": \"x\"}"), python)
	require.NoError(t, err)
	assert.Equal(t, `[{"id": 1, "tag": "x"}, [1, 2.5, None], "s", {"id": 2, "tag": "x"}]`, v.String())
	k0 := v.Index(0).(*starlark.Dict).Keys()
	k3 := v.Index(3).(*starlark.Dict).Keys()
	assert.Same(
		t,
		unsafe.StringData(string(k0[0].(starlark.String))),
		unsafe.StringData(string(k3[0].(starlark.String))),
		"keys shared across lines",
	)

	empty, err := DecodeLines(nil, python)
	require.NoError(t, err)
	assert.Equal(t, 0, empty.Len())

	_, err = DecodeLines([]byte("1\n\n{\"a\": }\n"), Options{DecodeOptions: pyjson.DecodeOptions{Shared: true, Source: "f.jsonl"}})
	var se *pyjson.SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), "JSON Lines record 3")
	assert.Contains(t, err.Error(), "line 3")
	assert.Contains(t, err.Error(), "f.jsonl")

	stop := errors.New("step stopped")
	calls := 0
	o := python
	o.Stop = func() error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	}
	_, err = DecodeLines([]byte(strings.Repeat("[1, 2]\n", 10*pyjson.StopEvery)), o)
	require.ErrorIs(t, err, stop)
	assert.Equal(t, 3, calls)
}
