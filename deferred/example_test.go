package deferred_test

import (
	"context"
	"fmt"

	"go.starlark.net/starlark"

	"github.com/rlmhq/rlm/deferred"
)

func Example() {
	g := deferred.New(deferred.Config{MaxConcurrency: 4})
	ctx := context.Background()
	square := func(n int) func(context.Context) (starlark.Value, error) {
		return func(context.Context) (starlark.Value, error) { return starlark.MakeInt(n * n), nil }
	}
	a := g.GoLabel(ctx, "square", "sq:3", square(3))
	b := g.GoLabel(ctx, "square", "sq:3", square(3)) // memoized: same future
	_ = g.Wait(ctx)                                  // the barrier
	fmt.Println(a, a == b, g.Started(), g.Pending())
	// Output: 9 true 1 0
}
