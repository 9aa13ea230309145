package sandbox_test

import (
	"context"
	"fmt"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox"
)

func Example() {
	s := sandbox.New(sandbox.Config{})
	s.SetGlobal("context", starlark.String("alpha\nbeta ERROR\ngamma\n"))
	ctx := context.Background()

	// Step 1 defines variables; step 2 sees them.
	s.Exec(ctx, `lines = context.splitlines()`)
	res, err := s.Exec(ctx, `
import re
hits = [l for l in lines if re.search(r"\bERROR\b", l)]
print(f"{len(lines)} lines, {len(hits)} hit: {hits}")
`)
	fmt.Print(res.Output)

	// Errors come back as a Python-style traceback.
	_, err = s.Exec(ctx, "counts = {}\ncounts['missing'] += 1")
	fmt.Println(err.(*sandbox.ScriptError).Traceback)
	// Output:
	// 3 lines, 1 hit: ['beta ERROR']
	// Traceback (most recent call last):
	//   line 2, in <module>
	//     counts['missing'] += 1
	// KeyError: 'missing'
}
