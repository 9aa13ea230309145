package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sentenceText is about n bytes of prose: sentences ending in . ! or ?,
// some words repeated, some non-ASCII.
func sentenceText(n int) string {
	words := strings.Fields(
		"the model reads the document and finds a fact about the city of Zürich while the the answer waits in a café near the river",
	)
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		for j := range 6 + i%9 {
			if j == 0 {
				b.WriteString(strings.ToUpper(words[i%len(words)][:1]) + words[i%len(words)][1:])
			} else {
				b.WriteString(words[(i*7+j*3)%len(words)])
			}
			b.WriteByte(' ')
		}
		b.WriteString("end")
		b.WriteString([]string{". ", "! ", "? ", ".\n"}[i%4])
	}
	return b.String()
}

var reFallbackSnippets = []benchSnippet{
	// The backtracking engine: lookbehind and a backreference.
	{name: "split-lookbehind", data: "text", code: `import re
parts = re.split(r'(?<=[.!?])\s+', text)`},
	{name: "findall-backref", data: "text", code: `import re
n = len(re.findall(r'\b(\w+)\s+\1\b', text))`},
	// RE2 on the same text, for comparison.
	{name: "split-re2", data: "text", code: `import re
parts = re.split(r'[.!?]\s+', text)`},
}

// BenchmarkReFallback times sentence splitting and backreference search on
// 1 MB in the sandbox and, in the same run, in CPython (skipped without
// python3); each reports sandbox-ms, cpython-ms and their ratio
// (x-cpython), best of snippetRuns. Run it with -benchtime=1x.
func BenchmarkReFallback(b *testing.B) {
	py, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("python3 not found")
	}
	text := sentenceText(1 << 20)
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "text"), []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, sn := range reFallbackSnippets {
		b.Run(sn.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				pyBest := cpythonSnippet(b, py, dir, sn)
				best := sandboxSnippet(b, text, sn)
				b.ReportMetric(best*1e3, "sandbox-ms")
				b.ReportMetric(pyBest*1e3, "cpython-ms")
				b.ReportMetric(best/pyBest, "x-cpython")
				if i == b.N-1 {
					fmt.Printf("%-18s %8.1f ms %8.1f ms %6.2fx\n", sn.name, best*1e3, pyBest*1e3, best/pyBest)
				}
			}
		})
	}
}
