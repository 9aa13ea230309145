package deferred_test

import (
	"context"
	"fmt"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/deferred"
)

func Example() {
	g := deferred.New(deferred.Config{MaxConcurrency: 4})
	ctx := context.Background()
	square := func(n int) func(context.Context) (starlark.Value, error) {
		return func(context.Context) (starlark.Value, error) { return starlark.MakeInt(n * n), nil }
	}
	a, started := g.Go(ctx, square(3), deferred.Label("square"), deferred.Key("sq:3"))
	b, again := g.Go(ctx, square(3), deferred.Label("square"), deferred.Key("sq:3")) // memoized: same future
	_ = g.Wait(ctx)                                                                  // the barrier
	fmt.Println(a, a == b, started, again, g.Started(), g.Pending())
	// Output: 9 true true false 1 0
}
