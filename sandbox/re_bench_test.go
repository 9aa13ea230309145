package sandbox

import (
	"fmt"
	"testing"
)

// reBenchCases are re calls over 100 MB of log lines (benchText): findall
// for frequent and rare matches, search for an absent pattern (a full scan).
var reBenchCases = []struct{ name, code string }{
	{"findall/prefixed", `n = len(re.findall(r"magic number \d+", text))`},
	{"findall/class", `n = len(re.findall(r"[Mm]agic number", text))`},
	{"findall/ignorecase", `n = len(re.findall(r"(?i)magic number", text))`},
	{"findall/alternation", `n = len(re.findall(r"Magic number|full on node 99", text))`},
	{"findall/literal", `n = len(re.findall(r"magic number", text))`},
	{"findall/frequent", `n = len(re.findall(r"\d{6} gamma", text))`},
	{"findall/digits", `n = len(re.findall(r"\d{7}", text))`},
	{"search/prefixed", `m = re.search(r"magic number \d{4}", text)`},
	{"search/class", `m = re.search(r"[Nn]ode 100", text)`},
	{"search/ignorecase", `m = re.search(r"(?i)node 100", text)`},
	{"search/alternation", `m = re.search(r"node 100|magic number 1000", text)`},
}

// BenchmarkRe runs the re module's findall and search over 100 MB in the
// sandbox (the literal prefilter at work).
func BenchmarkRe(b *testing.B) {
	text, _ := benchData()
	for _, c := range reBenchCases {
		b.Run(c.name, func(b *testing.B) {
			benchExec(b, text, fmt.Sprintf("import re\n%s", c.code))
		})
	}
}

// BenchmarkReWords is re.findall of a repeated class (\w+, [a-z]+: the
// words of 10 MB of log lines, about 2M matches; the run scan, classRun)
// in the sandbox and in CPython (cpython-ms; x-cpython is the ratio).
func BenchmarkReWords(b *testing.B) {
	_, text := benchData()
	for _, c := range []struct{ name, pat string }{{"words", `\w+`}, {"lowerwords", `[a-z]+`}} {
		b.Run(c.name, func(b *testing.B) {
			benchExec(b, text, "import re\nn = len(re.findall(r\""+c.pat+"\", text))")
			cpythonRatio(b, text, "re_"+c.name)
		})
	}
}
