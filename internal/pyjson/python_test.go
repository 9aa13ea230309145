package pyjson

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriterLayouts checks json.dumps' layouts (expected strings are
// CPython's json.dumps output for the same value and options).
func TestWriterLayouts(t *testing.T) {
	write := func(o EncodeOptions) string {
		var b strings.Builder
		w := NewWriter(&b, o)
		w.BeginObject()
		w.Key("a")
		w.BeginArray()
		w.Int(1)
		w.Float(2.5)
		w.BigInt(new(big.Int).Lsh(big.NewInt(1), 70))
		w.BeginArray()
		w.EndArray()
		w.EndArray()
		w.Key("é")
		w.String("😀\x7f\n")
		w.Key("n")
		w.Null()
		w.EndObject()
		require.NoError(t, w.Err())
		return b.String()
	}
	tests := []struct {
		o    EncodeOptions
		want string
	}{
		{PythonOptions(false, ""), `{"a": [1, 2.5, 1180591620717411303424, []], "\u00e9": "\ud83d\ude00\u007f\n", "n": null}`},
		{
			PythonOptions(true, "  "),
			"{\n  \"a\": [\n    1,\n    2.5,\n    1180591620717411303424,\n    []\n  ],\n  \"\\u00e9\": \"\\ud83d\\ude00\\u007f\\n\",\n  \"n\": null\n}",
		},
		{EncodeOptions{ItemSep: ",", KeySep: ":"}, "{\"a\":[1,2.5,1180591620717411303424,[]],\"é\":\"😀\x7f\\n\",\"n\":null}"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, write(tt.o))
	}
}

// TestDecodePython checks json.loads' messages and number syntax.
func TestDecodePython(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", "Expecting value: line 1 column 1 (char 0)"},
		{"[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"},
		{`{"é":1,é}`, "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)"},
		{"  [\n 1,\n x]", "Expecting value: line 3 column 2 (char 9)"},
		{"1.", "Extra data: line 1 column 2 (char 1)"},
		{`"ab\u12"`, `Invalid \uXXXX escape: line 1 column 5 (char 4)`},
	}
	for _, tt := range tests {
		_, err := DecodePython(tt.in, 100)
		var se *SyntaxError
		require.True(t, errors.As(err, &se), "%q: %v", tt.in, err)
		assert.Equal(t, tt.msg, se.PythonMessage(), tt.in)
	}
	_, err := DecodePython(strings.Repeat("[", 101), 100)
	assert.ErrorIs(t, err, ErrTooDeep)
	v, err := DecodePython(strings.Repeat("[", 100)+strings.Repeat("]", 100), 100)
	require.NoError(t, err)
	assert.NotNil(t, v)
}
