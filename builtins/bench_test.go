package builtins_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/internal/benchtext"
	"github.com/rlmhq/rlm/sandbox"
)

// benchSearch times one search() call over the 100 MB corpus through the
// sandbox, all matches (max_results=None), in MB/s. Compare with
// BenchmarkMemoryScan in internal/pyre and with
// builtins/testdata/bench/search.py (CPython) run on the same machine.
func benchSearch(b *testing.B, code string) {
	text := benchtext.Text()
	sess := sandbox.New(sandbox.Config{Predeclared: builtins.Predeclared(&builtins.Host{})})
	sess.SetGlobal("text", starlark.String(text))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := sess.Exec(context.Background(), code); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchLiteral(b *testing.B) {
	benchSearch(b, `n = len(search(text, "magic number", max_results=None))`)
}

func BenchmarkSearchLiteralRare(b *testing.B) {
	benchSearch(b, `n = len(search(text, "number is 4242", max_results=None))`)
}

func BenchmarkSearchRegexPrefixed(b *testing.B) {
	benchSearch(b, `n = len(search(text, r"magic number \d+", regex=True, max_results=None))`)
}

func BenchmarkSearchRegexClass(b *testing.B) {
	benchSearch(b, `n = len(search(text, r"[Mm]agic number", regex=True, max_results=None))`)
}

func BenchmarkSearchRegexFoldCase(b *testing.B) {
	benchSearch(b, `n = len(search(text, r"(?i)magic number", regex=True, max_results=None))`)
}

func BenchmarkSearchFirst10(b *testing.B) {
	benchSearch(b, `n = len(search(text, r"(?i)number is \d+", regex=True))`)
}

// searchHitsRuns is how many timed runs each side of BenchmarkSearchHits
// gets (best of).
const searchHitsRuns = 3

// BenchmarkSearchHits measures building search() results: a literal with
// about 100k hits (the word "the" in the first 26 MB of the corpus),
// max_results=None, against CPython building the same list of dicts from
// re.finditer with a running line count and previews
// (testdata/bench/search_hits.py), run in the same benchmark right
// before. It reports the best CPU time of searchHitsRuns runs on each side
// (ms, cpython-ms), the time per hit (us/hit) and the ratio (x-cpython);
// without python3 only rlm's figures. Run with -benchtime=1x.
func BenchmarkSearchHits(b *testing.B) {
	text := benchtext.Text()[:26<<20]
	const pattern = "the"
	py, pyErr := exec.LookPath("python3.11")
	if pyErr != nil {
		py, pyErr = exec.LookPath("python3")
	}
	if pyErr != nil {
		b.Log("python3 not found: reporting rlm's figures only")
	}
	path := filepath.Join(b.TempDir(), "text.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	sess := sandbox.New(sandbox.Config{Predeclared: builtins.Predeclared(&builtins.Host{})})
	sess.SetGlobal("text", starlark.String(text))
	code := `hits = search(text, "` + pattern + `", max_results=None)
n = len(hits)
hits = None`
	for b.Loop() {
		pyBest, pyHits := math.NaN(), -1
		if pyErr == nil {
			out, err := exec.Command(py, "testdata/bench/search_hits.py", path, pattern, strconv.Itoa(searchHitsRuns)).Output()
			if err != nil {
				b.Fatalf("python3: %v", err)
			}
			if _, err := fmt.Sscan(string(out), &pyHits, &pyBest); err != nil {
				b.Fatalf("python3 output %q: %v", out, err)
			}
		}
		best := math.Inf(1)
		for r := 0; r < searchHitsRuns; r++ {
			runtime.GC()
			t := cpuSeconds()
			if _, err := sess.Exec(context.Background(), code); err != nil {
				b.Fatal(err)
			}
			best = min(best, cpuSeconds()-t)
		}
		nv, _ := sess.Global("n")
		n, _ := starlark.AsInt32(nv)
		if pyHits >= 0 && pyHits != n {
			b.Fatalf("rlm found %d hits, CPython %d", n, pyHits)
		}
		b.ReportMetric(best*1e3, "ms")
		b.ReportMetric(best*1e6/float64(n), "us/hit")
		b.ReportMetric(float64(n), "hits")
		if !math.IsNaN(pyBest) {
			b.ReportMetric(pyBest*1e3, "cpython-ms")
			b.ReportMetric(best/pyBest, "x-cpython")
		}
	}
}

// cpuSeconds is the CPU time (user and system, all threads, so the garbage
// collector's work counts) this process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
