package layers

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/rlmhq/rlm/"

// deps lists the module packages that the packages matching pattern depend
// on, directly or not, and whether any non-standard third-party package is
// among them.
func deps(t *testing.T, pattern string) (own []string, thirdParty []string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pattern)
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, module) {
			own = append(own, strings.TrimPrefix(p, module))
		} else {
			thirdParty = append(thirdParty, p)
		}
	}
	return own, thirdParty
}

func TestLayers(t *testing.T) {
	tests := []struct {
		pattern string
		// forbidden are module package prefixes that must not be among the
		// dependencies.
		forbidden []string
		// stdlibOnly: no third-party package at all but those in allowed.
		stdlibOnly bool
		allowed    []string // third-party module prefixes a stdlibOnly leaf may use
	}{
		// The interpreter is the bottom layer: upstream's code and rlm's patches, nothing of rlm above it.
		{pattern: "./internal/starlark/...", stdlibOnly: true, allowed: []string{"golang.org/x/sys"}},
		{pattern: "./internal/pyjson", stdlibOnly: true},
		// pyre's backtracking engine (lookaround, backreferences) is regexp2.
		{pattern: "./internal/pyre", stdlibOnly: true, allowed: []string{"github.com/dlclark/regexp2/v2"}},
		{pattern: "./internal/jsonl", stdlibOnly: true},
		{pattern: "./internal/numfmt", stdlibOnly: true},
		{pattern: "./internal/pylines", stdlibOnly: true},
		{pattern: "./internal/textdist", stdlibOnly: true},
		// starjson decodes into the interpreter's values, for the sandbox and context alike.
		{
			pattern:   "./internal/starjson",
			forbidden: []string{"sandbox", "context", "llm", "builtins", "orchestrator", "deferred", "internal/bench", "cmd"},
		},
		{
			pattern:   "./sandbox/...",
			forbidden: []string{"repl", "llm", "builtins", "orchestrator", "context", "deferred", "internal/bench", "cmd"},
		},
		// Inside the sandbox: the front end translates Python to Starlark
		// and knows no value; the modules (pylib) use the value layer (py),
		// which never names a module: it reaches module behaviour through
		// its registry and small interfaces the modules' types satisfy.
		// Neither imports the public face (the compiler refuses the cycle).
		{pattern: "./sandbox/internal/pyfront", forbidden: []string{"sandbox/internal/py", "sandbox/internal/pylib"}},
		{pattern: "./sandbox/internal/py", forbidden: []string{"sandbox/internal/pylib", "sandbox/internal/pyfront"}},
		{pattern: "./sandbox/internal/pylib", forbidden: []string{"sandbox/internal/pyfront"}},
		{pattern: "./llm", forbidden: []string{"sandbox", "builtins", "orchestrator", "context", "deferred", "internal/bench", "cmd"}},
		{pattern: "./deferred", forbidden: []string{"repl", "builtins", "orchestrator", "context", "internal/bench", "cmd"}},
		{pattern: "./context", forbidden: []string{"repl", "sandbox", "builtins", "orchestrator", "deferred", "internal/bench", "cmd"}},
		{pattern: "./builtins", forbidden: []string{"repl", "orchestrator", "internal/bench", "cmd"}},
		// repl assembles sandbox, builtins, deferred and context into a REPL; nothing of the run above it.
		{pattern: "./repl", forbidden: []string{"orchestrator", "runs", "server", "internal/bench", "cmd"}},
		{pattern: "./orchestrator", forbidden: []string{"internal/bench", "cmd"}},
		{pattern: "./runs", forbidden: []string{"internal/bench", "cmd"}},
		// cluster is the cluster mode's system of record: the server and the
		// worker command use it, never the other way. It imports runs (for
		// runs.Status), which brings the engine below it (runs.OutcomeOf
		// takes an orchestrator.Result), so only the layers above are
		// forbidden here.
		{pattern: "./cluster", forbidden: []string{"server", "cmd", "internal/bench", "internal/loadtest"}},
		// blobs (cluster mode's variable bytes) is a leaf: the S3 SDK and errgroup, nothing of rlm.
		{pattern: "./blobs", stdlibOnly: true, allowed: []string{"github.com/aws", "golang.org/x/sync"},
			forbidden: []string{
				"sandbox",
				"repl",
				"llm",
				"builtins",
				"orchestrator",
				"context",
				"deferred",
				"runs",
				"server",
				"internal",
				"cmd",
			}},
		// telemetry traces the engine (it implements orchestrator.Tracer): the
		// server and the commands use it, never the engine or anything below.
		{pattern: "./telemetry", forbidden: []string{"server", "runs", "cluster", "blobs", "cmd", "internal/bench", "internal/loadtest"}},
		// The load test drives rlm serve over HTTP: it links no engine.
		{
			pattern:   "./internal/loadtest/...",
			forbidden: []string{"sandbox", "builtins", "orchestrator", "context", "deferred", "server", "runs", "internal/bench", "cmd"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			own, third := deps(t, tt.pattern)
			for _, p := range own {
				for _, f := range tt.forbidden {
					if p == f || strings.HasPrefix(p, f+"/") {
						t.Errorf("%s depends on %s: imports must point down the layers (see package layers)", tt.pattern, p)
					}
				}
			}
			if tt.stdlibOnly {
				var other []string
				for _, p := range third {
					ok := false
					for _, a := range tt.allowed {
						ok = ok || p == a || strings.HasPrefix(p, a+"/")
					}
					if !ok {
						other = append(other, p)
					}
				}
				require.Empty(t, other, "%s must import only the standard library (and %v)", tt.pattern, tt.allowed)
			}
		})
	}
}
