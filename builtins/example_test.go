package builtins_test

import (
	"context"
	"fmt"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/sandbox"
)

// A sandbox session with the helpers: explore a variable, fan out
// sub-calls, and finish with SUBMIT.
func Example() {
	model := llmtest.NewScripted().Default(func(req llm.Request) (*llm.Response, error) {
		return &llm.Response{Content: "summary of " + req.Messages[0].Content[:7]}, nil
	})
	host := &builtins.Host{Model: model}
	sess := sandbox.New(sandbox.Config{Predeclared: builtins.Predeclared(host)})
	sess.SetGlobal("context", starlark.String("INFO boot\nERROR disk full\nINFO done\nERROR fan failure\n"))

	ctx := context.Background()
	res, _ := sess.Exec(ctx, `
errors = search(context, "ERROR")
print([(e["line"], e["preview"]) for e in errors])
parts = [llm_query("Explain: " + e["preview"]) for e in errors]`)
	fmt.Print(res.Output)
	_ = host.Group.Wait(ctx) // the barrier between steps

	res, err := sess.Exec(ctx, `print(parts)
SUBMIT(answer=len(parts), notes=parts)`)
	fmt.Print(res.Output)
	if outs, ok := builtins.Outputs(err); ok {
		v, _ := outs.Get("answer")
		fmt.Println("submitted answer:", v)
	}
	// Output:
	// [(2, 'ERROR disk full'), (4, 'ERROR fan failure')]
	// ['summary of Explain', 'summary of Explain']
	// submitted answer: 2
}

func ExamplePromptHelp() {
	for _, d := range builtins.Docs()[:2] {
		fmt.Println(d.Signature)
	}
	// Output:
	// peek(var, start=0, end=10)
	// search(var, pattern, regex=False, max_results=10, field=None)
}
