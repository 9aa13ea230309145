package builtins_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/sandbox"
)

// TestStoppedStepCancelsItsSubCalls runs sub-calls through the real client
// against a server that answers only when released (or when the request is
// canceled): a step stopped by its time limit must cancel the requests it
// started, so the barrier after it does not wait for them; a step that ends
// normally leaves them running.
func TestStoppedStepCancelsItsSubCalls(t *testing.T) {
	tests := []struct {
		name     string
		code     string
		calls    int
		stopped  bool
		errMatch string
	}{
		{"waiting on the future", "f = llm_query('slow')\nprint(f.value)", 1, true, "time limit"},
		{"busy after starting calls", "fs = [llm_query('slow %d' % i) for i in range(3)]\nwhile True:\n    pass", 3, true, "limit"},
		{"normal end", "f = llm_query('slow')", 1, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			release := make(chan struct{})
			canceled := make(chan struct{}, 8)
			var answered atomic.Int32
			srv.SetDefault(func(c llmtest.Call) llmtest.Reply {
				return llmtest.Reply{Handler: func(w http.ResponseWriter, r *http.Request, _ llmtest.Call) {
					select {
					case <-r.Context().Done():
						canceled <- struct{}{}
					case <-release:
						answered.Add(1)
						w.Header().Set("Content-Type", "application/json")
						fmt.Fprint(
							w,
							`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}]}`,
						)
					}
				}}
			})
			client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", MaxRetries: -1})
			require.NoError(t, err)
			group := deferred.New(deferred.Config{})
			t.Cleanup(group.Close)
			h := &builtins.Host{Model: client, Group: group}
			sess := sandbox.New(
				sandbox.Config{
					Predeclared: builtins.Predeclared(h),
					ThreadHook:  func(th *starlark.Thread) { builtins.Attach(th, h) },
					Limits:      sandbox.Limits{Timeout: 300 * time.Millisecond, MaxSteps: 1 << 40},
				},
			)
			h.Session = sess

			done := make(chan error, 1)
			go func() {
				_, err := sess.Exec(context.Background(), tc.code)
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				close(release) // waiting on a sub-call that nothing cancels
				t.Fatal("the step did not end at its time limit")
			}
			if !tc.stopped {
				require.NoError(t, err)
				require.Eventually(t, func() bool { return srv.Count() == tc.calls }, 10*time.Second, time.Millisecond)
				select {
				case <-canceled:
					t.Fatal("a step that ended normally canceled its sub-call")
				default:
				}
				close(release)
				require.NoError(t, group.Wait(context.Background()))
				assert.Equal(t, int32(1), answered.Load())
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "TimeoutError")
			for i := range tc.calls {
				select {
				case <-canceled:
				case <-time.After(10 * time.Second):
					close(release)
					t.Fatalf("request %d of the stopped step was not canceled", i)
				}
			}
			require.NoError(t, group.Wait(context.Background()))
			fails := group.Failures()
			require.Len(t, fails, tc.calls)
			for _, f := range fails {
				assert.ErrorContains(t, f.Err(), tc.errMatch)
			}
			assert.Zero(t, answered.Load())
			close(release)
		})
	}
}
