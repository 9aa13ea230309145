package pyfront

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// FuzzCompile checks that Compile never fails with an internal error and
// that every file it produces is accepted by the upstream resolver and
// compiler. Seeds: the compatibility corpus.
func FuzzCompile(f *testing.F) {
	files, _ := filepath.Glob("../../../testdata/compat/*.py")
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err == nil {
			f.Add(string(src))
		}
	}
	f.Add("x = f'{a!r:>{w}}' if b is not None else 0 < c < d")
	f.Fuzz(func(t *testing.T, src string) {
		for _, opts := range []Options{{}, {CatchInner: true, InlineModuleTry: true, Classes: true}} {
			prog, err := Compile("fuzz.py", src, opts)
			if err != nil {
				if strings.Contains(err.Error(), "internal error") {
					t.Fatalf("internal error for %q: %v", src, err)
				}
				continue
			}
			var check func(chunks []Chunk)
			check = func(chunks []Chunk) {
				for _, c := range chunks {
					if c.File != nil {
						// Resolve errors (e.g. duplicate parameters) are fine;
						// panics are not.
						_, _ = starlark.FileProgram(c.File, func(string) bool { return true })
						continue
					}
					check(c.Try.Body)
					check(c.Try.Else)
					check(c.Try.Finally)
					for _, h := range c.Try.Handlers {
						check(h.Body)
					}
				}
			}
			check(prog.Chunks)
		}
	})
}
