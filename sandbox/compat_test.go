package sandbox_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/sandbox"
)

// updateCompat regenerates testdata/compat/*.out by running CPython
// (python3 must be installed; only used with this flag).
var updateCompat = flag.Bool("update-compat", false, "regenerate testdata/compat/*.out with python3")

// compatThreshold is the minimum share of corpus snippets whose output
// must match CPython's exactly.
const compatThreshold = 0.90

const compatDir = "../testdata/compat"

// compatPrelude is what CPython runs before each snippet: the modules the
// sandbox predeclares.
const compatPrelude = "import re, json, math; "

// heldOutFrom is the number of the first snippet of the held-out set
// (written without looking at the runtime); its pass rate is logged apart.
const heldOutFrom = 147

// compatOutput renders what a snippet run produced in the golden format:
// stdout, then for an uncaught exception a last line "!! Kind: message".
func compatOutput(stdout, errLine string) string {
	if errLine == "" {
		return stdout
	}
	return stdout + "!! " + errLine + "\n"
}

// TestCompatCorpus runs every snippet of testdata/compat through a fresh
// Session and compares its output with CPython's golden output.
func TestCompatCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(compatDir, "*.py"))
	require.NoError(t, err)
	require.NotEmpty(t, files)

	if *updateCompat {
		for _, f := range files {
			// The sandbox binds re, json and math without an import (models
			// often forget it), so CPython runs each snippet with them imported.
			name := filepath.Base(f)
			cmd := exec.Command(
				"python3",
				"-c",
				compatPrelude+"exec(compile(open("+strconv.Quote(name)+").read(), "+strconv.Quote(name)+", 'exec'))",
			)
			cmd.Dir = compatDir
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			errLine := ""
			if err := cmd.Run(); err != nil {
				lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
				errLine = lines[len(lines)-1]
			}
			out := compatOutput(stdout.String(), errLine)
			require.NoError(t, os.WriteFile(strings.TrimSuffix(f, ".py")+".out", []byte(out), 0o644))
		}
	}

	passed, heldOut, heldOutPassed := 0, 0, 0
	var failed []string
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".py")
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		want, err := os.ReadFile(strings.TrimSuffix(f, ".py") + ".out")
		require.NoError(t, err, "missing golden file; run go test ./sandbox -run TestCompatCorpus -update-compat")

		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		s := sandbox.New(sandbox.Config{})
		res, err := s.Exec(ctx, string(src))
		cancel()
		errLine := ""
		if err != nil {
			var se *sandbox.ScriptError
			if errors.As(err, &se) {
				// The traceback's last line, as CPython's (which names a
				// module's exception class by its module).
				tb := strings.Split(strings.TrimSpace(se.Traceback), "\n")
				errLine = tb[len(tb)-1]
			} else {
				errLine = "Go error: " + err.Error()
			}
		}
		if res.Duration > time.Second {
			t.Logf("slow snippet %s: %v", name, res.Duration)
		}
		got := compatOutput(res.Output, errLine)
		num, _ := strconv.Atoi(name[:min(3, len(name))])
		if num >= heldOutFrom {
			heldOut++
		}
		if got == string(want) {
			passed++
			if num >= heldOutFrom {
				heldOutPassed++
			}
			continue
		}
		failed = append(failed, name)
		t.Logf("MISMATCH %s:\n%s", name, firstDiff(string(want), got))
	}
	rate := float64(passed) / float64(len(files))
	t.Logf("compat corpus: %d/%d snippets match CPython (%.1f%%); failing: %s", passed, len(files), 100*rate, strings.Join(failed, ", "))
	t.Logf("held-out set (%03d+): %d/%d", heldOutFrom, heldOutPassed, heldOut)
	if len(files) < 60 {
		t.Errorf("the corpus holds %d snippets, want at least 60", len(files))
	}
	if rate < compatThreshold {
		t.Errorf("compat pass rate %.1f%% is below the %.0f%% threshold", 100*rate, 100*compatThreshold)
	}
}

// firstDiff describes the first differing line of want and got.
func firstDiff(want, got string) string {
	w := strings.Split(want, "\n")
	g := strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b || i >= len(w) || i >= len(g) {
			return "  line " + strconv.Itoa(i+1) + "\n    want: " + a + "\n    got:  " + b
		}
	}
	return "  (equal)"
}
