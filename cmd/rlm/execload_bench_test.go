package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkExecLoad measures what a user pays to load a variable: the
// whole process `rlm exec --var doc=FILE -c 'print(len(doc))'` (the test
// binary re-executed as rlm, see TestMain), against python3 doing the same
// in the same run (`len(open(FILE).read())`, or json.load for JSON), and
// for a list of records the same with a typical filter and Counter
// after the load (json-20MB-filter). Each
// side runs three times; the best CPU time (user+system) and the largest
// peak RSS are reported:
//
//	rss/size     peak RSS of the rlm process / file size
//	py-rss/size  the same for python3
//	cpu/py-cpu   rlm's best CPU time / python3's
//	wall/py-wall the same for wall time (noisy on a busy machine)
//
//	go test -run '^$' -bench ExecLoad -benchtime 1x ./cmd/rlm/
//
// RLM_BENCH_1GB=1 adds a 1 GB text file. Without python3 it reports rlm's
// figures alone.
func BenchmarkExecLoad(b *testing.B) {
	if raceEnabled {
		b.Skip("the race runtime distorts memory and time; run without -race")
	}
	py, pyErr := exec.LookPath("python3.11")
	if pyErr != nil {
		py, pyErr = exec.LookPath("python3")
	}
	if pyErr != nil {
		b.Log("python3 not found: reporting rlm's figures only")
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	type loadCase struct {
		name, kind string
		size       int64
		code       string // rlm's code over doc ("" for print(len(doc)))
		pyCode     string
	}
	// filter is typical code over a list of records, run by both after
	// the load (python3 with doc = json.load(...) before it).
	const filter = "from collections import Counter\n" +
		"a = [r for r in doc if r['score'] > 50 and r['level'] == 'INFO']\n" +
		"c = Counter(t for r in doc for t in r['tags'])\n" +
		"u = Counter(r['user'] for r in doc)\n" +
		"print(len(a), c.most_common(2), len(u))\n"
	cases := []loadCase{
		{"text-100MB", "log", 100 << 20, "", "import sys; print(len(open(sys.argv[1]).read()))"},
		{"json-100MB", "json", 100 << 20, "", "import sys, json; print(len(json.load(open(sys.argv[1]))))"},
		{"json-20MB-filter", "json", 20 << 20, filter, "import sys, json\ndoc = json.load(open(sys.argv[1]))\n" + filter},
	}
	if os.Getenv("RLM_BENCH_1GB") == "1" {
		cases = append(cases, loadCase{"text-1GB", "log", 1 << 30, "", "import sys; print(len(open(sys.argv[1]).read()))"})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			path := writeLoadInput(b, c.kind, c.size)
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			size := float64(fi.Size())
			for b.Loop() {
				rlm := bestRun(b, 3, func() *exec.Cmd {
					code := c.code
					if code == "" {
						code = "print(len(doc))"
					}
					cmd := exec.Command(exe, "exec", "--var", "doc="+path, "-c", code)
					cmd.Env = append(os.Environ(), childEnv+"=1")
					return cmd
				})
				b.ReportMetric(float64(rlm.rss)/size, "rss/size")
				b.ReportMetric(rlm.cpu.Seconds(), "cpu-s")
				if pyErr == nil {
					p := bestRun(b, 3, func() *exec.Cmd { return exec.Command(py, "-c", c.pyCode, path) })
					b.ReportMetric(float64(p.rss)/size, "py-rss/size")
					b.ReportMetric(rlm.cpu.Seconds()/p.cpu.Seconds(), "cpu/py-cpu")
					b.ReportMetric(rlm.wall.Seconds()/p.wall.Seconds(), "wall/py-wall")
				}
			}
		})
	}
}

// runCost is what one child process cost: the best CPU and wall times
// and the largest peak RSS (bytes) over several runs.
type runCost struct {
	cpu, wall time.Duration
	rss       int64
}

// bestRun runs the command made by mk n times.
func bestRun(b *testing.B, n int, mk func() *exec.Cmd) runCost {
	b.Helper()
	var best runCost
	for i := 0; i < n; i++ {
		cmd := mk()
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", cmd.Path, err, out)
		}
		wall := time.Since(start)
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		var rss int64
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss << 10 // kB on Linux
		}
		if i == 0 || cpu < best.cpu {
			best.cpu = cpu
		}
		if i == 0 || wall < best.wall {
			best.wall = wall
		}
		best.rss = max(best.rss, rss)
	}
	return best
}

// writeLoadInput writes a file of about size bytes: log lines ("log") or
// a JSON array of records ("json"), removed when the benchmark ends.
func writeLoadInput(b *testing.B, kind string, size int64) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "input."+map[string]string{"log": "log", "json": "json"}[kind])
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	words := []string{"request", "served", "user", "session", "timeout", "connection", "cache", "miss", "retry", "error"}
	levels := []string{"INFO", "WARN", "ERROR", "DEBUG"}
	var n int64
	if kind == "json" {
		w.WriteString("[")
	}
	for i := 0; n < size; i++ {
		var m int
		switch kind {
		case "json":
			sep := ",\n"
			if i == 0 {
				sep = ""
			}
			m, _ = fmt.Fprintf(w, `%s{"id": %d, "user": "%s%d", "level": "%s", "score": %d.25, "tags": ["%s", "%s"], "msg": "%s %s %s %d"}`,
				sep, i, words[i%10], i%1000, levels[i%4], i%100, words[i*3%10], words[i*7%10], words[i%10], words[i*3%10], words[i*7%10], i)
		default:
			m, _ = fmt.Fprintf(w, "2026-01-%02dT03:04:%02dZ [%s] %s %s %s path=/api/items/%d status=%d bytes=%d\n",
				i%28+1, i%60, levels[i%4], words[i%10], words[i*3%10], words[i*7%10], i%977, 200+i%3*100, i*7%100000)
		}
		n += int64(m)
	}
	if kind == "json" {
		w.WriteString("]\n")
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return path
}
