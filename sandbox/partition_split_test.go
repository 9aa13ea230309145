package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPartitionAndSplitMaxsplit: str.partition and str.rpartition (their
// tuple made in one allocation) and str.split/rsplit with a positional
// maxsplit (taken without UnpackArgs when a small int) give CPython's
// results and errors. Expected outputs are CPython's.
func TestPartitionAndSplitMaxsplit(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"partition-found", `print("a b c".partition(" "))`, "('a', ' ', 'b c')\n"},
		{"partition-missing", `print("abc".partition("-"))`, "('abc', '', '')\n"},
		{"rpartition-found", `print("a b c".rpartition(" "))`, "('a b', ' ', 'c')\n"},
		{"rpartition-missing", `print("abc".rpartition("-"))`, "('', '', 'abc')\n"},
		{"partition-multichar-unicode", `print("héllo::wörld::x".partition("::"))`, "('héllo', '::', 'wörld::x')\n"},
		{"partition-unpack-and-keep", "a, s, b = 'k=v'.partition('=')\nt = 'x=y'.partition('=')\nprint(a, s, b, t, len(t), t[2], t == ('x', '=', 'y'), hash(t) == hash(('x', '=', 'y')))", "k = v ('x', '=', 'y') 3 y True True\n"},
		{
			"partition-empty-separator",
			"try:\n    'abc'.partition('')\nexcept ValueError as e:\n    print('ValueError', e)",
			"ValueError empty separator\n",
		},
		{"split-maxsplit", `print("a b c d".split(" ", 1), "a b c d".split(None, 2), "a b c".split(" ", 0), "a b c".split(" ", -1))`, "['a', 'b c d'] ['a', 'b', 'c d'] ['a b c'] ['a', 'b', 'c']\n"},
		{"rsplit-maxsplit", `print("a b c d".rsplit(" ", 1), "a,b,c".rsplit(",", 5))`, "['a b c', 'd'] ['a', 'b', 'c']\n"},
		{"split-maxsplit-large", `print("a b c".split(" ", 10**12))`, "['a', 'b', 'c']\n"},
		{"split-maxsplit-keyword", `print("a b c".split(" ", maxsplit=1), "a b c".split(sep=" ", maxsplit=1))`, "['a', 'b c'] ['a', 'b c']\n"},
		{
			"split-maxsplit-not-int",
			"try:\n    'a b'.split(' ', '1')\nexcept TypeError as e:\n    print('TypeError')",
			"TypeError\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, run(t, tt.code))
		})
	}
}
