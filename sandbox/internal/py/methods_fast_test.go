package py

import (
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPyMethodFast: _py_method's fast path answers the common str and
// dict methods with what the Method hook answers, and leaves errors and
// other methods and arguments to it.
func TestPyMethodFast(t *testing.T) {
	d := starlark.NewDict(2)
	require.NoError(t, d.SetKey(starlark.String("a"), starlark.MakeInt(1)))
	require.NoError(t, d.SetKey(starlark.String("b"), starlark.MakeInt(2)))
	for _, c := range []struct {
		args starlark.Tuple
		fast bool
	}{
		{starlark.Tuple{starlark.String("banana"), starlark.String("count"), starlark.String("a")}, true},
		{starlark.Tuple{starlark.String("héllo wörld"), starlark.String("find"), starlark.String("w")}, true},
		{starlark.Tuple{starlark.String("héllo wörld"), starlark.String("rfind"), starlark.String("l")}, true},
		{starlark.Tuple{starlark.String("a b  c\n"), starlark.String("split")}, true},
		{starlark.Tuple{starlark.String("a,b,,c"), starlark.String("split"), starlark.String(",")}, true},
		{starlark.Tuple{starlark.String("a,b,,c"), starlark.String("rsplit"), starlark.String(",")}, true},
		{starlark.Tuple{starlark.String("x\ny\r\nz"), starlark.String("splitlines")}, true},
		{starlark.Tuple{starlark.String("aXbX"), starlark.String("replace"), starlark.String("X"), starlark.String("-")}, true},
		{starlark.Tuple{starlark.String(", "), starlark.String("join"), starlark.NewList([]starlark.Value{starlark.String("a"), starlark.String("b")})}, true},
		{starlark.Tuple{starlark.String(""), starlark.String("join"), starlark.Tuple{starlark.String("a"), starlark.String("b")}}, true},
		{starlark.Tuple{starlark.String("2024-01-01 12 x"), starlark.String("split"), starlark.String(" "), starlark.MakeInt(1)}, true},
		{starlark.Tuple{starlark.String("a b c"), starlark.String("rsplit"), starlark.String(" "), starlark.MakeInt(1)}, true},
		{starlark.Tuple{starlark.String("a b c"), starlark.String("split"), starlark.String(" "), starlark.MakeInt(-1)}, true},
		{starlark.Tuple{starlark.String("a b c"), starlark.String("split"), starlark.String(" "), starlark.MakeInt(0)}, true},
		{starlark.Tuple{starlark.String("a-b-c"), starlark.String("replace"), starlark.String("-"), starlark.String(""), starlark.MakeInt(1)}, true},
		{starlark.Tuple{d, starlark.String("items")}, true},
		{starlark.Tuple{d, starlark.String("keys")}, true},
		{starlark.Tuple{d, starlark.String("values")}, true},
		// errors and other cases: the usual call
		{starlark.Tuple{starlark.String("a"), starlark.String("split"), starlark.String("")}, false},                                    // empty separator
		{starlark.Tuple{starlark.String(","), starlark.String("join"), starlark.NewList([]starlark.Value{starlark.MakeInt(1)})}, false}, // not str
		{starlark.Tuple{starlark.String(","), starlark.String("join"), d}, false},                                                       // any iterable
		{starlark.Tuple{starlark.String("abc"), starlark.String("find"), starlark.String("b"), starlark.MakeInt(1)}, false},             // positions
		{starlark.Tuple{starlark.String("abc"), starlark.String("count"), starlark.MakeInt(1)}, false},
		{starlark.Tuple{starlark.String("a b"), starlark.String("split"), starlark.MakeInt(1)}, false},                        // not a separator
		{starlark.Tuple{starlark.String("a b"), starlark.String("split"), starlark.String(""), starlark.MakeInt(1)}, false},   // empty separator
		{starlark.Tuple{starlark.String("a b"), starlark.String("split"), starlark.String(" "), starlark.String("1")}, false}, // not an int
		{starlark.Tuple{starlark.String("abc"), starlark.String("format")}, true},
		{starlark.Tuple{starlark.String("{}={:.1f}"), starlark.String("format"), starlark.String("x"), starlark.Float(0.25)}, true},
		{starlark.Tuple{starlark.String("{}"), starlark.String("format"), starlark.NewList(nil)}, false},  // not a basic value
		{starlark.Tuple{starlark.String("{} {}"), starlark.String("format"), starlark.MakeInt(1)}, false}, // IndexError
		{starlark.Tuple{d, starlark.String("items"), starlark.String("x")}, false},
		{starlark.Tuple{d, starlark.String("get"), starlark.String("a")}, false},
		{starlark.Tuple{starlark.NewList(nil), starlark.String("count"), starlark.String("a")}, false},
		{starlark.Tuple{starlark.String("abc")}, false},
	} {
		thread := &starlark.Thread{}
		got, ok := pyMethodFast(thread, c.args)
		assert.Equal(t, c.fast, ok, "%v", c.args)
		if !ok {
			continue
		}
		want, err := pyMethod(thread, nil, c.args, nil)
		require.NoError(t, err, "%v", c.args)
		assert.Equal(t, want.Type(), got.Type(), "%v", c.args)
		assert.Equal(t, want.String(), got.String(), "%v", c.args)
	}
}

// TestLenFastWords: len of a short str counted directly agrees with
// StrLen (code points; an invalid byte counts one, as everywhere else).
func TestLenFastWords(t *testing.T) {
	for _, s := range []string{"", "a", "hello", "héllo", "日本語", "\xff\xfe", "a\xffb", "exactly16bytes!!", "seventeen bytes!!", "abcdefghijklmné", "éabc"} {
		v, ok := lenFast(nil, starlark.Tuple{starlark.String(s)})
		require.True(t, ok, "%q", s)
		n, _ := starlark.AsInt32(v)
		assert.Equal(t, StrLen(s), n, "%q", s)
		assert.Equal(t, len([]rune(s)), n, "%q", s)
	}
}

// TestStrCountShort: s.count(sub) of a one-byte sub in a short str,
// counted by a loop, agrees with CountLiteral (and with code points:
// a one-byte sub is ASCII or a lone byte), at the 32-byte edge too.
func TestStrCountShort(t *testing.T) {
	texts := []string{"", "a", "banana", "héllo wörld, hallo", "\xffa\xff", strings.Repeat("ab", 16), strings.Repeat("ab", 16) + "a", "日本語 a"}
	for _, text := range texts {
		for _, sub := range []string{"a", "l", "\xff", " ", "é", "ab"} {
			v, ok := strCount(text, starlark.Tuple{starlark.String(sub)})
			require.True(t, ok, "%q.count(%q)", text, sub)
			n, _ := starlark.AsInt32(v)
			assert.Equal(t, strings.Count(text, sub), n, "%q.count(%q)", text, sub)
		}
	}
}

// TestIsASCII: the 32-byte rounds and the word and byte tails each see a
// non-ASCII byte wherever it sits.
func TestIsASCII(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 31, 32, 33, 64, 100} {
		s := strings.Repeat("a", n)
		assert.True(t, IsASCII(s), "len %d", n)
		for i := 0; i < n; i++ {
			assert.False(t, IsASCII(s[:i]+"\x80"+s[i+1:]), "len %d, byte %d", n, i)
		}
	}
}

// TestSplitLines: str.splitlines as CPython (its results written out):
// text whose only break is \n, non-ASCII included, takes the vectorized
// path; every other break the rune loop; lineBreaksUpTo bounds the count.
func TestSplitLines(t *testing.T) {
	for _, tc := range []struct {
		in         string
		want, keep []string
	}{
		{"", nil, nil},
		{"a\nb\n", []string{"a", "b"}, []string{"a\n", "b\n"}},
		{"héllo “wörld”\n日本語", []string{"héllo “wörld”", "日本語"}, []string{"héllo “wörld”\n", "日本語"}},
		{"\n\n", []string{"", ""}, []string{"\n", "\n"}},
		{"a\r\nb\rc\vd", []string{"a", "b", "c", "d"}, []string{"a\r\n", "b\r", "c\v", "d"}},
		{"é\u2028ü\u0085x\u2029", []string{"é", "ü", "x"}, []string{"é\u2028", "ü\u0085", "x\u2029"}},
		{"©\u0080x\n", []string{"©\u0080x"}, []string{"©\u0080x\n"}},
	} {
		for _, keep := range []bool{false, true} {
			want := tc.want
			if keep {
				want = tc.keep
			}
			var got []string
			l := splitLines(tc.in, keep)
			for i := 0; i < l.Len(); i++ {
				got = append(got, string(l.Index(i).(starlark.String)))
			}
			assert.Equal(t, want, got, "%q keepends=%v", tc.in, keep)
			assert.GreaterOrEqual(t, lineBreaksUpTo(tc.in), len(tc.want)-1, "%q", tc.in)
		}
	}
}
