package sandbox

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlmhq/rlm/sandbox/internal/pylib"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrefilterMatchesRegexp checks that the literal prefilter finds
// exactly what Go's regexp finds on a large text.
func TestPrefilterMatchesRegexp(t *testing.T) {
	text := benchText(pylib.PrefilterMin * 8)
	patterns := []string{
		`magic number \d+`, `[Mm]agic number`, `(?i)magic NUMBER`, `magic number`, `ERROR disk (\w+) on node (\d+)`,
		`(?m)^2024-01-0\d 0000\d\d ERROR`, `\d{6} alpha`, `node \d+$`, `(?i)MAGIC number (\d)(\d)?`, `full|magic`,
		`magic number|NUMBER is`, `(?i)(magic|node) \d`, `\d{4}`, `(?i)kelvin|stop`, `[Nn]ode \d+`,
	}
	for _, p := range patterns {
		t.Run(p, func(t *testing.T) {
			r, err := pylib.CompileRegexp(p, 0)
			require.NoError(t, err)
			std := regexp.MustCompile(p)
			assert.Equal(t, std.FindAllStringSubmatchIndex(text, -1), r.FindAllIndex(text, -1))
			assert.Equal(t, std.FindStringSubmatchIndex(text), r.FindIndex(text, 0))
			assert.Equal(t, std.FindAllStringSubmatchIndex(text, 3), r.FindAllIndex(text, 3))
		})
	}
	r, err := pylib.CompileRegexp(`no such thing`, pylib.ReIgnoreCase)
	require.NoError(t, err)
	assert.Nil(t, r.FindIndex(text, 0))
	assert.Empty(t, r.FindAllIndex(text, -1))

	// Lines with no, one and several matches (the prefilter finds a
	// line's first match alone and runs FindAll on the lines with more),
	// and a candidate of the literal that is no match.
	var b strings.Builder
	for i := 0; b.Len() < 4*pylib.PrefilterMin; i++ {
		b.WriteString("x key=" + strconv.Itoa(i) + " y key=22 key=" + strconv.Itoa(i%7) + "3\nnothing here\nkey=4 key=\nkey=55\n")
	}
	text = b.String()
	for _, p := range []string{`key=\d+`, `key=(\d)(\d)?`, `\bkey=\d+\b`, `(?m)key=\d+$`, `key=\d+ `, `y key=\d+`} {
		t.Run(p, func(t *testing.T) {
			r, err := pylib.CompileRegexp(p, 0)
			require.NoError(t, err)
			std := regexp.MustCompile(p)
			want := std.FindAllStringSubmatchIndex(text, -1)
			require.NotEmpty(t, want)
			assert.Equal(t, want, r.FindAllIndex(text, -1))
			assert.Equal(t, std.FindAllStringSubmatchIndex(text, 5), r.FindAllIndex(text, 5))
		})
	}
}

// TestFindAllChunkedMatchesRegexp: a pattern without a prefilter whose
// matches stay within a line is run on pieces of whole lines (short
// lines, a line longer than a piece, a text without a final newline), or
// from each byte a match can start with (firstBytes) when it does not
// look before a match, and finds what Go's regexp finds on the whole
// text.
func TestFindAllChunkedMatchesRegexp(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 8*pylib.PrefilterMin; i++ {
		b.WriteString("Alpha beta_" + strconv.Itoa(i) + " x9 \tGamma Kelvin kx\n\n")
		if i%97 == 0 {
			b.WriteString(strings.Repeat("word ", 3*pylib.MaxChunk) + "End\n")
		}
	}
	b.WriteString("last Line")
	text := b.String()
	for _, p := range []string{`\w+`, `[A-Z]\w*`, `\b\w{4}\b`, `(?m)^\w+`, `(?m)\w+$`, `(\w)(\d)?`, `\B\w`, `[^\s]+`,
		`(?i)k\w+`, `(?:_\d)*[A-Z][a-z]`, `\d?[A-Z]\w*(?m:$)`} {
		t.Run(p, func(t *testing.T) {
			r, err := pylib.CompileRegexp(p, 0)
			require.NoError(t, err)
			require.True(t, r.LineOK && !r.CanPrefilter(text, 0) && (r.Chunk > 0 || r.First != nil), "a path of pieces of lines runs")
			std := regexp.MustCompile(p)
			want := std.FindAllStringSubmatchIndex(text, -1)
			require.NotEmpty(t, want)
			assert.Equal(t, want, r.FindAllIndex(text, -1))
			assert.Equal(t, std.FindAllStringSubmatchIndex(text, 7), r.FindAllIndex(text, 7))
		})
	}
}

// TestCompileRegexpErrors checks that bad patterns are re.error
// exceptions with CPython 3.11's messages, and that the constructs RE2
// lacks compile (for the backtracking engine).
func TestCompileRegexpErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" compiles
	}{
		{`(a)\1`, ""},
		{`(?P<n>a)(?P=n)`, ""},
		{`a(?=b)`, ""},
		{`(?<!a)b`, ""},
		{`(?>ab)`, ""},
		{`a++`, ""},
		{`(?(1)a|b)`, "invalid group reference 1 at position 3"},
		{`(a`, "missing ), unterminated subpattern at position 0"},
		{`a(?i)b`, "global flags not at the start of the expression at position 1"},
		{`(?<=a+)b`, "look-behind requires fixed-width pattern"},
		{`\z`, `bad escape \z at position 0`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := pylib.CompileRegexp(tt.in, 0)
			if tt.want == "" {
				require.NoError(t, err)
				assert.Nil(t, r.Re, "runs on the backtracking engine")
				return
			}
			var pe *PyError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "re.error", pe.Kind)
			assert.Equal(t, tt.want, pe.Msg)
		})
	}
}

// Without MULTILINE, Python's $ also matches just before a final newline
// (expected values from CPython 3.11).
func TestDollarBeforeFinalNewline(t *testing.T) {
	tests := []struct{ code, want string }{
		{`print(re.search(r"\w+$", "abc def\n").group())`, "def\n"},
		{`print(re.match(r"^\w+$", "abc\n") is not None, re.fullmatch(r"abc$", "abc\n"))`, "True None\n"},
		{`print(re.findall(r"\d+$", "1 22\n"), re.findall(r"x$", "x\nx\n"), re.findall(r"x$", "x\nx\n", re.M))`, "['22'] ['x'] ['x', 'x']\n"},
		{`print(re.sub(r"$", "!", "ab\n"), re.sub(r"\s$", "_", "a \n"))`, "ab!\n! a__\n"},
		{`print(re.search(r"(?m)b$", "ab\nc") is not None, re.search(r"b$", "ab\nc"))`, "True None\n"},
		{`print(re.split(r"$", "a\n"), bool(re.search(r"[$]", "a$")))`, "['a', '\\n', ''] True\n"},
	}
	for _, tt := range tests {
		res, err := New(Config{}).Exec(context.Background(), tt.code)
		require.NoError(t, err, tt.code)
		assert.Equal(t, tt.want, res.Output, tt.code)
	}
}

// With pos, ^, \A and \b see the text before pos, as in CPython 3.11
// (expected values from CPython).
func TestSearchFromPos(t *testing.T) {
	big := strings.Repeat("filler line\n", pylib.PrefilterMin/8) // past the prefilter threshold
	tests := []struct{ code, want string }{
		{`print(re.compile(r"(?m)^b").search("ab", 1), re.compile(r"\bb").search("ab", 1))`, "None None\n"},
		{`print(re.compile(r"\Ab").search("ab", 1), re.compile(r"b").search("ab", 1).span())`, "None (1, 2)\n"},
		{`print(re.compile(r"\Bb").search("ab", 1).span(), re.compile(r"\bb|c").search("abc", 1).span())`, "(1, 2) (2, 3)\n"},
		{`print(re.compile(r"^").search("ab", 1), re.compile(r"(?m)^").search("ab", 1), re.compile(r"\b").search("ab ", 1).span())`, "None None (2, 2)\n"},
		{`print(re.compile(r"(?m)^b").search("a\nb", 2).span(), re.compile(r"\bb").search("a b", 2).span())`, "(2, 3) (2, 3)\n"},
		{`print(re.compile(r"^b").match("ab", 1), re.compile(r"b").match("ab", 1).span())`, "None (1, 2)\n"},
		{`print(re.compile(r"\bb").fullmatch("ab", 1), re.compile(r"b").fullmatch("ab", 1).span())`, "None (1, 2)\n"},
		{`print(re.compile(r"(b)(c)?").search("abcé", 1).groups(), re.compile(r"é").search("abé", 2).span())`, "('b', 'c') (2, 3)\n"},
		{`p = re.compile(r"(?m)^x\w+"); print(p.search("ax1\nx2" + big, 1).group(), p.search("xa x3\n" + big, 2))`, "x2filler None\n"},
		{`p = re.compile(r"\bnode\d"); print(p.search(big + "anode1 node2", len(big) + 1).group())`, "node2\n"},
	}
	for _, tt := range tests {
		res, err := New(Config{}).Exec(context.Background(), "import re\nbig = "+strconv.Quote(big)+"\n"+tt.code)
		require.NoError(t, err, tt.code)
		assert.Equal(t, tt.want, res.Output, tt.code)
	}
}

// A catastrophic pattern on the backtracking engine ends with the step's
// TimeoutError naming the pattern, and the session stays usable.
func TestBacktrackTimeout(t *testing.T) {
	s := New(Config{Limits: Limits{Timeout: 300 * time.Millisecond}})
	_, err := s.Exec(context.Background(), `import re
print(re.search(r"(a+)+(?!a)b", "a" * 40 + "c"))`)
	require.ErrorIs(t, err, ErrTimeout)
	assert.Contains(t, err.Error(), `the regular expression "(a+)+(?!a)b" backtracked`)
	res, err := s.Exec(context.Background(), `print(re.findall(r"(?<=a)b", "abab"))`)
	require.NoError(t, err)
	assert.Equal(t, "['b', 'b']\n", res.Output)
}

// The backtracking engine's one clock goroutine ends about a second after
// the last match's deadline (the step's). Other tests' steps keep it
// running, so this runs alone in a child process of the test binary.
func TestBacktrackClockEnds(t *testing.T) {
	if os.Getenv("RLM_TEST_BT_CLOCK") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBacktrackClockEnds$", "-test.count=1")
		cmd.Env = append(os.Environ(), "RLM_TEST_BT_CLOCK=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return
	}
	s := New(Config{Limits: Limits{Timeout: 200 * time.Millisecond}})
	_, err := s.Exec(context.Background(), `import re
print(re.search(r"(a+)+(?!a)b", "a" * 40 + "c"))`)
	require.ErrorIs(t, err, ErrTimeout)
	running := func() bool {
		buf := make([]byte, 1<<20)
		return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "regexp2")
	}
	assert.Eventually(t, func() bool { return !running() }, 10*time.Second, 50*time.Millisecond)
}

// The text the backtracking engine matches (4 bytes a character) counts
// against the step's memory limit.
func TestBacktrackMemoryLimit(t *testing.T) {
	s := New(Config{Limits: Limits{MaxMemory: 64 << 20}})
	_, err := s.Exec(context.Background(), `import re
text = "ab" * (12 << 20)
print(len(re.findall(r"(?<=a)b", text)))`)
	require.ErrorIs(t, err, ErrMemoryLimit)
}

// TestFirstBytes: the bytes a match can start with, past optional and
// empty parts; none when any byte could start one or a part looks back.
func TestFirstBytes(t *testing.T) {
	tests := []struct{ pat, want string }{
		{`[A-C]\w*`, "ABC"},
		{`\d?x`, "0123456789x"},
		{`(?:ab|c)*d`, "acd"},
		{`(?i)k`, "Kk+"},
		{`é`, "+"},
		{`[a\x{100}]`, "a+"},
		{`x|$y`, "xy"},
		{`.x`, ""},
		{`\bx`, ""},
		{`(?s:.)x`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.pat, func(t *testing.T) {
			re, err := syntax.Parse(tt.pat, syntax.Perl)
			require.NoError(t, err)
			set, ok := pylib.FirstBytes(re.Simplify())
			if tt.want == "" {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			var got strings.Builder
			for b := 0; b < 0x80; b++ {
				if set[b] {
					got.WriteByte(byte(b))
				}
			}
			if set[0x80] && set[0xff] {
				got.WriteByte('+')
			}
			assert.Equal(t, tt.want, got.String())
		})
	}
}

// TestFindallValues: re.findall on RE2 makes each match's value as it is
// found (ng 0, 1 and more groups, the prefilter's and the chunked paths
// and the plain one), and stops with a MemoryError once the matches would
// not fit in what is left of the step's limit.
func TestFindallValues(t *testing.T) {
	s := New(Config{Limits: Limits{MaxMemory: 64 << 20}})
	res, err := s.Exec(context.Background(), `import re
text = "k=1 v=22 x\nnone\nk=333 v=4\n" * 4000
for p in [r"k=\d+", r"k=(\d+)", r"k=(\d+) v=(\d)(\d)?", r"\w+", r"[a-z]=(\d)", r"(?s)x.n"]:
    ms = re.findall(p, text)
    print(len(ms), ms[:2], ms[-1], ms == [m.group() if m.re.groups == 0 else (m.group(1) if m.re.groups == 1 else m.groups("")) for m in re.finditer(p, text)])`)
	require.NoError(t, err)
	assert.Equal(t, `8000 ['k=1', 'k=333'] k=333 True
8000 ['1', '333'] 333 True
8000 [('1', '2', '2'), ('333', '4', '')] ('333', '4', '') True
40000 ['k', '1'] 4 True
16000 ['1', '2'] 4 True
4000 ['x\nn', 'x\nn'] x
n True
`, res.Output)

	_, err = s.Exec(context.Background(), `import re
x = re.findall("a", "a" * (32 << 20))`)
	require.ErrorIs(t, err, ErrMemoryLimit)
	assert.Contains(t, err.Error(), "matches would not fit in what is left of the memory limit (64 MB per step)")
}
