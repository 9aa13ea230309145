package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// benchText returns a deterministic text of about n bytes: log-like lines,
// one in 50 with "ERROR", one in 1000 with "magic number N" (mixed case).
func benchText(n int) string {
	var b strings.Builder
	b.Grow(n + 200)
	words := []string{"alpha", "beta", "gamma", "delta", "request", "served", "user", "cache", "miss", "ok"}
	x := uint32(12345)
	next := func() uint32 { x = x*1664525 + 1013904223; return x >> 8 }
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "2024-01-%02d %06d ", i%28+1, i)
		switch {
		case i%1000 == 7:
			if i%2000 == 7 {
				b.WriteString("Magic number ")
			} else {
				b.WriteString("the magic number ")
			}
			b.WriteString(strconv.Itoa(int(next() % 1000)))
		case i%50 == 3:
			b.WriteString("ERROR disk full on node ")
			b.WriteString(strconv.Itoa(int(next() % 100)))
		default:
			for k := 0; k < 8; k++ {
				b.WriteString(words[next()%uint32(len(words))])
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

var (
	benchOnce  sync.Once
	bench100MB string
	bench10MB  string
)

func benchData() (string, string) {
	benchOnce.Do(func() {
		bench100MB = benchText(100 << 20)
		bench10MB = bench100MB[:strings.LastIndexByte(bench100MB[:10<<20], '\n')+1]
	})
	return bench100MB, bench10MB
}

var (
	pyMu      sync.Mutex
	pyResults = map[string]float64{}
)

// cpython times the same workload in CPython (skipped without python3)
// and reports it as the cpython-ms metric; call it after the timed loop.
func cpython(b *testing.B, text, kase string) {
	b.Helper()
	pyMu.Lock()
	defer pyMu.Unlock()
	if secs, ok := pyResults[kase]; ok {
		b.ReportMetric(secs*1e3, "cpython-ms")
		return
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		return
	}
	dir := b.TempDir()
	data := filepath.Join(dir, "data.txt")
	if err := os.WriteFile(data, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	out, err := exec.Command(py, "testdata/bench/bench.py", data, kase).Output()
	if err != nil {
		b.Logf("python3: %v", err)
		return
	}
	secs, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err == nil {
		pyResults[kase] = secs
		b.ReportMetric(secs*1e3, "cpython-ms")
	}
}

func benchExec(b *testing.B, text, code string) {
	s := New(Config{})
	s.SetGlobal("text", starlark.String(text))
	ctx := context.Background()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Exec(ctx, code); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "sandbox-ms")
}

// cpythonRatio is cpython, and reports the sandbox's time per op (timed
// just before) as a ratio to CPython's (x-cpython) when python3 ran.
func cpythonRatio(b *testing.B, text, kase string) {
	b.Helper()
	cpython(b, text, kase)
	pyMu.Lock()
	secs, ok := pyResults[kase]
	pyMu.Unlock()
	if ok {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9/secs, "x-cpython")
	}
}

// BenchmarkStepStart measures the fixed cost of one Exec step.
func BenchmarkStepStart(b *testing.B) {
	s := New(Config{})
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		if _, err := s.Exec(ctx, "x = 1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoop is a typical LLM-style loop over 10 MB: split into lines
// and count the matching ones. cpython-ms is CPython 3 on the same code.
func BenchmarkLoop(b *testing.B) {
	_, text := benchData()
	benchExec(b, text, `
lines = text.split("\n")
n = 0
for line in lines:
    if "ERROR" in line:
        n += 1
`)
	cpython(b, text, "loop")
}

var regexCases = []struct{ name, pattern string }{
	{"prefixed", `magic number \d+`},
	{"unprefixed", `[Mm]agic number`},
	{"ignorecase", `(?i)magic number`},
	{"literal", `magic number`},
}

// BenchmarkRegex runs re.findall over 100 MB in the sandbox, next to
// CPython's re (cpython-ms) and Go's regexp without the prefilter.
func BenchmarkRegex(b *testing.B) {
	text, _ := benchData()
	for _, c := range regexCases {
		b.Run(c.name, func(b *testing.B) {
			benchExec(b, text, fmt.Sprintf("import re\nn = len(re.findall(r'%s', text))", c.pattern))
			cpython(b, text, "re_"+c.name)
		})
	}
}

// BenchmarkRegexGoBaseline is Go's regexp.FindAllStringIndex on the same
// 100 MB without the prefilter.
func BenchmarkRegexGoBaseline(b *testing.B) {
	text, _ := benchData()
	for _, c := range regexCases {
		b.Run(c.name, func(b *testing.B) {
			re := regexp.MustCompile(c.pattern)
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				re.FindAllStringIndex(text, -1)
			}
		})
	}
}

// BenchmarkFindLiteral is str.find of an absent needle over 100 MB (a plain
// memory scan), in the sandbox and in CPython.
func BenchmarkFindLiteral(b *testing.B) {
	text, _ := benchData()
	benchExec(b, text, `i = text.find("no such needle here")`)
	cpython(b, text, "find_literal")
}

// BenchmarkStrSearch is str.find, `in`, str.index, str.count, str.rfind
// and str.replace over 100 MB with a needle whose first byte is common
// (absent, or found once near the end for index), in the sandbox and in
// CPython (cpython-ms; x-cpython is the ratio).
func BenchmarkStrSearch(b *testing.B) {
	text, _ := benchData()
	for _, c := range []struct{ name, code string }{
		{"find", `i = text.find("the magic number 1000")`},
		{"in", `i = "the magic number 1000" in text`},
		{"index", `i = text.index("2024-01-13 1500000 ")`},
		{"count", `i = text.count("the magic number 1")`},
		{"rfind", `i = text.rfind("the magic number 1000")`},
		{"replace", `i = text.replace("the magic number 1000", "x")`},
	} {
		b.Run(c.name, func(b *testing.B) {
			benchExec(b, text, c.code)
			cpythonRatio(b, text, "str_"+c.name)
		})
	}
}

// BenchmarkOperatorRouting measures what the front-end's routing of == and
// bool arithmetic through runtime helpers costs, on the Starlark code it
// produces, against the code Starlark ran before routing (same run):
// eq/native `if x == "yes"` vs eq/routed `if _py_eq(x, "yes")`, and
// bool/native `if x > 0: n += 1` vs bool/routed `n += _py_b2i(x > 0)`.
func BenchmarkOperatorRouting(b *testing.B) {
	const n = 100000
	cases := []struct{ name, body string }{
		{"eq/native", "if x == \"yes\":\n            n += 1"},
		{"eq/routed", "if _py_eq(x, \"yes\"):\n            n += 1"},
		{"bool/native", "if len(x) > 2:\n            n += 1"},
		{"bool/routed", `n += _py_b2i(len(x) > 2)`},
	}
	predeclared := py.PyBuiltins()
	for _, c := range cases {
		src := fmt.Sprintf("def run(xs):\n    n = 0\n    for x in xs:\n        %s\n    return n\nr = run(xs)\n", c.body)
		b.Run(c.name, func(b *testing.B) {
			xs := make([]starlark.Value, n)
			for i := range xs {
				xs[i] = starlark.String([]string{"yes", "no", "maybe"}[i%3])
			}
			pre := starlark.StringDict{"xs": starlark.NewList(xs)}
			for k, v := range predeclared {
				pre[k] = v
			}
			opts := &syntax.FileOptions{}
			if _, err := starlark.ExecFileOptions(opts, &starlark.Thread{}, "b.star", src, pre); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := starlark.ExecFileOptions(opts, &starlark.Thread{}, "b.star", src, pre); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/iter")
		})
	}
}

// BenchmarkSubscriptRouting measures the code-point subscripts (every
// subscript read goes through _py_getitem/_py_getslice) against Starlark's
// own byte subscripts in the same run, on a list, a 10 MB ASCII string and
// a 10 MB non-ASCII string (100,000 reads each).
func BenchmarkSubscriptRouting(b *testing.B) {
	const n = 100000
	ascii := starlark.String(benchText(10 << 20))
	utf := starlark.String(strings.Repeat("naïve café — “quoted” ", (10<<20)/32))
	list := make([]starlark.Value, n)
	for i := range list {
		list[i] = starlark.MakeInt(i)
	}
	exprs := []struct{ name, native, routed string }{
		{"list-index", "x[i]", "_py_getitem(x, i)"},
		{"str-index", "x[i * 70]", "_py_getitem(x, i * 70)"},
		{"str-slice", "x[i * 70:i * 70 + 40]", "_py_getslice(x, i * 70, i * 70 + 40, None)"},
	}
	predeclared := py.PyBuiltins()
	for _, e := range exprs {
		for _, data := range []struct {
			name string
			v    starlark.Value
		}{{"list", starlark.NewList(list)}, {"ascii", ascii}, {"utf8", utf}} {
			if (e.name == "list-index") != (data.name == "list") {
				continue
			}
			for _, mode := range []string{"native", "routed"} {
				expr := e.native
				if mode == "routed" {
					expr = e.routed
				}
				src := fmt.Sprintf("def run(x):\n    for i in range(%d):\n        v = %s\nrun(x)\n", n, expr)
				b.Run(e.name+"/"+data.name+"/"+mode, func(b *testing.B) {
					pre := starlark.StringDict{"x": data.v}
					for k, v := range predeclared {
						pre[k] = v
					}
					opts := &syntax.FileOptions{}
					for i := 0; i < b.N; i++ {
						if _, err := starlark.ExecFileOptions(opts, &starlark.Thread{}, "b.star", src, pre); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/read")
				})
			}
		}
	}
}

// BenchmarkStrLen measures len() of a 100 MB string the first time (the
// ASCII scan, or the code-point table for non-ASCII text) and when its
// facts are cached, against len of the bytes.
func BenchmarkStrLen(b *testing.B) {
	ascii := benchText(100 << 20)
	utf := strings.Repeat("naïve café — “quoted” ", (100<<20)/32)
	b.Run("bytes", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_ = len(ascii)
		}
	})
	for _, c := range []struct{ name, s string }{{"ascii", ascii}, {"utf8", utf}} {
		b.Run(c.name+"/first", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s := c.s[i%2:] // a string not seen before
				py.StrCache.Lock()
				py.StrCache.Entries = nil
				py.StrCache.Unlock()
				py.StrLast.Store(nil)
				_ = StrLen(s)
			}
		})
		b.Run(c.name+"/cached", func(b *testing.B) {
			StrLen(c.s)
			for i := 0; i < b.N; i++ {
				_ = StrLen(c.s)
			}
		})
	}
}

// BenchmarkLoopFields is an LLM-style loop that indexes and compares:
// split 10 MB into lines and fields, count the lines whose third field is
// "ERROR" and slice a prefix of each (subscripts and == go through the
// runtime helpers).
func BenchmarkLoopFields(b *testing.B) {
	_, text := benchData()
	benchExec(b, text, `
n = 0
heads = 0
for line in text.split("\n"):
    f = line.split(" ")
    if len(f) > 2 and f[2] == "ERROR":
        n += 1
    heads += len(line[:12])
`)
}

// BenchmarkStringBuiltins is string-heavy code on small values: the
// builtins that check sizes before allocating (replace, join, format
// widths, zfill, center, %, str(int), sorted) called many times, to show
// that the checks cost nothing measurable on normal code. Compare it
// before and after a change with the same -count.
func BenchmarkStringBuiltins(b *testing.B) {
	benchExec(b, "", `
out = []
for i in range(20000):
    s = "item-%d" % i
    s = s.replace("-", "_").upper().zfill(12).center(16)
    s = "{:>20}|{:<8}".format(s, str(i * 7))
    out.append(",".join([s, s.strip(), str(len(s))]))
out = sorted(out[:2000])
`)
}
