package pyjson

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeJSON(t *testing.T) {
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	tests := []struct {
		in   string
		want any
	}{
		{`1`, int64(1)},
		{`-0`, int64(0)},
		{`9223372036854775807`, int64(math.MaxInt64)},
		{`123456789012345678901234567890`, big1},
		{`1.0`, 1.0},
		{`1e3`, 1000.0},
		{`1E-2`, 0.01},
		{`-2.5`, -2.5},
		{`1e400`, math.Inf(1)},
		{`"a\"b\\c\/d\n\t\u00e9\ud83d\ude00"`, "a\"b\\c/d\n\té😀"},
		{`"\ud800x"`, "\uFFFDx"},
		{`true`, true},
		{`false`, false},
		{`null`, nil},
		{`Infinity`, math.Inf(1)},
		{`-Infinity`, math.Inf(-1)},
		{` [ ] `, []any{}},
		{`[1, "a", [null]]`, []any{int64(1), "a", []any{nil}}},
		{`{}`, NewDict(0)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	v, err := Decode([]byte(`NaN`))
	require.NoError(t, err)
	assert.True(t, math.IsNaN(v.(float64)))
}

func TestDecodeJSONOrderAndDuplicates(t *testing.T) {
	v, err := Decode([]byte(`{"z": 1, "a": 2, "m": {"y": 1, "b": 2}, "z": 3}`))
	require.NoError(t, err)
	d := v.(*Dict)
	assert.Equal(t, []string{"z", "a", "m"}, d.Keys())
	z, _ := d.Get("z")
	assert.Equal(t, int64(3), z, "last value wins, first position kept (like Python)")
	m, _ := d.Get("m")
	assert.Equal(t, []string{"y", "b"}, m.(*Dict).Keys())
}

func TestDecodeJSONErrors(t *testing.T) {
	tests := []struct {
		in        string
		line, col int
		msg       string
	}{
		{``, 1, 1, "empty file"},
		{`{"a": 1,}`, 1, 9, "property name"},
		{"{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3, "expecting ',' or '}'"},
		{"[1, 2", 1, 6, "unterminated array"},
		{`[1 2]`, 1, 4, "expecting ',' or ']'"},
		{`{"a" 1}`, 1, 6, "':'"},
		{`"abc`, 1, 1, "unterminated string"},
		{"\"a\nb\"", 1, 3, "control character"},
		{`01`, 1, 2, "extra data"},
		{`1.`, 1, 3, "digits expected after '.'"},
		{`-`, 1, 2, "invalid number"},
		{`tru`, 1, 1, "expecting a value"},
		{`{"a": 1} {"b": 2}`, 1, 10, "jsonl"},
		{`"\x"`, 1, 2, "invalid escape"},
		{"[\"日本\", x]", 1, 8, "expecting a value"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Decode([]byte(tt.in))
			require.ErrorIs(t, err, ErrSyntax)
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.line, se.Line, "line")
			assert.Equal(t, tt.col, se.Column, "column")
			assert.Contains(t, se.Error(), tt.msg)
			assert.Contains(t, se.Error(), "line")
		})
	}
	_, err := Decode([]byte("[\"ok\", \"\xff\"]"))
	require.ErrorIs(t, err, ErrInvalidUTF8)
	assert.Contains(t, err.Error(), "byte offset 8")

	deep := strings.Repeat("[", maxDepth+2)
	_, err = Decode([]byte(deep))
	require.ErrorIs(t, err, ErrSyntax)
	assert.Contains(t, err.Error(), "nesting")
}

func TestEncodeJSON(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{1.0, `1.0`},
		{0.1, `0.1`},
		{1e16, `1e+16`},
		{1e-5, `1e-05`},
		{123456.5, `123456.5`},
		{math.NaN(), `NaN`},
		{math.Inf(-1), `-Infinity`},
		{int64(-7), `-7`},
		{"é\"\\\n\x01", `"é\"\\\n\u0001"`},
		{"bad\xffutf8", `"bad\ufffdutf8"`},
		{dict("b", int64(1), "a", []any{true, nil}), `{"b": 1, "a": [true, null]}`},
		{[]any{}, `[]`},
		{NewDict(0), `{}`},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		require.NoError(t, Encode(&buf, tt.v))
		assert.Equal(t, tt.want, buf.String())
		if _, isStr := tt.v.(string); !isStr { // strings count raw bytes
			assert.EqualValues(t, len(tt.want), Size(tt.v))
		}
	}
	b, err := dict("k", "v").MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, `{"k": "v"}`, string(b))
}

func TestJSONRoundTrip(t *testing.T) {
	src := `{"ints": [0, -1, 9223372036854775807, 99999999999999999999], "floats": [1.0, 0.5, -2.25, 1e+100, 5e-324], "s": "tab\there \u2028 😀", "nested": {"z": {"y": [null, true, false]}, "a": {}}}`
	v, err := Decode([]byte(src))
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, Encode(&buf, v))
	v2, err := Decode(buf.Bytes())
	require.NoError(t, err)
	assert.Equal(t, v, v2)
	var buf2 bytes.Buffer
	require.NoError(t, Encode(&buf2, v2))
	assert.Equal(t, buf.String(), buf2.String())
}

func TestDecodeOwnedSharesMemory(t *testing.T) {
	data := []byte(`["abcdef", "x\ny"]`)
	v, err := DecodeOwned(data, "f.json")
	require.NoError(t, err)
	l := v.([]any)
	assert.Equal(t, "abcdef", l[0])
	assert.Equal(t, "x\ny", l[1])
	// Not copied: the string points into data.
	assert.Equal(t, &data[2], unsafe.StringData(l[0].(string)))
}

// TestDecodeIntDigitLimit: CPython's 4,300-digit rule for integer literals
// (sys.get_int_max_str_digits); the sign does not count, floats are exempt.
func TestDecodeIntDigitLimit(t *testing.T) {
	digits := func(n int) string { return "1" + strings.Repeat("0", n-1) }
	tests := []struct {
		in      string
		ok      bool
		digits  int
		line    int
		column  int
		isFloat bool
	}{
		{in: digits(MaxIntDigits), ok: true},
		{in: "-" + digits(MaxIntDigits), ok: true},
		{in: digits(MaxIntDigits) + ".5", ok: true, isFloat: true},
		{in: digits(MaxIntDigits + 1), digits: MaxIntDigits + 1, line: 1, column: 1},
		{in: "{\n  \"n\": [1,\n    -" + digits(3_000_000) + "]}", digits: 3_000_000, line: 3, column: 5},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 12)], func(t *testing.T) {
			v, err := DecodeOwned([]byte(tt.in), "big.json")
			if tt.ok {
				require.NoError(t, err)
				if !tt.isFloat {
					assert.IsType(t, &big.Int{}, v)
				}
				return
			}
			require.ErrorIs(t, err, ErrIntTooLong)
			assert.NotErrorIs(t, err, ErrSyntax, "well-formed, refused")
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.line, se.Line)
			assert.Equal(t, tt.column, se.Column)
			assert.Contains(
				t,
				err.Error(),
				fmt.Sprintf(
					"big.json: line %d, column %d: Exceeds the limit (4300 digits) for integer string conversion: value has %d digits",
					tt.line,
					tt.column,
					tt.digits,
				),
			)
		})
	}
}

// TestConsumedReportsProgress: DecodeOptions.Consumed is called with
// rising offsets, ConsumedEvery bytes apart, within the input, for a
// document and for JSON Lines.
func TestConsumedReportsProgress(t *testing.T) {
	item := `"` + strings.Repeat("x", 1000) + `"`
	doc := "[" + strings.Repeat(item+", ", 3*ConsumedEvery/len(item)) + "1]"
	lines := strings.Repeat(`{"a": `+item+"}\n", 3*ConsumedEvery/len(item))
	for name, decode := range map[string]func(DecodeOptions) error{
		"document": func(o DecodeOptions) error { _, err := DecodeWith[any]([]byte(doc), GoBuilder(), o); return err },
		"lines":    func(o DecodeOptions) error { _, err := DecodeLinesWith[any]([]byte(lines), GoBuilder(), o); return err },
	} {
		var offs []int64
		require.NoError(t, decode(DecodeOptions{Consumed: func(off int64) { offs = append(offs, off) }}), name)
		require.Len(t, offs, 3, name)
		prev := int64(0)
		for _, off := range offs {
			assert.GreaterOrEqual(t, off-prev, int64(ConsumedEvery), name)
			assert.Less(t, off, int64(len(doc)), name)
			prev = off
		}
	}
}

// TestDecodeHead: Head decodes the first items of the top-level array or
// object (or the first lines) and stops there, the rest unread: even
// text after them that is not JSON.
func TestDecodeHead(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		head     int
		lines    bool
		want     string
	}{
		{"array", `[1, [2, 3], {"a": 4}, 5]`, 2, false, `[1, [2, 3]]`},
		{"array shorter", `[1, 2]`, 5, false, `[1, 2]`},
		{"object", `{"a": [1, 2], "b": 2, "c": 3}`, 2, false, `{"a": [1, 2], "b": 2}`},
		{"nested lists not cut", `[[1, 2, 3, 4]]`, 1, false, `[[1, 2, 3, 4]]`},
		{"rest unread", `[1, 2, !!! not json`, 2, false, `[1, 2]`},
		{"scalar", `"x"`, 1, false, `"x"`},
		{"lines", "{\"a\": 1}\n\n[2]\n3\n!!!\n", 2, true, `[{"a": 1}, [2]]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got any
			var err error
			if tc.lines {
				var vals []any
				vals, err = DecodeLinesWith([]byte(tc.in), GoBuilder(), DecodeOptions{Head: tc.head})
				got = vals
			} else {
				got, err = DecodeWith([]byte(tc.in), GoBuilder(), DecodeOptions{Head: tc.head})
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, Excerpt(got, -1))
		})
	}
}
