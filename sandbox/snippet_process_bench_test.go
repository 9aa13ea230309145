package sandbox

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSnippetsProcess is BenchmarkSnippets for whole processes: each
// snippet (setup and code together, both timed) runs as
// `rlm exec --var NAME=FILE snippet.py` and as `python3 snippet.py`
// (which reads FILE into NAME first) on the same data files, so that
// start-up, loading the variable and the collector's work count too. The
// sides alternate in each of $RLM_BENCH_ROUNDS rounds (default 5); each
// reports its best CPU time (user+system of the child, from its rusage)
// and the ratio rlm/python3 (x-cpython); a last sub-benchmark, geomean,
// reports the geometric mean of the ratios, and a table is printed.
//
//	go test ./sandbox/ -run '^$' -bench SnippetsProcess -benchtime=1x
//	make bench-snippets
//
// The rlm binary is $RLM_BIN, or one built from ../cmd/rlm into a
// temporary directory. With $RLM_BIN_BASE set to another rlm binary (e.g.
// one built from main), it runs as a third side in the same rounds and
// the table adds the ratio of RLM_BIN to it (x-base), a paired
// comparison of two builds on the same machine moments.
func BenchmarkSnippetsProcess(b *testing.B) {
	py, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("python3 not found")
	}
	rounds := 5
	if s := os.Getenv("RLM_BENCH_ROUNDS"); s != "" {
		if rounds, err = strconv.Atoi(s); err != nil || rounds < 1 {
			b.Fatalf("RLM_BENCH_ROUNDS=%q: want a positive count", s)
		}
	}
	dir := b.TempDir()
	bin := os.Getenv("RLM_BIN")
	if bin == "" {
		bin = filepath.Join(dir, "rlm")
		if out, err := exec.Command("go", "build", "-o", bin, "../cmd/rlm").CombinedOutput(); err != nil {
			b.Fatalf("go build ../cmd/rlm: %v\n%s", err, out)
		}
	}
	base := os.Getenv("RLM_BIN_BASE")
	_, text10 := benchData()
	files := map[string]string{"text": text10, "doc": benchJSONArray()}
	for name, v := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var ratios, baseRatios []float64
	var table strings.Builder
	for _, sn := range benchSnippets {
		data := filepath.Join(dir, sn.data)
		script := filepath.Join(dir, sn.name+".py")
		pyScript := filepath.Join(dir, sn.name+".cpython.py")
		src := sn.setup + "\n" + sn.code
		pySrc := fmt.Sprintf("with open(%q, encoding='utf-8') as f:\n    %s = f.read()\n", data, sn.data) + src
		if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(pyScript, []byte(pySrc), 0o644); err != nil {
			b.Fatal(err)
		}
		rlmArgs := []string{"exec", "--var", sn.data + "=" + data, script}
		b.Run(sn.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				pyBest, best, baseBest := math.Inf(1), math.Inf(1), math.Inf(1)
				for range rounds {
					pyBest = min(pyBest, childCPU(b, dir, py, pyScript))
					best = min(best, childCPU(b, dir, bin, rlmArgs...))
					if base != "" {
						baseBest = min(baseBest, childCPU(b, dir, base, rlmArgs...))
					}
				}
				b.ReportMetric(best*1e3, "rlm-ms")
				b.ReportMetric(pyBest*1e3, "cpython-ms")
				b.ReportMetric(best/pyBest, "x-cpython")
				if base != "" {
					b.ReportMetric(best/baseBest, "x-base")
				}
				if i == b.N-1 {
					ratios = append(ratios, best/pyBest)
					fmt.Fprintf(&table, "%-18s %8.1f ms %8.1f ms %6.2fx", sn.name, best*1e3, pyBest*1e3, best/pyBest)
					if base != "" {
						baseRatios = append(baseRatios, best/baseBest)
						fmt.Fprintf(&table, " %8.1f ms %6.3fx", baseBest*1e3, best/baseBest)
					}
					table.WriteString("\n")
				}
			}
		})
	}
	if len(ratios) == 0 {
		return
	}
	gm := geomean(ratios)
	b.Run("geomean", func(b *testing.B) {
		b.ReportMetric(gm, "x-cpython")
		if len(baseRatios) > 0 {
			b.ReportMetric(geomean(baseRatios), "x-base")
		}
	})
	head := "snippet            rlm        python3    ratio"
	if base != "" {
		head += "   base       rlm/base"
	}
	fmt.Printf("whole processes, best CPU time of %d rounds\n%s\n%sgeometric mean %.2fx CPython over %d snippets\n",
		rounds, head, table.String(), gm, len(ratios))
	if len(baseRatios) > 0 {
		fmt.Printf("geometric mean rlm/base %.3fx\n", geomean(baseRatios))
	}
}

// geomean is the geometric mean of xs (positive).
func geomean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}

// childCPU runs name with args in dir, its output discarded, and returns
// the CPU time (user and system) the child used, in seconds.
func childCPU(b *testing.B, dir, name string, args ...string) float64 {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RLM_STORE="+filepath.Join(dir, "store"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Fatal("no rusage for the child")
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
