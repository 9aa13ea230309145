package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEscapesAndFilters pins the outputs of the shared helpers
// writeEscape (ascii, str.encode's backslashreplace and strict errors)
// and filterBy (filter, itertools.filterfalse) to CPython 3.11's.
func TestEscapesAndFilters(t *testing.T) {
	tests := []struct{ code, want string }{
		{`print(ascii('aé\u20ac\U0001f600\x7f'))`, `'a\xe9\u20ac\U0001f600\x7f'` + "\n"},
		{`print('aé\u20ac\U0001f600'.encode('ascii', 'backslashreplace'))`, `b'a\\xe9\\u20ac\\U0001f600'` + "\n"},
		{`print('aé\u20ac'.encode('latin-1', 'backslashreplace'))`, `b'a\xe9\\u20ac'` + "\n"},
		{
			"try:\n    '\\U0001f600'.encode('latin-1')\nexcept UnicodeEncodeError as e:\n    print(e)",
			`'latin-1' codec can't encode character '\U0001f600' in position 0: ordinal not in range(256)` + "\n",
		},
		{"print(list(filter(None, [0, 1, '', 'a', None])), list(filter(lambda x: x > 1, [1, 2, 3])))", "[1, 'a'] [2, 3]\n"},
		{
			"import itertools\nprint(list(itertools.filterfalse(None, [0, 1, '', 'a', None])), list(itertools.filterfalse(lambda x: x > 1, [1, 2, 3])))",
			"[0, '', None] [1]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			assert.Equal(t, tt.want, run(t, tt.code))
		})
	}
}
