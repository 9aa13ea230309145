package pyfront_test

import (
	"fmt"

	"github.com/rlmhq/rlm/sandbox/internal/pyfront"
)

func ExampleCompile() {
	src := `import json
total = 2 ** 10
print(f"{total:,} bytes")
try:
    data = json.loads("{")
except ValueError as e:
    data = {}
`
	prog, err := pyfront.Compile("step.py", src, pyfront.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range prog.Chunks {
		if c.File != nil {
			fmt.Print(pyfront.Unparse(c.File.Stmts))
			continue
		}
		h := c.Try.Handlers[0]
		fmt.Printf("try at line %d, handler %v as %s\n", c.Try.Line, h.Types, h.Name)
	}
	// Output:
	// json = _py_import("json")
	// total = _py_pow(2, 10)
	// print((_py_format(total, ",") + " bytes"))
	// try at line 4, handler [ValueError] as e
}

func ExampleCompile_unsupported() {
	_, err := pyfront.Compile("step.py", "class Point:\n    pass\n", pyfront.Options{})
	fmt.Println(err)
	// Output:
	// step.py:1:1: class definitions are not supported here: use a dict per record and plain functions
}
