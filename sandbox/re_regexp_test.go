package sandbox

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/sandbox/internal/pylib"
)

// Without MULTILINE, Python's $ also matches just before a final newline
// (expected values from CPython 3.11).
func TestDollarBeforeFinalNewline(t *testing.T) {
	tests := []struct{ code, want string }{
		{`print(re.search(r"\w+$", "abc def\n").group())`, "def\n"},
		{`print(re.match(r"^\w+$", "abc\n") is not None, re.fullmatch(r"abc$", "abc\n"))`, "True None\n"},
		{
			`print(re.findall(r"\d+$", "1 22\n"), re.findall(r"x$", "x\nx\n"), re.findall(r"x$", "x\nx\n", re.M))`,
			"['22'] ['x'] ['x', 'x']\n",
		},
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
		{
			`print(re.compile(r"^").search("ab", 1), re.compile(r"(?m)^").search("ab", 1), re.compile(r"\b").search("ab ", 1).span())`,
			"None None (2, 2)\n",
		},
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
