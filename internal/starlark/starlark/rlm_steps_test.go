package starlark

import (
	"strings"
	"testing"
	"time"
)

// TestStepLimitAndCancel: the interpreter's single step comparison
// (stepLimit) still stops a thread at its step limit, calls OnMaxSteps
// there, stops a thread cancelled from another goroutine, and runs again
// after Uncancel.
func TestStepLimitAndCancel(t *testing.T) {
	const loop = "def f():\n    n = 0\n    for i in range(100000000):\n        n += 1\n    return n\nf()\n"

	thread := &Thread{}
	thread.SetMaxExecutionSteps(1000)
	_, err := ExecFile(thread, "f.star", loop, nil)
	if err == nil || !strings.Contains(err.Error(), "too many steps") {
		t.Fatalf("step limit: got %v", err)
	}
	if n := thread.ExecutionSteps(); n < 1000 || n > 1010 {
		t.Errorf("stopped after %d steps, want about 1000", n)
	}

	calls := 0
	thread = &Thread{}
	thread.SetMaxExecutionSteps(500)
	thread.OnMaxSteps = func(th *Thread) {
		if calls++; calls < 3 {
			th.SetMaxExecutionSteps(th.ExecutionSteps() + 500)
		} else {
			th.Cancel("enough")
		}
	}
	_, err = ExecFile(thread, "f.star", loop, nil)
	if err == nil || !strings.Contains(err.Error(), "cancelled: enough") || calls != 3 {
		t.Fatalf("OnMaxSteps: got %v after %d calls", err, calls)
	}

	thread = &Thread{}
	go func() {
		time.Sleep(20 * time.Millisecond)
		thread.Cancel("from outside")
	}()
	_, err = ExecFile(thread, "f.star", loop, nil)
	if err == nil || !strings.Contains(err.Error(), "cancelled: from outside") {
		t.Fatalf("Cancel: got %v", err)
	}
	thread.Uncancel()
	if _, err := ExecFile(thread, "g.star", "x = [i for i in range(10)]\n", nil); err != nil {
		t.Fatalf("after Uncancel: %v", err)
	}
}
