package deferred_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/sandbox"
)

var _ sandbox.Proxy = (*deferred.Future)(nil)

// first drops Go's started flag.
func first(f *deferred.Future, _ bool) *deferred.Future { return f }

func TestGoRunsAtOnceAndWaitIsTheBarrier(t *testing.T) {
	g := deferred.New(deferred.Config{})
	release := make(chan struct{})
	var started atomic.Int32
	var fs []*deferred.Future
	for i := range 5 {
		fs = append(fs, first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) {
			started.Add(1)
			<-release
			return starlark.MakeInt(i), nil
		})))
	}
	require.Eventually(t, func() bool { return started.Load() == 5 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, 5, g.Pending())
	assert.False(t, fs[0].Done())
	assert.Equal(t, "<operation pending>", fs[0].String())
	close(release)
	require.NoError(t, g.Wait(context.Background()))
	assert.Equal(t, 0, g.Pending())
	for i, f := range fs {
		v, err := f.Wait(context.Background())
		require.NoError(t, err)
		assert.Equal(t, starlark.MakeInt(i), v)
		assert.Equal(t, starlark.MakeInt(i).String(), f.String())
	}
}

func TestMemoizedByKey(t *testing.T) {
	g := deferred.New(deferred.Config{})
	var calls atomic.Int32
	op := func(ctx context.Context) (starlark.Value, error) {
		calls.Add(1)
		return starlark.String("x"), nil
	}
	a := first(g.Go(context.Background(), op, deferred.Key("k")))
	b := first(g.Go(context.Background(), op, deferred.Key("k")))
	c := first(g.Go(context.Background(), op, deferred.Key("other")))
	require.NoError(t, g.Wait(context.Background()))
	assert.Same(t, a, b)
	assert.NotSame(t, a, c)
	assert.Equal(t, int32(2), calls.Load())
	assert.Equal(t, 2, g.Started())
	assert.Equal(t, 1, g.MemoHits(), "b was answered by a's future")

	// A failed operation is not memoized: the next call retries.
	boom := errors.New("boom")
	f1 := first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) { return nil, boom }, deferred.Key("fails")))
	require.NoError(t, g.Wait(context.Background()))
	f2 := first(g.Go(context.Background(), op, deferred.Key("fails")))
	require.NoError(t, g.Wait(context.Background()))
	assert.ErrorIs(t, f1.Err(), boom)
	assert.NoError(t, f2.Err())
	assert.Equal(t, 1, g.MemoHits(), "a retry after a failure is no memo hit")
}

func TestFutureAttributes(t *testing.T) {
	g := deferred.New(deferred.Config{})
	ok := first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) {
		return starlark.String("answer"), nil
	}, deferred.Label("llm_query")))
	bad := first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) {
		return nil, errors.New("server said no")
	}, deferred.Label("llm_query")))
	require.NoError(t, g.Wait(context.Background()))

	thread := &starlark.Thread{}
	globals := starlark.StringDict{"ok": ok, "bad": bad}
	for expr, want := range map[string]string{
		`ok.value`:    `"answer"`,
		`ok.result()`: `"answer"`,
		`ok.done`:     `True`,
		`ok.error`:    `None`,
		`bad.done`:    `True`,
		`bad.error`:   `"server said no"`,
		`type(ok)`:    `"future"`,
		`ok.upper()`:  `"ANSWER"`,
		`ok[0]`:       `"a"`,
		`ok + "!"`:    `"answer!"`,
		`"<" + ok`:    `"<answer"`,
		`ok < ok`:     `False`,
		`"swe" in ok`: `True`,
		`"xyz" in ok`: `False`,
	} {
		v, err := starlark.EvalOptions(&syntax.FileOptions{}, thread, "t", expr, globals)
		require.NoError(t, err, expr)
		assert.Equal(t, want, v.String(), expr)
	}
	_, err := starlark.EvalOptions(&syntax.FileOptions{}, thread, "t", "bad.value", globals)
	assert.ErrorContains(t, err, "llm_query failed: server said no")

	// Rendering a failed future reports the error instead of raising.
	v, err := bad.ProxyTarget(thread)
	require.NoError(t, err)
	assert.Equal(t, starlark.String("<llm_query failed: server said no>"), v)
	assert.Equal(t, "<llm_query failed: server said no>", bad.String())
	assert.Equal(t, "answer", ok.String())
	h, err := ok.Hash()
	require.NoError(t, err)
	want, _ := starlark.String("answer").Hash()
	assert.Equal(t, want, h)
	_, err = bad.Hash()
	assert.Error(t, err)

	failed := g.Failures()
	require.Len(t, failed, 1)
	assert.Same(t, bad, failed[0])
	assert.Empty(t, g.Failures(), "failures are reported once")
}

func TestWaitCanceledCancelsPending(t *testing.T) {
	g := deferred.New(deferred.Config{})
	f := first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) {
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := g.Wait(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.True(t, f.Done())
	assert.ErrorIs(t, f.Err(), context.Canceled)
}

func TestOperationsOutliveTheStartingContext(t *testing.T) {
	g := deferred.New(deferred.Config{})
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
	f := first(g.Go(ctx, func(ctx context.Context) (starlark.Value, error) {
		time.Sleep(10 * time.Millisecond)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return starlark.String(ctx.Value(ctxKey{}).(string)), nil
	}))
	cancel() // the step ended; the operation keeps running
	require.NoError(t, g.Wait(context.Background()))
	v, err := f.Wait(context.Background())
	require.NoError(t, err)
	assert.Equal(t, starlark.String("v"), v)
}

type ctxKey struct{}

func TestCloseCancels(t *testing.T) {
	g := deferred.New(deferred.Config{})
	f := first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) {
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}))
	g.Close()
	assert.ErrorIs(t, f.Err(), deferred.ErrClosed)
	late := first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) { return starlark.None, nil }))
	_, err := late.Wait(context.Background())
	assert.ErrorIs(t, err, deferred.ErrClosed)
}

func TestMaxConcurrency(t *testing.T) {
	g := deferred.New(deferred.Config{MaxConcurrency: 3})
	var mu sync.Mutex
	cur, peak := 0, 0
	for range 20 {
		first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) {
			mu.Lock()
			cur++
			peak = max(peak, cur)
			mu.Unlock()
			time.Sleep(2 * time.Millisecond)
			mu.Lock()
			cur--
			mu.Unlock()
			return starlark.None, nil
		}))
	}
	require.NoError(t, g.Wait(context.Background()))
	assert.LessOrEqual(t, peak, 3)
	assert.GreaterOrEqual(t, peak, 2)
}

func TestPanicBecomesError(t *testing.T) {
	g := deferred.New(deferred.Config{})
	f := first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) { panic("oops") }))
	require.NoError(t, g.Wait(context.Background()))
	assert.ErrorIs(t, f.Err(), deferred.ErrPanic)
	assert.ErrorContains(t, f.Err(), "oops")
}

func TestResolvedAndFailed(t *testing.T) {
	r := deferred.Resolved("summarize", starlark.String("s"))
	assert.True(t, r.Done())
	assert.Equal(t, "s", r.String())
	f := deferred.Failed("x", errors.New("e"))
	assert.Equal(t, "<x failed: e>", f.String())
}

// A future read from a thread waits under the thread's context
// (sandbox.SetThreadContext): canceling it ends the wait, not the operation.
func TestFutureWaitsUnderThreadContext(t *testing.T) {
	g := deferred.New(deferred.Config{})
	defer g.Close()
	release := make(chan struct{})
	f := first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) {
		<-release
		return starlark.String("late"), nil
	}))
	th := &starlark.Thread{}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("step stopped")
	cancel(stop)
	sandbox.SetThreadContext(th, ctx)
	_, err := f.ProxyTarget(th)
	require.ErrorIs(t, err, stop)
	assert.False(t, f.Done())

	close(release)
	v, err := f.ProxyTarget(&starlark.Thread{})
	require.NoError(t, err, "a thread without a context waits for the operation")
	assert.Equal(t, starlark.String("late"), v)
}

func TestStoppedStartingContextCancelsOperations(t *testing.T) {
	errLimit := errors.New("time limit exceeded")
	tests := []struct {
		name   string
		cancel func(context.CancelCauseFunc)
		want   error // nil: the operation keeps running
	}{
		{"step ended normally", func(c context.CancelCauseFunc) { c(nil) }, nil},
		{"plain cancel", func(c context.CancelCauseFunc) { c(context.Canceled) }, nil},
		{"stopped by a limit", func(c context.CancelCauseFunc) { c(errLimit) }, errLimit},
		{"deadline", func(c context.CancelCauseFunc) { c(context.DeadlineExceeded) }, context.DeadlineExceeded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := deferred.New(deferred.Config{})
			release := make(chan struct{})
			ctx, cancel := context.WithCancelCause(context.Background())
			f := first(g.Go(ctx, func(ctx context.Context) (starlark.Value, error) {
				select {
				case <-ctx.Done():
					return nil, context.Cause(ctx)
				case <-release:
					return starlark.String("ok"), nil
				}
			}))
			tc.cancel(cancel)
			if tc.want == nil {
				assert.False(t, f.Done())
				close(release)
				v, err := f.Wait(context.Background())
				require.NoError(t, err)
				assert.Equal(t, starlark.String("ok"), v)
				return
			}
			_, err := f.Wait(context.Background())
			assert.ErrorIs(t, err, tc.want)
			close(release)
		})
	}
}

// TestWaitLeavesEveryFutureDone: when Wait returns, every future reads as
// done, failed ones included (settle used to take a future out of the
// pending set before closing its done channel, so a Wait in between
// returned with a future not yet done: TestFutureAttributes failed under
// load).
func TestWaitLeavesEveryFutureDone(t *testing.T) {
	for round := 0; round < 50; round++ {
		g := deferred.New(deferred.Config{})
		var fs []*deferred.Future
		for i := 0; i < 20; i++ {
			fail := i%2 == 0
			fs = append(fs, first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) {
				if fail {
					return nil, errors.New("no")
				}
				return starlark.None, nil
			})))
		}
		require.NoError(t, g.Wait(context.Background()))
		for i, f := range fs {
			require.True(t, f.Done(), "round %d, future %d", round, i)
		}
	}
}

// An operation's context names its label (what a tracer reports as the
// helper a model call serves); outside an operation, and for an
// unlabelled one, LabelOf is empty.
func TestLabelOf(t *testing.T) {
	g := deferred.New(deferred.Config{})
	defer g.Close()
	assert.Empty(t, deferred.LabelOf(context.Background()))
	labels := make(chan string, 2)
	first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) {
		labels <- deferred.LabelOf(ctx)
		return starlark.None, nil
	}, deferred.Label("llm_query")))
	first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) {
		labels <- deferred.LabelOf(ctx)
		return starlark.None, nil
	}))
	require.NoError(t, g.Wait(context.Background()))
	got := []string{<-labels, <-labels}
	assert.ElementsMatch(t, []string{"llm_query", ""}, got)
}

// TestWaitedCountsOnlyBlockedWaits: the time a caller spends blocked on a
// pending future is added to Group.Waited (by the group's clock); reading a
// settled future, or the barrier, adds nothing.
func TestWaitedCountsOnlyBlockedWaits(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	reads := 0
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		reads++
		if reads == 1 {
			close(release) // the first read is the blocked Wait's start
		}
		return t0.Add(time.Duration(reads) * 5 * time.Second)
	}
	g := deferred.New(deferred.Config{Now: now})
	f := first(g.Go(context.Background(), func(ctx context.Context) (starlark.Value, error) {
		<-release
		return starlark.String("x"), nil
	}))
	tests := []struct {
		name string
		wait func()
		want time.Duration
	}{
		{"a pending future blocks", func() { _, _ = f.Wait(context.Background()) }, 5 * time.Second},
		{"a settled future does not", func() { _, _ = f.Wait(context.Background()) }, 5 * time.Second},
		{"nor does the barrier", func() { require.NoError(t, g.Wait(context.Background())) }, 5 * time.Second},
		{"nor a resolved future", func() { _, _ = deferred.Resolved("x", starlark.None).Wait(context.Background()) }, 5 * time.Second},
	}
	for _, tt := range tests {
		tt.wait()
		assert.Equal(t, tt.want, g.Waited(), tt.name)
	}
}
